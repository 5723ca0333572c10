package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// runHealthcheck asks a Tally process whether it is ready, for container health checks in an
// image that has no curl: it GETs url (by default /readyz on LISTEN_ADDR, reached through the
// loopback when it listens on every interface) and fails unless the answer is 200.
func runHealthcheck(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) > 1 {
		return fmt.Errorf("usage: tally healthcheck [URL]")
	}
	url := ""
	if len(args) == 1 {
		url = args[0]
	} else {
		addr := strings.TrimSpace(getenv("LISTEN_ADDR"))
		if addr == "" {
			addr = "127.0.0.1:3000"
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return fmt.Errorf("LISTEN_ADDR %q is not host:port: %v", addr, err)
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			host = "127.0.0.1"
		}
		url = "http://" + net.JoinHostPort(host, port) + "/readyz"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: %s answered %d %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	fmt.Fprintln(stdout, strings.TrimSpace(string(body)))
	return nil
}
