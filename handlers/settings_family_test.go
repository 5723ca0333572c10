package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

func berlinForm(name string) url.Values {
	return url.Values{"name": {name}, "currency": {"eur"}, "locale": {"de-DE"}, "date_format": {"%d.%m.%Y"},
		"week_start": {"sunday"}, "timezone": {"Europe/Berlin"}}
}

// TestFamilySettingsPage is Settings › Family without a browser: family admins only, every
// bad field refused on the field with what was typed kept, and a save that the pages follow.
func TestFamilySettingsPage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})
	ctx := context.Background()

	mc := apptest.NewClient(t, srv)
	mc.SignIn(member.Email, testkit.Password)
	if r := mc.Get("/"); r.Status != http.StatusOK || r.Has(t, "nav-family") {
		t.Errorf("a member's dashboard (%d) links to the family settings", r.Status)
	}
	if r := mc.Get("/settings/family"); r.Status != http.StatusNotFound {
		t.Errorf("a member's GET: %d", r.Status)
	}
	if r := mc.PostForm("/settings/family", berlinForm("Taken over")); r.Status != http.StatusNotFound {
		t.Errorf("a member's POST: %d", r.Status)
	}

	c := apptest.NewClient(t, srv)
	c.SignIn(admin.Email, testkit.Password)
	if !c.Get("/").Has(t, "nav-family") {
		t.Fatal("an admin's sidebar does not link to the family settings")
	}
	page := c.Get("/settings/family")
	wantPage(t, page, http.StatusOK)
	doc := page.Doc(t)
	if v, _ := doc.Find(`#field-timezone`).Attr("value"); v != "UTC" {
		t.Errorf("time zone field %q", v)
	}
	if v, _ := doc.Find(`#field-currency`).Attr("value"); v != "USD" {
		t.Errorf("currency field %q", v)
	}
	if v, _ := doc.Find(`#field-locale option[selected]`).Attr("value"); v != "en-US" {
		t.Errorf("locale selected %q", v)
	}
	if v, _ := doc.Find(`#field-week_start option[selected]`).Attr("value"); v != "monday" {
		t.Errorf("week start selected %q", v)
	}
	if doc.Find(`datalist#time-zones option[value="Europe/Berlin"]`).Length() != 1 {
		t.Error("the time zone field suggests no Europe/Berlin")
	}

	bad := url.Values{"name": {" "}, "currency": {"EURO"}, "locale": {"xx-XX"}, "date_format": {"%d.%m.%Y"},
		"week_start": {"monday"}, "timezone": {"Europe/Atlantis"}}
	r := c.PostForm("/settings/family", bad)
	wantPage(t, r, http.StatusUnprocessableEntity)
	for _, field := range []string{"name", "currency", "locale", "timezone"} {
		if !r.Has(t, "error-"+field) {
			t.Errorf("no error on %s", field)
		}
	}
	if r.Has(t, "error-date_format") || r.Has(t, "error-week_start") {
		t.Error("a good field was refused")
	}
	if v, _ := r.Doc(t).Find(`#field-timezone`).Attr("value"); v != "Europe/Atlantis" {
		t.Errorf("the typed time zone was not kept: %q", v)
	}
	if got := testkitStrings(t, srv, "SELECT timezone || ' ' || currency FROM families WHERE id = ?", admin.FamilyID); got[0] != "UTC USD" {
		t.Fatalf("a refused form changed the family: %v", got)
	}

	wantRedirect(t, c.PostForm("/settings/family", berlinForm(" Die Müllers ")), "/settings/family")
	page = c.Get("/settings/family")
	if got := page.TestID(t, "flash-success"); got != "The family's settings are saved." {
		t.Errorf("flash %q", got)
	}
	if got := page.TestID(t, "family-name"); got != "Die Müllers" {
		t.Errorf("the sidebar names the family %q", got)
	}
	doc = page.Doc(t)
	if v, _ := doc.Find(`#field-timezone`).Attr("value"); v != "Europe/Berlin" {
		t.Errorf("time zone field after saving %q", v)
	}
	if v, _ := doc.Find(`#field-week_start option[selected]`).Attr("value"); v != "sunday" {
		t.Errorf("week start after saving %q", v)
	}
	f, err := models.FamilyByID(ctx, srv.DB, admin.FamilyID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "Die Müllers" || f.Currency != "EUR" || f.Locale != "de-DE" || f.DateFormat != "%d.%m.%Y" || f.WeekStart != "sunday" || f.Timezone != "Europe/Berlin" {
		t.Fatalf("saved %+v", f)
	}
}

// Money and dates follow the family's number style and date format for a member who chose
// none, and the member's own once they choose, until they choose "Family default" again.
func TestMoneyFollowsTheFamilyLocaleUnlessTheUserChose(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})
	acct := testkit.MustCreateAccount(t, srv.DB, admin.FamilyID, "Checking", "Depository", "1234.5")
	acctPage := "/accounts/" + acct.ID.String()

	c := apptest.NewClient(t, srv)
	c.SignIn(admin.Email, testkit.Password)
	c.Get("/settings/family")
	wantRedirect(t, c.PostForm("/settings/family", berlinForm("Die Müllers")), "/settings/family")

	mc := apptest.NewClient(t, srv)
	mc.SignIn(member.Email, testkit.Password)
	var opened time.Time
	if err := srv.DB.NewRaw("SELECT date FROM entries WHERE account_id = ?", acct.ID).Scan(context.Background(), &opened); err != nil {
		t.Fatal(err)
	}
	looks := func(wantBalance, dateLayout string) {
		t.Helper()
		r := mc.Get(acctPage)
		if got := r.TestID(t, "account-balance"); got != wantBalance {
			t.Errorf("balance %q, want %q", got, wantBalance)
		}
		if got, want := strings.TrimSpace(r.Doc(t).Find(`[data-testid="entry-row"] td`).First().Text()), opened.Format(dateLayout); got != want {
			t.Errorf("the opening balance is dated %q, want %q", got, want)
		}
	}
	looks("1.234,50\u00a0$", "02.01.2006")

	profile := mc.Get("/settings/profile")
	if got := profile.Doc(t).Find(`#field-locale option[selected]`); got.AttrOr("value", "?") != "" || !strings.Contains(got.Text(), "Family default (Deutsch") {
		t.Errorf("the profile's locale choice is %q %q, want the family default", got.AttrOr("value", "?"), got.Text())
	}
	own := url.Values{"email": {member.Email}, "locale": {"en-GB"}, "date_format": {"%d/%m/%Y"}}
	wantRedirect(t, mc.PostForm("/settings/profile", own), "/settings/profile")
	looks("$1,234.50", "02/01/2006")

	// The family changing its style does not move a member who chose their own.
	wantRedirect(t, c.PostForm("/settings/family", url.Values{"name": {"Die Müllers"}, "currency": {"EUR"}, "locale": {"fr-FR"},
		"date_format": {"%m/%d/%Y"}, "week_start": {"monday"}, "timezone": {"Europe/Paris"}}), "/settings/family")
	looks("$1,234.50", "02/01/2006")

	wantRedirect(t, mc.PostForm("/settings/profile", url.Values{"email": {member.Email}, "locale": {""}, "date_format": {""}}), "/settings/profile")
	if got := testkitStrings(t, srv, "SELECT '[' || locale || date_format || ']' FROM users WHERE id = ?", member.ID); got[0] != "[]" {
		t.Fatalf("the family default is stored as %v", got)
	}
	looks("1\u202f234,50\u00a0$", "01/02/2006")
}

// A bank connection's daily time is a time of day in the family's time zone, and the page
// says which.
func TestBankSyncTimeIsInTheFamilysTimeZone(t *testing.T) {
	t.Parallel()
	_, c, fake, _ := bankEnv(t)
	c.Get("/settings/bank_connections")
	if r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}}); r.Status != http.StatusSeeOther {
		t.Fatalf("connect: %d %s", r.Status, r.Body)
	}
	c.Get("/settings/family")
	wantRedirect(t, c.PostForm("/settings/family", berlinForm("Die Müllers")), "/settings/family")

	page := c.Get("/settings/bank_connections")
	if got := page.Doc(t).Find(`label[for="field-sync_time"]`).Text(); got != "Daily sync at (Europe/Berlin)" {
		t.Errorf("the time's label %q", got)
	}
	if v, _ := page.Doc(t).Find(`#field-sync_time`).Attr("value"); v != "06:00" {
		t.Errorf("the stored minutes moved: %q", v)
	}
	// Not synced yet: the next sync is today's or tomorrow's 06:00 in Berlin, written the
	// family's way.
	if got := page.TestID(t, "bank-next-sync"); !regexp.MustCompile(`^\d\d\.\d\d\.\d{4} 06:00 Europe/Berlin$`).MatchString(got) {
		t.Errorf("next sync %q, want 06:00 in Europe/Berlin", got)
	}
}

// TestFamilyLanguageIsChangedOnItsSettings is the family's language after onboarding: its
// admins change it on Settings › Family; the members who chose none on their profile (and the
// admin saving it) read the next page in it, a member who chose their own keeps theirs, and a
// language Tally does not speak is refused on the field with nothing stored.
func TestFamilyLanguageIsChangedOnItsSettings(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	follows := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})
	own := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})
	if _, err := srv.DB.NewRaw("UPDATE users SET language = 'en' WHERE id = ?", own.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	lang := func(c *testkit.Client) string {
		t.Helper()
		return c.Get("/").Doc(t).Find("html").AttrOr("lang", "?")
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(admin.Email, testkit.Password)
	mf, mo := apptest.NewClient(t, srv), apptest.NewClient(t, srv)
	mf.SignIn(follows.Email, testkit.Password)
	mo.SignIn(own.Email, testkit.Password)
	if v := c.Get("/settings/family").Doc(t).Find(`#field-language option[selected]`).AttrOr("value", "?"); v != "en" {
		t.Errorf("the language field shows %q, want the family's en", v)
	}

	bad := berlinForm("Die Müllers")
	bad.Set("language", "xx")
	r := c.PostForm("/settings/family", bad)
	wantPage(t, r, http.StatusUnprocessableEntity)
	if !r.Has(t, "error-language") {
		t.Error("no error on the language")
	}
	if got := testkitStrings(t, srv, "SELECT language FROM families WHERE id = ?", admin.FamilyID); got[0] != "en" {
		t.Fatalf("a refused language was stored: %v", got)
	}

	german := berlinForm("Die Müllers")
	german.Set("language", "de")
	wantRedirect(t, c.PostForm("/settings/family", german), "/settings/family")
	page := c.Get("/settings/family")
	if got := page.TestID(t, "flash-success"); got != "Die Einstellungen der Familie sind gespeichert." {
		t.Errorf("the admin, who follows the family, is told %q", got)
	}
	if got := page.Doc(t).Find("html").AttrOr("lang", "?"); got != "de" {
		t.Errorf("the admin's next page is in %q", got)
	}
	if got := lang(mf); got != "de" {
		t.Errorf("a member who chose no language reads %q, want the family's de", got)
	}
	if got := lang(mo); got != "en" {
		t.Errorf("a member who chose English reads %q", got)
	}

	// A form without the field (one sent before it existed) leaves the language as it is.
	wantRedirect(t, c.PostForm("/settings/family", berlinForm("Die Müllers")), "/settings/family")
	if got := testkitStrings(t, srv, "SELECT language FROM families WHERE id = ?", admin.FamilyID); got[0] != "de" {
		t.Fatalf("a form without a language changed it to %v", got)
	}
}
