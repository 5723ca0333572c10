package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// lang is the language a page says it is in.
func lang(t *testing.T, r *testkit.Response) string {
	t.Helper()
	v, _ := r.Doc(t).Find("html").Attr("lang")
	return v
}

// TestAGermanBrowserSetsUpAGermanFamily is the household: a German browser is shown
// the onboarding in German and offered German as the family's language, and the family's
// pages are German from the first one.
func TestAGermanBrowserSetsUpAGermanFamily(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	c := apptest.NewClient(t, srv)
	german := map[string]string{"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"}
	r := c.Do(http.MethodGet, "/onboarding", nil, german)
	if lang(t, r) != "de" || r.TestID(t, "page-title") != "Tally einrichten" {
		t.Fatalf("a German browser's onboarding is in %q, titled %q", lang(t, r), r.TestID(t, "page-title"))
	}
	if v, _ := r.Doc(t).Find(`[data-testid="field-language"] option[selected]`).Attr("value"); v != "de" {
		t.Errorf("a German browser is offered the language %q", v)
	}
	// An English browser is asked in English, and offered English.
	r = c.Do(http.MethodGet, "/onboarding", nil, map[string]string{"Accept-Language": "en-GB"})
	if v, _ := r.Doc(t).Find(`[data-testid="field-language"] option[selected]`).Attr("value"); lang(t, r) != "en" || v != "en" {
		t.Errorf("an English browser's onboarding is in %q, offering %q", lang(t, r), v)
	}
	form := url.Values{"family_name": {"Familie Berger"}, "email": {"anna@example.com"}, "password": {"a long enough password"},
		"currency": {"EUR"}, "locale": {"de-DE"}, "date_format": {"%d.%m.%Y"}, "language": {"de"}, "_submitted": {"1"}}
	if r := c.PostForm("/onboarding", form); r.Status != http.StatusSeeOther {
		t.Fatalf("onboarding: %d\n%s", r.Status, r.Body)
	}
	u, err := models.UserByEmail(t.Context(), srv.DB, "anna@example.com")
	if err != nil || u.Family.Language != "de" || u.Language != "" {
		t.Fatalf("the family's language %q, the user's own %q (err %v)", u.Family.Language, u.Language, err)
	}
	// Signed in, the family's language wins over the browser's.
	r = c.Do(http.MethodGet, "/", nil, map[string]string{"Accept-Language": "en-US"})
	if lang(t, r) != "de" || r.TestID(t, "nav-transactions") != "Buchungen" || r.TestID(t, "flash-success") != "Willkommen bei Tally! Füge dein erstes Bankkonto hinzu, um loszulegen." {
		t.Errorf("the first page is in %q: %q, %q", lang(t, r), r.TestID(t, "nav-transactions"), r.TestID(t, "flash-success"))
	}
	// A language Tally does not speak is refused on its field.
	c2 := apptest.NewClient(t, apptest.StartServer(t, apptest.ServerOptions{}))
	c2.Get("/onboarding")
	form.Set("language", "xx")
	if r := c2.PostForm("/onboarding", form); r.Status != http.StatusUnprocessableEntity || !r.Has(t, "error-language") {
		t.Errorf("an unknown language: %d, error on its field %v", r.Status, r.Has(t, "error-language"))
	}
}

// TestAMemberChoosesTheirLanguage: a member of a German family reads it in German until they
// choose English on their profile, and in the family's again when they choose its default.
func TestAMemberChoosesTheirLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if _, err := srv.DB.NewUpdate().Model((*models.Family)(nil)).Set("language = 'de'").Where("id = ?", u.FamilyID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	r := c.Get("/settings/profile")
	if lang(t, r) != "de" || r.TestID(t, "page-title") != "Profil" {
		t.Fatalf("a German family's member reads %q, titled %q", lang(t, r), r.TestID(t, "page-title"))
	}
	if got := r.Doc(t).Find(`[data-testid="field-language"] option[selected]`).Text(); got != "Wie die Familie (Deutsch)" {
		t.Errorf("the language offered first: %q", got)
	}
	if r := c.Get("/no/such/page"); r.TestID(t, "error-title") != "Diese Seite gibt es nicht" || r.TestID(t, "error-message") != "Was du aufrufen wolltest, gibt es nicht." {
		t.Errorf("a missing page says %q: %q", r.TestID(t, "error-title"), r.TestID(t, "error-message"))
	}
	save := func(language string) *testkit.Response {
		return c.PostForm("/settings/profile", url.Values{"first_name": {"Anna"}, "email": {u.Email}, "language": {language}})
	}
	wantRedirect(t, save("en"), "/settings/profile")
	r = c.Get("/settings/profile")
	if lang(t, r) != "en" || r.TestID(t, "page-title") != "Profile" || r.TestID(t, "flash-success") != "Your profile is saved." {
		t.Errorf("after choosing English the profile is in %q, titled %q, saying %q", lang(t, r), r.TestID(t, "page-title"), r.TestID(t, "flash-success"))
	}
	wantRedirect(t, save(""), "/settings/profile")
	if r = c.Get("/"); lang(t, r) != "de" || r.TestID(t, "nav-dashboard") != "Übersicht" {
		t.Errorf("following the family again, the dashboard is in %q", lang(t, r))
	}
	if r := save("klingon"); r.Status != http.StatusUnprocessableEntity || !r.Has(t, "error-language") {
		t.Errorf("an unknown language: %d", r.Status)
	}
}

// TestSignedOutPagesFollowTheBrowser: the sign-in, password reset and error pages are in the
// language the browser asks for, English when Tally does not speak it.
func TestSignedOutPagesFollowTheBrowser(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	for _, tc := range []struct {
		path, accept, lang, testID, want string
	}{
		{"/sessions/new", "de-AT,de;q=0.9", "de", "page-title", "Anmelden"},
		{"/sessions/new", "ja-JP", "en", "page-title", "Sign in"},
		{"/password_reset/new", "de", "de", "page-title", "Passwort zurücksetzen"},
		// A form sent without its CSRF token is refused on an error page.
		{"POST /sessions", "de-DE", "de", "error-title", "Das darfst du nicht"},
		{"POST /sessions", "en", "en", "error-title", "You can't do that"},
	} {
		method, path, found := strings.Cut(tc.path, " ")
		if !found {
			method, path = http.MethodGet, tc.path
		}
		r := c.Do(method, path, nil, map[string]string{"Accept-Language": tc.accept})
		if got := r.TestID(t, tc.testID); lang(t, r) != tc.lang || got != tc.want {
			t.Errorf("%s for %q: in %q, %q, want %q in %q", tc.path, tc.accept, lang(t, r), got, tc.want, tc.lang)
		}
	}
}

// TestMailsAreInTheReadersLanguage: the password reset comes in the language its reader
// reads Tally in, and an invitation in the inviting family's, with the role named in it.
func TestMailsAreInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"SMTP_URL": "smtp://mail.invalid:25"}})
	if _, err := e.srv.DB.NewUpdate().Model((*models.Family)(nil)).Set("language = 'de'").Where("id = ?", e.admin.FamilyID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantPage(t, e.c.PostForm("/settings/family/invitations", url.Values{"email": {"jana@example.com"}, "role": {"member"}}), http.StatusCreated)
	m, ok := e.srv.Outbox.Last()
	if !ok || m.Subject != e.admin.DisplayName()+" lädt dich zu "+"Family of "+e.admin.Email+" bei Tally ein" ||
		!strings.Contains(m.Body, "mit der Rolle Mitglied") || !strings.Contains(m.Body, m.Link) {
		t.Errorf("the invitation of a German family: %+v", m)
	}

	// The reset of a member who chose English is English, in their German family.
	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.admin.FamilyID, Role: models.RoleMember})
	reset := func(u *models.User) (subject, body string) {
		c := apptest.NewClient(t, e.srv)
		c.Get("/password_reset/new")
		if r := c.PostForm("/password_reset", url.Values{"email": {u.Email}}); r.Status != http.StatusSeeOther {
			t.Fatalf("ask for a reset: %d", r.Status)
		}
		m, _ := e.srv.Outbox.Last()
		return m.Subject, m.Body
	}
	if subject, body := reset(e.admin); subject != "Setze dein Tally-Passwort zurück" || !strings.Contains(body, "öffne innerhalb von 15 Minuten diesen Link") {
		t.Errorf("a German reader's reset mail: %q\n%s", subject, body)
	}
	if _, err := e.srv.DB.NewUpdate().Model((*models.User)(nil)).Set("language = 'en'").Where("id = ?", member.ID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	if subject, body := reset(member); subject != "Reset your Tally password" || !strings.HasPrefix(body, "Someone asked to reset the password of your Tally account.\n\nTo choose") {
		t.Errorf("an English reader's reset mail: %q\n%s", subject, body)
	}
}

// TestAccountFlashesFollowTheLanguage: what the account pages say after a change is in the
// member's language, with the account's name and the count put where the sentence has them.
func TestAccountFlashesFollowTheLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if _, err := srv.DB.NewUpdate().Model((*models.Family)(nil)).Set("language = 'de'").Where("id = ?", u.FamilyID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	c.Get("/accounts/new")
	form := url.Values{"name": {"Girokonto"}, "accountable_type": {"Depository"}, "currency": {"EUR"}, "balance": {"10"}, "_submitted": {"1"}}
	r := c.PostForm("/accounts", form)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", r.Status, r.Body)
	}
	page := c.Get(r.Header.Get("Location"))
	if got := page.TestID(t, "flash-success"); got != "Konto „Girokonto“ angelegt." {
		t.Errorf("the flash after creating: %q", got)
	}
	id := strings.TrimPrefix(r.Header.Get("Location"), "/accounts/")
	c.Get("/accounts/" + id + "/edit")
	r = c.PostForm("/accounts/"+id+"/delete", url.Values{"confirm": {"Girokonto"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d\n%s", r.Status, r.Body)
	}
	if got := c.Get("/accounts").TestID(t, "flash-success"); got != "Konto „Girokonto“ gelöscht, mit seinen 0 Buchungen." {
		t.Errorf("the flash after deleting: %q", got)
	}
}
