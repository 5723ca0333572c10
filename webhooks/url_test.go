package webhooks

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestEndpointURLsMustBePublicHTTPS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url string
		// refused says why the URL is refused, by default and with WEBHOOKS_ALLOW_INSECURE;
		// "" accepts it.
		refused, refusedInsecure string
	}{
		{"https://hooks.example.com/tally", "", ""},
		{"https://hooks.example.com:8443/tally?token=abc", "", ""},
		{"http://hooks.example.com/tally", "must use https", "only on a loopback address"},
		{"https://127.0.0.1:9000/hooks", "points to this machine", ""},
		{"http://127.0.0.1:9000/hooks", "points to this machine", ""},
		{"http://localhost:9000/hooks", "points to this machine", ""},
		{"http://[::1]:9000/hooks", "points to this machine", ""},
		{"https://10.0.0.5/hooks", "private or link-local", "private or link-local"},
		{"https://192.168.1.20/hooks", "private or link-local", "private or link-local"},
		{"http://169.254.169.254/latest/meta-data", "private or link-local", "private or link-local"},
		{"https://[fe80::1]/hooks", "private or link-local", "private or link-local"},
		{"https://0.0.0.0/hooks", "private or link-local", "private or link-local"},
		{"https://user:pass@hooks.example.com/", "user name or password", "user name or password"},
		{"ftp://hooks.example.com/", "full URL", "full URL"},
		{"hooks.example.com/tally", "full URL", "full URL"},
		{"", "Enter the URL", "Enter the URL"},
		{"https://hooks.example.com/" + strings.Repeat("a", 2048), "too long", "too long"},
	} {
		for _, insecure := range []bool{false, true} {
			want := tc.refused
			if insecure {
				want = tc.refusedInsecure
			}
			got := (&Service{AllowInsecure: insecure}).checkURL(tc.url)
			if (want == "") != (got == "") || !strings.Contains(got, want) {
				t.Errorf("%.60s (insecure %v): %q, want %q", tc.url, insecure, got, want)
			}
		}
	}
}

func TestRetryScheduleSpansADay(t *testing.T) {
	t.Parallel()
	var p RetryPolicy // the zero value is DefaultRetry
	var at []string
	elapsed := time.Duration(0)
	for attempt := 1; ; attempt++ {
		at = append(at, elapsed.String())
		next := elapsed + p.Delay(attempt)
		if next > p.window() {
			break
		}
		elapsed = next
	}
	want := "[0s 30s 2m30s 12m30s 42m30s 1h42m30s 3h42m30s 7h42m30s 11h42m30s 15h42m30s 19h42m30s 23h42m30s]"
	if got := fmt.Sprint(at); got != want {
		t.Fatalf("attempts at %s, want %s", got, want)
	}
	if got := (RetryPolicy{Delays: []time.Duration{time.Second, 5 * time.Second}}).Delay(9); got != 5*time.Second {
		t.Fatalf("the last delay repeats: %s", got)
	}
}
