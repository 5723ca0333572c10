// Package netguard keeps Tally's requests to addresses its users choose (a bank-data
// provider, a webhook endpoint) off the machine and its private networks, so that a URL cannot
// turn Tally into a way to reach internal services (SSRF).
//
// Two checks work together: Private and Loopback tell a URL whose host is written as a private
// address or a localhost name when it is saved, and Control refuses the connection itself when
// a name resolves to one, now or after a DNS change.
package netguard

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// ErrPrivate is a connection refused because its address is not public.
var ErrPrivate = errors.New("refusing to connect to a private address")

// globalUnicast is the one IPv6 block IANA's IPv6 Address Space registry gives to the public
// internet. Every IPv6 address outside it is unique-local (fc00::/7), link-local (fe80::/10),
// multicast (ff00::/8) or reserved by the IETF, which takes in the unspecified address and
// loopback, IPv4-compatible (::/96) and SIIT's IPv4-translated addresses (::ffff:0:0:0/96),
// NAT64 (64:ff9b::/96, 64:ff9b:1::/48), the discard-only and dummy prefixes (100::/64,
// 100:0:0:1::/64), segment-routing SIDs (5f00::/16), the deprecated site-local block
// (fec0::/10), and any block the IETF assigns there later.
var globalUnicast = netip.MustParsePrefix("2000::/3")

// special are the address blocks that are not the public internet, from IANA's IPv4 and IPv6
// Special-Purpose Address Registries (RFC 6890 and its updates), whole: a block some of whose
// addresses are globally reachable (192.0.0.0/24, 2001::/23) is refused all the same, as no
// webhook or bank provider lives there. IPv6 blocks that carry an IPv4 address (6to4, Teredo)
// are refused too, since they reach whatever IPv4 address they carry; an IPv4-mapped address
// is judged by its IPv4 address. The IPv6 blocks are those inside globalUnicast.
var special = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		// IPv4
		"0.0.0.0/8",       // "this network"
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // shared address space: carrier-grade NAT, tailnets, cloud metadata
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local, cloud metadata
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation (TEST-NET-1)
		"192.31.196.0/24", // AS112-v4
		"192.52.193.0/24", // AMT
		"192.88.99.0/24",  // 6to4 relay anycast (deprecated)
		"192.168.0.0/16",  // private
		"192.175.48.0/24", // direct delegation AS112
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation (TEST-NET-2)
		"203.0.113.0/24",  // documentation (TEST-NET-3)
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, and the limited broadcast 255.255.255.255
		// IPv6, inside globalUnicast
		"2001::/23",         // IETF protocol assignments, Teredo among them
		"2001:db8::/32",     // documentation
		"2002::/16",         // 6to4
		"2620:4f:8000::/48", // direct delegation AS112
		"3fff::/20",         // documentation
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Public reports whether ip is on the public internet: in none of the special-purpose blocks,
// and for IPv6, in the global unicast block.
func Public(ip net.IP) bool {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	addr = addr.Unmap() // ::ffff:a.b.c.d is a.b.c.d
	if addr.Is6() && !globalUnicast.Contains(addr) {
		return false
	}
	for _, p := range special {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// Loopback reports whether host (a URL's host name, without port) is this machine: a loopback
// address, localhost, or a name under .localhost.
func Loopback(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// Private reports whether host (a URL's host name, without port) is written as an address
// that is not public, or is a localhost name. A name that merely resolves to one is caught by
// Control when connecting.
func Private(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return !Public(ip)
	}
	return Loopback(host)
}

// Control is a net.Dialer Control function that refuses to connect to an address that is not
// public; with allowLoopback, loopback addresses are let through (and only those).
func Control(allowLoopback bool) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		ip := net.ParseIP(host)
		switch {
		case ip == nil:
			return ErrPrivate
		case Public(ip), allowLoopback && ip.IsLoopback():
			return nil
		}
		return ErrPrivate
	}
}
