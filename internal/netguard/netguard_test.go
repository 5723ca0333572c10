package netguard

import (
	"errors"
	"testing"
)

func TestHostsAndAddresses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host               string
		loopback, private  bool
		dial, dialLoopback error // connecting to the host as an address
	}{
		{"93.184.215.14", false, false, nil, nil},
		{"2606:4700::6810:84e5", false, false, nil, nil},
		{"127.0.0.1", true, true, ErrPrivate, nil},
		{"::1", true, true, ErrPrivate, nil},
		{"10.1.2.3", false, true, ErrPrivate, ErrPrivate},
		{"172.16.0.9", false, true, ErrPrivate, ErrPrivate},
		{"192.168.1.1", false, true, ErrPrivate, ErrPrivate},
		{"169.254.169.254", false, true, ErrPrivate, ErrPrivate},
		{"fe80::1", false, true, ErrPrivate, ErrPrivate},
		{"fd00::1", false, true, ErrPrivate, ErrPrivate},
		{"::ffff:10.0.0.1", false, true, ErrPrivate, ErrPrivate},
		{"0.0.0.0", false, true, ErrPrivate, ErrPrivate},
		{"224.0.0.1", false, true, ErrPrivate, ErrPrivate},
		// Every special-purpose block: carrier-grade NAT and a cloud's metadata address in it,
		// "this network", IETF assignments, benchmarking, reserved, and IPv6 forms that carry
		// an IPv4 address.
		{"100.64.0.1", false, true, ErrPrivate, ErrPrivate},
		{"100.100.100.200", false, true, ErrPrivate, ErrPrivate},
		{"0.1.2.3", false, true, ErrPrivate, ErrPrivate},
		{"192.0.0.170", false, true, ErrPrivate, ErrPrivate},
		{"192.0.2.10", false, true, ErrPrivate, ErrPrivate},
		{"198.18.0.1", false, true, ErrPrivate, ErrPrivate},
		{"198.19.255.254", false, true, ErrPrivate, ErrPrivate},
		{"198.51.100.7", false, true, ErrPrivate, ErrPrivate},
		{"203.0.113.9", false, true, ErrPrivate, ErrPrivate},
		{"240.0.0.1", false, true, ErrPrivate, ErrPrivate},
		{"255.255.255.255", false, true, ErrPrivate, ErrPrivate},
		{"64:ff9b::a9fe:a9fe", false, true, ErrPrivate, ErrPrivate}, // NAT64 of 169.254.169.254
		{"64:ff9b:1::1", false, true, ErrPrivate, ErrPrivate},
		{"2002:a9fe:a9fe::1", false, true, ErrPrivate, ErrPrivate},   // 6to4 of 169.254.169.254
		{"::7f00:1", false, true, ErrPrivate, ErrPrivate},            // IPv4-compatible 127.0.0.1
		{"2001:0:4136:e378::1", false, true, ErrPrivate, ErrPrivate}, // Teredo
		{"2001:db8::1", false, true, ErrPrivate, ErrPrivate},
		{"100::1", false, true, ErrPrivate, ErrPrivate},
		{"ff02::1", false, true, ErrPrivate, ErrPrivate},
		{"::ffff:100.64.0.1", false, true, ErrPrivate, ErrPrivate},
		// IPv6 outside the global unicast block 2000::/3: the deprecated site-local block, SIIT's
		// IPv4-translated form, the dummy prefix, segment-routing SIDs and blocks the IETF holds.
		{"fec0::1", false, true, ErrPrivate, ErrPrivate},
		{"feff::1", false, true, ErrPrivate, ErrPrivate},
		{"::ffff:0:a9fe:a9fe", false, true, ErrPrivate, ErrPrivate}, // SIIT of 169.254.169.254
		{"::ffff:0:5db8:d70e", false, true, ErrPrivate, ErrPrivate}, // SIIT of 93.184.215.14
		{"100:0:0:1::1", false, true, ErrPrivate, ErrPrivate},
		{"5f00::1", false, true, ErrPrivate, ErrPrivate},
		{"4000::1", false, true, ErrPrivate, ErrPrivate},
		{"1fff:ffff::1", false, true, ErrPrivate, ErrPrivate},    // just before 2000::/3
		{"2620:4f:8000::1", false, true, ErrPrivate, ErrPrivate}, // AS112 direct delegation
		{"2001:200::1", false, false, nil, nil},                  // just past 2001::/23
		{"3fff:1000::1", false, false, nil, nil},                 // just past 3fff::/20
		{"::ffff:93.184.215.14", false, false, nil, nil},         // IPv4-mapped public: judged as IPv4
		{"100.128.0.1", false, false, nil, nil},                  // just past 100.64.0.0/10
		{"198.20.0.1", false, false, nil, nil},                   // just past 198.18.0.0/15
		{"localhost", true, true, ErrPrivate, ErrPrivate},
		{"api.localhost.", true, true, ErrPrivate, ErrPrivate},
		{"example.com", false, false, ErrPrivate, ErrPrivate}, // a dialer only ever sees addresses
	} {
		if got := Loopback(tc.host); got != tc.loopback {
			t.Errorf("Loopback(%s) = %v", tc.host, got)
		}
		if got := Private(tc.host); got != tc.private {
			t.Errorf("Private(%s) = %v", tc.host, got)
		}
		addr := "[" + tc.host + "]:443"
		if err := Control(false)("tcp", addr, nil); !errors.Is(err, tc.dial) {
			t.Errorf("Control(false) %s: %v", addr, err)
		}
		if err := Control(true)("tcp", addr, nil); !errors.Is(err, tc.dialLoopback) {
			t.Errorf("Control(true) %s: %v", addr, err)
		}
	}
}
