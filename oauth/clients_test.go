package oauth

import (
	"strings"
	"testing"
)

func TestCheckRedirectURI(t *testing.T) {
	for _, ok := range []string{"https://app.example/cb", "https://app.example:8443/cb?x=1", "http://127.0.0.1:8765/callback",
		"http://localhost/cb", "http://[::1]:9/cb"} {
		if err := checkRedirectURI(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for uri, why := range map[string]string{
		"javascript:alert(1)":          "absolute URL",
		"https://app.example/cb#x":     "fragment",
		"https://app.example/cb#":      "fragment",
		"http://app.example/cb":        "loopback",
		"http://10.0.0.1/cb":           "loopback",
		"ftp://app.example/cb":         "https",
		"/relative/cb":                 "absolute URL",
		"com.example.app:/oauth2redir": "absolute URL",
	} {
		err := checkRedirectURI(uri)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want an error about %q", uri, err, why)
		}
	}
}
