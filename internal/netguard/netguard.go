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
	"strings"
	"syscall"
)

// ErrPrivate is a connection refused because its address is not public.
var ErrPrivate = errors.New("refusing to connect to a private address")

// Public reports whether ip is on the public internet: not loopback, private, link-local,
// unspecified or multicast.
func Public(ip net.IP) bool {
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast())
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
