package handlers_test

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// TestEachBrowserHasItsOwnMark is a user without a second factor, signed in from a laptop, a
// phone and a tablet, while strangers use up the account's wrong passwords: each browser has
// a mark of its own and a count of its own, so wrong passwords typed on the laptop do not
// hold the owner back on the phone; a forged mark, a mark copied before its browser signed in
// again, a forgotten browser's and an expired one's get nothing from the owner's count.
func TestEachBrowserHasItsOwnMark(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	// Every attempt comes from an address of its own, so that the limit per address stays out
	// of the way of the one per account.
	addrs := 0
	attempt := func(b *testkit.Client, password string) *testkit.Response {
		t.Helper()
		addrs++
		b.Headers = map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", addrs)}
		b.Get("/sessions/new")
		return b.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {password}})
	}
	signsIn := func(b *testkit.Client) bool {
		t.Helper()
		r := attempt(b, testkit.Password)
		if r.Status == http.StatusSeeOther && r.Location() == "/" {
			return true
		}
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("the right password: %d → %q", r.Status, r.Location())
		}
		return false
	}
	// withMark is a new browser holding mark as its tally_browser cookie.
	withMark := func(mark string) *testkit.Client {
		b := apptest.NewClient(t, srv)
		b.SetCookie("tally_browser", mark)
		return b
	}

	laptop, phone, tablet := apptest.NewClient(t, srv), apptest.NewClient(t, srv), apptest.NewClient(t, srv)
	for _, b := range []*testkit.Client{laptop, phone, tablet} {
		if !signsIn(b) {
			t.Fatal("a first sign-in was refused")
		}
		b.PostForm("/sign_out", nil)
	}
	if laptop.Cookie("tally_browser") == phone.Cookie("tally_browser") {
		t.Fatal("two browsers were given the same mark")
	}
	phoneBefore := phone.Cookie("tally_browser")

	for i := range 10 {
		if r := attempt(apptest.NewClient(t, srv), fmt.Sprintf("stranger %d", i)); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a stranger's guess %d: %d", i+1, r.Status)
		}
	}
	if signsIn(apptest.NewClient(t, srv)) {
		t.Fatal("past the limit, a new browser signed in: the strangers' count is not the account's")
	}
	forged := make([]byte, 32)
	rand.Read(forged)
	if signsIn(withMark(base64.RawURLEncoding.EncodeToString(forged))) {
		t.Error("a forged mark stood for a known browser")
	}

	// Ten wrong passwords on the laptop use up the laptop's count only.
	for i := range 10 {
		if r := attempt(laptop, fmt.Sprintf("typo %d", i)); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong password %d on the laptop: %d", i+1, r.Status)
		}
	}
	if signsIn(laptop) {
		t.Fatal("the laptop's count is not used up by its own ten wrong passwords")
	}
	if !signsIn(phone) {
		t.Fatal("wrong passwords on the laptop hold the owner back on the phone")
	}
	if signsIn(withMark(phoneBefore)) {
		t.Error("a copy of the phone's mark taken before its last sign-in still counts")
	}

	// The phone's security page lists the three browsers, the phone first; the other user
	// cannot forget one of them, the owner can.
	page := phone.Get("/settings/security")
	rows := page.Doc(t).Find(`[data-testid="browser-row"]`)
	if rows.Length() != 3 || rows.First().Find(`[data-testid="browser-current"]`).Length() != 1 {
		t.Fatalf("%d browsers listed, the first current %v", rows.Length(), rows.First().Find(`[data-testid="browser-current"]`).Length() == 1)
	}
	forget := rows.First().Find("form").AttrOr("action", "")
	stranger := apptest.NewClient(t, srv)
	stranger.SignIn(other.Email, testkit.Password)
	stranger.Get("/settings/security")
	if r := stranger.PostForm(forget, nil); r.Status != http.StatusNotFound {
		t.Fatalf("another user forgets the phone: %d", r.Status)
	}
	if r := phone.PostForm(forget, nil); r.Status != http.StatusSeeOther {
		t.Fatalf("forget the phone: %d", r.Status)
	}
	phone.PostForm("/sign_out", nil)
	if signsIn(phone) {
		t.Error("a forgotten browser still counts")
	}

	if _, err := srv.DB.NewRaw("UPDATE known_browsers SET expires_at = now() - interval '1 second' WHERE user_id = ?", u.ID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	if signsIn(tablet) {
		t.Error("an expired browser still counts")
	}
}
