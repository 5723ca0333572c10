package main

// The container image (cmd/tally-image) has no /etc/ssl and no /usr/share/zoneinfo, so the
// binary carries its own time zones and CA roots. The fallback roots are used only when the
// system has none, so a host's own trust store still wins.
import (
	_ "time/tzdata"

	_ "golang.org/x/crypto/x509roots/fallback"
)
