package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// germanFamily is a signed-in admin of a family that writes numbers and dates the German way
// (1.234,56 € and 04.12.2026), with a client and an account.
func germanFamily(t *testing.T) (*apptest.Server, *testkit.Client, *models.User, *models.Account) {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	if _, err := srv.DB.NewRaw("UPDATE families SET locale = 'de-DE', date_format = '%d.%m.%Y', currency = 'EUR' WHERE id = ?", u.FamilyID).
		Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Girokonto", "Depository", "5961.18")
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	return srv, c, u, acct
}

// TestInputsSpeakTheFamilysNumbers is the German household at its fields: each amount
// and rate shows in their style and is taken in it, as well as in the plain dot form.
func TestInputsSpeakTheFamilysNumbers(t *testing.T) {
	t.Parallel()
	srv, c, u, acct := germanFamily(t)
	bg := context.Background()
	value := func(path, testid string) string {
		t.Helper()
		return c.Get(path).Doc(t).Find(`[data-testid="`+testid+`"]`).AttrOr("value", "")
	}
	if got := value("/accounts/"+acct.ID.String()+"/edit", "field-balance"); got != "5961,18" {
		t.Errorf("the account's balance is edited as %q, want 5961,18", got)
	}
	if help := c.Get("/accounts/" + acct.ID.String() + "/transactions/new").Doc(t).Find(`[data-testid="transaction-form"]`).Text(); strings.Contains(help, "use a dot") || !strings.Contains(help, "12,50") {
		t.Errorf("the add-transaction form says %q", strings.Join(strings.Fields(help), " "))
	}

	series := uuid.Must(uuid.NewV7())
	if _, err := srv.DB.NewRaw(`INSERT INTO recurring_transactions (id, family_id, account_id, name, amount, currency,
			expected_day_of_month, last_occurrence_date, next_expected_date, status, interval, confidence, last_amount)
		VALUES (?, ?, ?, 'Miete', -3498.10, 'USD', 1, current_date - 27, current_date + 3, 'confirmed', 'monthly', 1, -3498.10)`,
		series, u.FamilyID, acct.ID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	if got := value("/recurring/"+series.String()+"/edit", "field-amount"); got != "-3498,10" {
		t.Errorf("the series' amount is edited as %q, want -3498,10", got)
	}

	month := reports.MonthOf(u.Family.Today()).String()
	food, err := models.CreateCategory(bg, srv.DB, u.FamilyID, models.CategoryInput{Name: testkit.Ptr("Lebensmittel")})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.PostForm("/budgets/"+month+"/categories/"+food.ID.String(), url.Values{"budgeted": {"700,00"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("budget 700,00: %d", r.Status)
	}
	if got := value("/budgets/"+month, "budgeted-"+food.ID.String()); got != "700,00" {
		t.Errorf("the budgeted amount shows %q, want 700,00", got)
	}

	// The list's filters take an amount in their style too.
	if r := c.Get("/transactions?min_amount=10,50"); r.Status != http.StatusOK || r.Doc(t).Find(`[data-testid="error-min_amount"]`).Length() != 0 {
		t.Errorf("the filter 10,50: %d, %q", r.Status, r.Doc(t).Find(`[data-testid="error-min_amount"]`).Text())
	}

	for _, rate := range []string{"0,8584", "0.8585"} {
		r := c.PostForm("/settings/exchange_rates", url.Values{"date": {time.Now().UTC().Format(time.DateOnly)}, "base": {"EUR"}, "quote": {"GBP"}, "rate": {rate}})
		var stored string
		if err := srv.DB.NewRaw("SELECT rate::text FROM exchange_rates WHERE family_id = ? AND quote = 'GBP'", u.FamilyID).Scan(bg, &stored); r.Status != http.StatusSeeOther || err != nil ||
			!strings.HasPrefix(stored, strings.Replace(rate, ",", ".", 1)) {
			t.Errorf("the rate %s: %d, stored %q (%v)", rate, r.Status, stored, err)
		}
	}
}
