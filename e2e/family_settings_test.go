package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestFamilySettings is a family admin making the family German in the browser: a time zone
// that does not exist is refused on its field, and once saved the dashboard shows money the
// German way to someone who chose no style of their own.
func TestFamilySettings(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if _, err := models.CreateAccount(context.Background(), srv.DB, u.FamilyID, models.AccountInput{
		Name: "Girokonto", AccountableType: "Depository", Currency: "EUR", Balance: testkit.Ptr(decimal.RequireFromString("1234.56")),
	}); err != nil {
		t.Fatal(err)
	}
	replace := func(t *testing.T, id, value string) {
		t.Helper()
		run(t, ctx, "clear "+id, chromedp.Clear(testID(id)))
		fill(t, ctx, id, value)
	}

	step(t, "the dashboard starts in the default style", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/")
		wantText(t, ctx, "net-worth", "€1,234.56")
	})

	step(t, "an unknown time zone is refused on its field", func(t *testing.T) {
		clickNav(t, ctx, "family")
		visible(t, ctx, "family-form")
		replace(t, "field-currency", "EUR")
		choose(t, ctx, "field-locale", "de-DE")
		choose(t, ctx, "field-date_format", "%d.%m.%Y")
		replace(t, "field-timezone", "Europe/Atlantis")
		click(t, ctx, "family-save")
		visible(t, ctx, "error-timezone")
		if got := inputValue(t, ctx, "field-locale"); got != "de-DE" {
			t.Errorf("the chosen locale was lost: %q", got)
		}
		shot(t, ctx, "family-settings-error")
	})

	step(t, "saved in Europe/Berlin with de-DE", func(t *testing.T) {
		replace(t, "field-timezone", "Europe/Berlin")
		click(t, ctx, "family-save")
		wantText(t, ctx, "flash-success", "The family's settings are saved.")
		if got := inputValue(t, ctx, "field-timezone"); got != "Europe/Berlin" {
			t.Errorf("time zone after saving %q", got)
		}
		shot(t, ctx, "family-settings")
	})

	step(t, "the dashboard shows the balance the German way", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/")
		wantText(t, ctx, "net-worth", "1.234,56\u00a0€")
	})
}

// TestFamilyLanguage is a family admin making the family's language German after onboarding:
// the next page, and the dashboard of the admin who chose no language of their own, speak it.
func TestFamilyLanguage(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	signInAs(t, ctx, srv, u.Email)
	clickNav(t, ctx, "family")
	visible(t, ctx, "family-form")
	choose(t, ctx, "field-language", "de")
	click(t, ctx, "family-save")
	wantText(t, ctx, "flash-success", "Die Einstellungen der Familie sind gespeichert.")
	if got := run(t, ctx, "read the page's language", chromedp.Evaluate[string](`document.documentElement.lang`)); got != "de" {
		t.Errorf("<html lang=%q> after saving German", got)
	}
	visit(t, ctx, srv.URL+"/")
	wantText(t, ctx, "page-title", "Übersicht")
}
