package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestOneNetWorthAcrossCurrencies is the family with a EUR current account and a USD
// card: the dashboard shows one net worth in euros with the dollar part, its rate and the
// rate's date; the chart has one series in euros; the account groups are in euros too; and
// GET /api/v1/net_worth says the same in any currency, with a currency no rate converts apart.
func TestOneNetWorthAcrossCurrencies(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	ctx := context.Background()
	if _, err := srv.DB.NewRaw("UPDATE families SET currency = 'EUR' WHERE id = ?", u.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	today := (&models.Family{Timezone: "UTC"}).Today()
	for _, a := range []struct{ name, typ, currency, balance string }{
		{"Girokonto", "Depository", "EUR", "2345.67"}, {"Visa", "CreditCard", "USD", "1234.56"},
	} {
		if _, err := models.CreateAccount(ctx, srv.DB, u.FamilyID, models.AccountInput{Name: a.name, AccountableType: a.typ,
			Currency: a.currency, Balance: testkit.Ptr(decimal.RequireFromString(a.balance)), BalanceDate: today}); err != nil {
			t.Fatal(err)
		}
	}
	rateDay := today.AddDate(0, 0, -3).Format("2006-01-02")
	if _, err := srv.DB.NewRaw(`INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source)
		VALUES (?, NULL, ?::date - 400, 'EUR', 'USD', 1.2, 'ecb'), (?, NULL, ?, 'EUR', 'USD', 1.08, 'ecb')`,
		uuid.Must(uuid.NewV7()), rateDay, uuid.Must(uuid.NewV7()), rateDay).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	doc := c.Get("/").Doc(t)
	// 2345.67 less 1234.56 dollars at 1/1.08: 1143.11.
	if got := strings.TrimSpace(doc.Find(`[data-testid="net-worth"]`).Text()); got != "€1,202.56" {
		t.Errorf("net worth %q, want €1,202.56", got)
	}
	part := strings.Join(strings.Fields(doc.Find(`[data-testid="net-worth-parts"] [data-currency="USD"]`).Text()), " ")
	if !strings.Contains(part, "-$1,234.56 at 0.925926 (ECB, "+rateDay+", 3 days old)") {
		t.Errorf("the dollar part says %q", part)
	}
	charts := doc.Find(`[data-testid="net-worth-history"] [data-testid="balance-chart"]`)
	if cur, _ := charts.Attr("data-currency"); charts.Length() != 1 || cur != "EUR" {
		t.Errorf("%d net worth charts, the first in %q: want one in EUR", charts.Length(), cur)
	}
	if rows := chartRows(doc.Find(`[data-testid="net-worth-history"]`)); len(rows) != 30 || rows[29] != today.Format("2006-01-02")+" €1,202.56" ||
		rows[0] != today.AddDate(0, 0, -29).Format("2006-01-02")+" €1,316.87" {
		t.Errorf("the chart's rows %q … %q: before the latest rate, the one before it (1.2)", rows[:1], rows[len(rows)-1:])
	}
	groups := doc.Find(`[data-testid="group-total"]`)
	if got := strings.Join(strings.Fields(groups.Eq(1).Text()), " "); !strings.HasPrefix(got, "€1,143.11") {
		t.Errorf("the credit cards' group total %q, want it in euros", got)
	}

	api := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	var b struct {
		Data struct {
			Currency, Date string
			NetWorth       string `json:"net_worth"`
			Parts          []struct {
				Currency, Balance, Converted, Rate string
				RateDate                           string `json:"rate_date"`
				RateAge                            int    `json:"rate_age_days"`
				RateSource                         string `json:"rate_source"`
			}
			Unconverted []struct{ Currency, Balance string }
		}
	}
	c.API(http.MethodGet, "/api/v1/net_worth", api, nil).JSON(t, &b)
	if b.Data.Currency != "EUR" || b.Data.NetWorth != "1202.56" || len(b.Data.Parts) != 2 || b.Data.Parts[1].Converted != "-1143.11" ||
		b.Data.Parts[1].RateAge != 3 || b.Data.Parts[1].RateSource != "ecb" || b.Data.Parts[1].RateDate != rateDay {
		t.Errorf("net worth in EUR: %+v", b.Data)
	}
	if _, err := models.CreateAccount(ctx, srv.DB, u.FamilyID, models.AccountInput{Name: "Yen", AccountableType: "Depository",
		Currency: "JPY", Balance: testkit.Ptr(decimal.NewFromInt(50000)), BalanceDate: today}); err != nil {
		t.Fatal(err)
	}
	c.API(http.MethodGet, "/api/v1/net_worth?currency=USD", api, nil).JSON(t, &b)
	// In dollars: 2345.67 euros at 1.08, less the card's 1234.56; the yen apart.
	if b.Data.Currency != "USD" || b.Data.NetWorth != "1298.76" || len(b.Data.Unconverted) != 1 || b.Data.Unconverted[0].Balance != "50000" {
		t.Errorf("net worth in USD: %+v", b.Data)
	}
	if r := c.API(http.MethodGet, "/api/v1/net_worth?currency=euro&date=soon", api, nil); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `"currency"`) || !strings.Contains(r.Body, `"date"`) {
		t.Errorf("bad currency and date: %d %s", r.Status, r.Body)
	}
}
