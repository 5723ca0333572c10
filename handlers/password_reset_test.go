package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

func TestPasswordReset(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)

	// An unknown address gets the same answer and no mail.
	r := c.PostForm("/password_reset", url.Values{"email": {"stranger@example.com"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/password_reset/new?sent=1" || srv.Outbox.Count() != 0 {
		t.Fatalf("unknown email: %d → %q, %d mails", r.Status, r.Location(), srv.Outbox.Count())
	}

	r = c.PostForm("/password_reset", url.Values{"email": {strings.ToUpper(u.Email)}})
	if r.Status != http.StatusSeeOther || r.Location() != "/password_reset/new?sent=1" {
		t.Fatalf("known email: %d → %q", r.Status, r.Location())
	}
	if r := c.Get(r.Location()); !r.Has(t, "reset-sent") {
		t.Fatal("no confirmation after asking for a reset")
	}
	msg, ok := srv.Outbox.Last()
	if !ok || msg.To != u.Email || !strings.HasPrefix(msg.Link, srv.URL+"/password_reset/edit?token=") || !strings.Contains(msg.Body, msg.Link) {
		t.Fatalf("reset mail: %+v", msg)
	}
	path := strings.TrimPrefix(msg.Link, srv.URL)
	token := strings.TrimPrefix(path, "/password_reset/edit?token=")

	if r := c.Get(path); r.Status != http.StatusOK || !r.Has(t, "reset-edit-form") {
		t.Fatalf("reset form: %d", r.Status)
	}
	r = c.PostForm("/password_reset/edit", url.Values{"token": {token}, "password": {"short"}})
	if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-password") == "" {
		t.Fatalf("short password: %d %q", r.Status, r.TestID(t, "error-password"))
	}
	r = c.PostForm("/password_reset/edit", url.Values{"token": {token}, "password": {"a brand new password"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("reset: %d → %q", r.Status, r.Location())
	}

	// The old password no longer works; the new one does; the link is used up.
	if r := c.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("old password still accepted: %d", r.Status)
	}
	c.SignIn(u.Email, "a brand new password")
	if r := c.Get(path); r.Status != http.StatusSeeOther || r.Location() != "/password_reset/new" {
		t.Fatalf("used link: %d → %q", r.Status, r.Location())
	}
	c.Get("/password_reset/new")
	r = c.PostForm("/password_reset/edit", url.Values{"token": {token}, "password": {"yet another password"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/password_reset/new" {
		t.Fatalf("reusing the token: %d → %q", r.Status, r.Location())
	}
}

func TestPasswordResetLinkExpires(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.PostForm("/password_reset", url.Values{"email": {u.Email}})
	msg, _ := srv.Outbox.Last()
	if _, err := srv.DB.NewRaw("UPDATE password_resets SET expires_at = now() - interval '1 second'").Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := c.Get(strings.TrimPrefix(msg.Link, srv.URL)); r.Location() != "/password_reset/new" {
		t.Fatalf("expired link accepted: %d %q", r.Status, r.Location())
	}
}

func TestPasswordResetIsOffWithLocalLogin(t *testing.T) {
	t.Parallel()
	for name, env := range map[string]map[string]string{
		"local login off": {"AUTH_LOCAL_LOGIN_ENABLED": "false"},
		"admin override":  {"AUTH_LOCAL_LOGIN_ENABLED": "false", "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": "true"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := apptest.StartServer(t, apptest.ServerOptions{Env: env})
			u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
			c := apptest.NewClient(t, srv)
			for _, r := range []*testkit.Response{
				c.Get("/password_reset/new"),
				c.PostForm("/password_reset", url.Values{"email": {u.Email}}),
				c.Get("/password_reset/edit?token=x"),
				c.PostForm("/password_reset/edit", url.Values{"token": {"x"}, "password": {"a long password"}}),
			} {
				if r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
					t.Fatalf("reset route answered %d → %q", r.Status, r.Location())
				}
			}
			if srv.Outbox.Count() != 0 {
				t.Fatal("a reset mail was sent")
			}
			if r := c.Get("/sessions/new"); !strings.Contains(r.TestID(t, "flash-error"), "Password reset via Tally is disabled") {
				t.Fatalf("no explanation: %q", r.TestID(t, "flash-error"))
			}
		})
	}
}
