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
