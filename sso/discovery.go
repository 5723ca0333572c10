package sso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"tally/internal/apperr"
)

// CheckDiscovery fetches an OIDC issuer's discovery document, as a save of the provider
// does, and says exactly what is wrong with it: the endpoint's status, an answer that is not
// JSON or has no issuer, an unreachable URL, or an issuer that differs from the configured
// one (a trailing slash is the usual culprit). The error is a validation error on "issuer".
func CheckDiscovery(ctx context.Context, client *http.Client, issuer string) error {
	issuer = strings.TrimSpace(issuer)
	invalid := func(msg string) error {
		return apperr.New(apperr.Invalid, "Provider could not be saved").WithSlug("validation_failed").
			WithFields(map[string][]string{"issuer": {msg}})
	}
	u := strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return invalid("Issuer must be a valid URL")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return invalid("Could not connect to the discovery endpoint: the connection timed out")
		}
		return invalid("Could not connect to the discovery endpoint: " + connectReason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return invalid(fmt.Sprintf("The discovery endpoint returned HTTP %d", resp.StatusCode))
	}
	var doc struct {
		Issuer string `json:"issuer"`
		Auth   string `json:"authorization_endpoint"`
		Token  string `json:"token_endpoint"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc); err != nil {
		return invalid("The discovery endpoint returned invalid JSON")
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"issuer", doc.Issuer}, {"authorization_endpoint", doc.Auth}, {"token_endpoint", doc.Token}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return invalid("The discovery document is missing required fields: " + strings.Join(missing, ", "))
	}
	if doc.Issuer != issuer {
		msg := fmt.Sprintf("Issuer mismatch: discovery returned %s. Copy the issuer exactly as returned by the provider.", doc.Issuer)
		if strings.TrimSuffix(doc.Issuer, "/") == strings.TrimSuffix(issuer, "/") {
			msg = fmt.Sprintf("Issuer mismatch: discovery returned %s. This is usually a trailing slash mismatch, so copy the issuer exactly as returned.", doc.Issuer)
		}
		return invalid(msg)
	}
	return nil
}

// connectReason is the short reason a connection failed, without Go's wrapping.
func connectReason(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "no such host " + dns.Name
	}
	return "the URL could not be reached"
}
