package fakesimplefin_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"tally/banksync/fakesimplefin"
)

func TestClaimOnce(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	token := s.NewSetupToken()

	claimURL, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("setup token is not padded standard base64: %v", err)
	}
	if prefix := s.URL + "/simplefin/claim/"; !strings.HasPrefix(string(claimURL), prefix) {
		t.Fatalf("claim URL %q, want %s<code>", claimURL, prefix)
	}

	status, body := claim(t, http.DefaultClient, token)
	if status != http.StatusOK || !strings.HasSuffix(body, "\n") {
		t.Fatalf("first claim: %d %q, want 200 and the access URL with a newline", status, body)
	}
	access, err := url.Parse(strings.TrimSpace(body))
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := access.User.Password()
	if access.User.Username() == "" || pass == "" || access.Path != "/simplefin" || access.Scheme+"://"+access.Host != s.URL {
		t.Errorf("access URL %s, want http://user:pass@host/simplefin", access.Redacted())
	}
	getAccounts(t, access.String(), "", http.StatusOK)

	if status, body := claim(t, http.DefaultClient, token); status != http.StatusForbidden || body != "Forbidden (was it already claimed?)" {
		t.Errorf("second claim: %d %q, want the Bridge's 403", status, body)
	}

	unknown := base64.StdEncoding.EncodeToString([]byte(s.URL + "/simplefin/claim/nope"))
	if status, body := claim(t, http.DefaultClient, unknown); status != http.StatusForbidden || body != "Forbidden" {
		t.Errorf("unknown token: %d %q, want 403 Forbidden", status, body)
	}

	resp, _ := get(t, http.DefaultClient, string(claimURL))
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET on the claim URL: %d, want 405", resp.StatusCode)
	}
}

func TestConcurrentClaimsOneWins(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	token := s.NewSetupToken()

	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for range cap(statuses) {
		wg.Go(func() {
			status, _ := claim(t, http.DefaultClient, token)
			statuses <- status
		})
	}
	wg.Wait()
	close(statuses)
	won := 0
	for status := range statuses {
		switch status {
		case http.StatusOK:
			won++
		case http.StatusForbidden:
		default:
			t.Errorf("claim: %d", status)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d concurrent claims won, want exactly 1", won, cap(statuses))
	}
}

func TestTokenExpiry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expire func(s *fakesimplefin.Server, token string)
		status int
	}{
		{"claimed a minute before its expiry", func(s *fakesimplefin.Server, _ string) { s.Advance(59 * time.Minute) }, http.StatusOK},
		{"claimed at its expiry", func(s *fakesimplefin.Server, _ string) { s.Advance(time.Hour) }, http.StatusForbidden},
		{"expired by the test", func(s *fakesimplefin.Server, token string) { s.ExpireToken(token) }, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakesimplefin.NewTest(t)
			s.SetNow(fakesimplefin.SampleNow)
			token := s.NewSetupToken(fakesimplefin.ExpiresIn(time.Hour))
			tc.expire(s, token)
			status, body := claim(t, http.DefaultClient, token)
			if status != tc.status {
				t.Fatalf("claim: %d %q, want %d", status, body, tc.status)
			}
			if status == http.StatusForbidden && body != "Forbidden" {
				t.Errorf("claim body %q, want Forbidden", body)
			}
		})
	}
}

func TestReusableToken(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	token := s.NewSetupToken(fakesimplefin.Reusable())
	_, first := claim(t, http.DefaultClient, token)
	status, second := claim(t, http.DefaultClient, token)
	if status != http.StatusOK || second != first {
		t.Errorf("second claim: %d %q, want 200 with the first access URL %q", status, second, first)
	}
}

func TestAccountsNeedLiveBasicAuth(t *testing.T) {
	s, access := newSample(t)
	u, _ := url.Parse(access)
	pass, _ := u.User.Password()
	revoked := s.NewAccessURL()
	s.RevokeAccess(revoked)

	for _, tc := range []struct {
		name   string
		header string // Authorization; "" sends none
		url    string
		status int
	}{
		{"the access URL's credentials", "", access, http.StatusOK},
		{"no credentials", "", s.URL + "/simplefin", http.StatusForbidden},
		{"wrong password", basic(u.User.Username(), "x"), s.URL + "/simplefin", http.StatusForbidden},
		{"unknown user", basic("someone", pass), s.URL + "/simplefin", http.StatusForbidden},
		{"not Basic", "Bearer " + pass, s.URL + "/simplefin", http.StatusForbidden},
		{"revoked access URL", "", revoked, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, version := range []string{"1", "2"} {
				req, _ := http.NewRequest(http.MethodGet, tc.url+"/accounts?version="+version, nil)
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var set accountSet
				err = json.NewDecoder(resp.Body).Decode(&set)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tc.status {
					t.Fatalf("version %s: status %d, want %d", version, resp.StatusCode, tc.status)
				}
				if tc.status == http.StatusOK {
					continue
				}
				if len(set.Errors) != 1 || set.Errors[0] != "Authentication failed" || set.Accounts == nil || len(set.Accounts) != 0 {
					t.Errorf("version %s: body %+v, want errors [Authentication failed] and accounts []", version, set)
				}
				if version == "2" && (len(set.Errlist) != 1 || set.Errlist[0].Code != "gen.auth") {
					t.Errorf("version 2: errlist %+v, want one gen.auth", set.Errlist)
				}
			}
		})
	}
}

func TestInfoNeedsNoAuth(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	resp, body := get(t, http.DefaultClient, s.URL+"/simplefin/info")
	if resp.StatusCode != http.StatusOK || body != `{"versions":["1.0","2.0"]}` {
		t.Errorf("GET /info: %d %s", resp.StatusCode, body)
	}
}

func TestTLS(t *testing.T) {
	s := fakesimplefin.NewTLSTest(t)
	s.LoadSample()
	status, body := claim(t, s.Client(), s.NewSetupToken())
	if status != http.StatusOK || !strings.HasPrefix(body, "https://") {
		t.Fatalf("claim over https: %d %q", status, body)
	}
	resp, _ := get(t, s.Client(), strings.TrimSpace(body)+"/accounts")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /accounts over https: %d", resp.StatusCode)
	}
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}
