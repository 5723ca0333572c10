package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// A person changes their name and how numbers and dates look, and the pages follow.
func TestProfileChangesNameAndFormats(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "1234.5")
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	acctPage := "/accounts/" + acct.ID.String()
	if got := c.Get(acctPage).TestID(t, "account-balance"); got != "$1,234.50" {
		t.Fatalf("balance before %q", got)
	}
	r := c.Get("/settings/profile")
	if v, _ := r.Doc(t).Find(`#field-email`).Attr("value"); v != u.Email {
		t.Errorf("email field %q", v)
	}
	r = c.PostForm("/settings/profile", url.Values{"first_name": {" Erika "}, "last_name": {"Mustermann"}, "email": {u.Email},
		"locale": {"de-DE"}, "date_format": {"%d.%m.%Y"}})
	wantRedirect(t, r, "/settings/profile")
	if got := c.Get("/settings/profile").TestID(t, "current-user"); !strings.Contains(got, "Erika Mustermann") {
		t.Errorf("signed in as %q", got)
	}
	r = c.Get(acctPage)
	if got := r.TestID(t, "account-balance"); got != "1.234,50\u00a0$" {
		t.Errorf("balance in de-DE %q", got)
	}
	if got := r.Doc(t).Find(`[data-testid="entry-row"] td`).First().Text(); !strings.Contains(got, ".") || strings.Contains(got, "-") {
		t.Errorf("the opening balance is dated %q, want DD.MM.YYYY", got)
	}
	// Values that are not offered are refused on their fields.
	r = c.PostForm("/settings/profile", url.Values{"email": {u.Email}, "locale": {"xx-XX"}, "date_format": {"%j"}})
	wantPage(t, r, http.StatusUnprocessableEntity)
	if !r.Has(t, "error-locale") || !r.Has(t, "error-date_format") {
		t.Errorf("errors not shown on their fields")
	}
}

// A new email needs the current password; a taken one is refused.
func TestProfileEmailNeedsThePassword(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	c.Get("/settings/profile")
	form := func(email, pw string) url.Values {
		return url.Values{"email": {email}, "email_password": {pw}, "locale": {"en-US"}, "date_format": {"%Y-%m-%d"}}
	}
	r := c.PostForm("/settings/profile", form("new@example.com", ""))
	if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-email_password") != "Enter your current password to change your email" {
		t.Errorf("no password: %d %q", r.Status, r.TestID(t, "error-email_password"))
	}
	r = c.PostForm("/settings/profile", form("new@example.com", "wrong password"))
	if r.TestID(t, "error-email_password") != "Current password is not right" {
		t.Errorf("wrong password: %q", r.TestID(t, "error-email_password"))
	}
	r = c.PostForm("/settings/profile", form(other.Email, testkit.Password))
	if r.TestID(t, "error-email") != "Email has already been taken" {
		t.Errorf("taken email: %q", r.TestID(t, "error-email"))
	}
	wantRedirect(t, c.PostForm("/settings/profile", form(" New@Example.com ", testkit.Password)), "/settings/profile")
	fresh := apptest.NewClient(t, srv)
	fresh.SignIn("new@example.com", testkit.Password)

	// Someone who signs in only through SSO has no password: their email is their provider's.
	if _, err := srv.DB.NewRaw("UPDATE users SET password_hash = NULL WHERE id = ?", u.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := c.Get("/settings/profile"); !r.Has(t, "password-sso") || r.Has(t, "password-form") {
		t.Error("an SSO user is offered a password form")
	}
	r = c.PostForm("/settings/profile", form("third@example.com", ""))
	if r.TestID(t, "error-email") != "Your email comes from your sign-in provider: change it there" {
		t.Errorf("SSO user's email: %q", r.TestID(t, "error-email"))
	}
}

// Changing the password needs the current one, signs out the other sessions, and the new one
// signs in.
func TestProfileChangesThePassword(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	elsewhere := apptest.NewClient(t, srv)
	elsewhere.SignIn(u.Email, testkit.Password)
	c.Get("/settings/profile")
	next := "a much longer passphrase"
	r := c.PostForm("/settings/profile/password", url.Values{"current_password": {"nope"}, "password": {next}, "password_confirmation": {next}})
	if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-current_password") != "Current password is not right" {
		t.Errorf("wrong current: %d %q", r.Status, r.TestID(t, "error-current_password"))
	}
	r = c.PostForm("/settings/profile/password", url.Values{"current_password": {testkit.Password}, "password": {next}, "password_confirmation": {next + "!"}})
	if r.TestID(t, "error-password_confirmation") == "" {
		t.Error("a mismatched confirmation is accepted")
	}
	wantRedirect(t, c.PostForm("/settings/profile/password", url.Values{"current_password": {testkit.Password}, "password": {next}, "password_confirmation": {next}}), "/settings/profile")
	if got := c.Get("/settings/profile").TestID(t, "flash-success"); got != "Your password is changed. 1 other session was signed out." {
		t.Errorf("flash %q", got)
	}
	if r := elsewhere.Get("/settings/profile"); r.Status != http.StatusSeeOther {
		t.Errorf("the other session still reaches the page: %d", r.Status)
	}
	if r := apptest.NewClient(t, srv).PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Status == http.StatusSeeOther {
		t.Error("the old password still signs in")
	}
	apptest.NewClient(t, srv).SignIn(u.Email, next)
}

// TestValidationSpeaksTheReadersLanguage is a form's problems, written by the domain packages
// by message id: a German reader sees them in German on the page, an English one as they
// were.
func TestValidationSpeaksTheReadersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	for lang, want := range map[string]string{
		"de": "Das Passwort muss mindestens 8 Zeichen lang sein",
		"en": "Password must be at least 8 characters",
	} {
		u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
		if _, err := srv.DB.NewRaw("UPDATE users SET language = ? WHERE id = ?", lang, u.ID).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		c := apptest.NewClient(t, srv)
		c.SignIn(u.Email, testkit.Password)
		c.Get("/settings/profile")
		r := c.PostForm("/settings/profile/password", url.Values{"current_password": {testkit.Password}, "password": {"short"}, "password_confirmation": {"short"}})
		if got := r.TestID(t, "error-password"); r.Status != http.StatusUnprocessableEntity || got != want {
			t.Errorf("in %s: %d %q, want %q", lang, r.Status, got, want)
		}
	}
}
