package fx

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

// mustFetched stores fetched rates of EUR on date, currency to rate.
func mustFetched(t *testing.T, d *db.DB, date string, rates map[string]string) {
	t.Helper()
	for code, rate := range rates {
		if _, err := d.NewRaw(`INSERT INTO exchange_rates (id, date, base, quote, rate, source)
			VALUES (gen_random_uuid(), ?::date, 'EUR', ?, ?::numeric, 'ecb')`, date, code, rate).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// adminOf is an admin of the family, as SetRate and DeleteRate are given the user who asks.
func adminOf(familyID uuid.UUID) *models.User {
	return &models.User{FamilyID: familyID, Role: models.RoleAdmin}
}

// mustSetRate sets a family's own rate of base into quote on date.
func mustSetRate(t *testing.T, d *db.DB, familyID uuid.UUID, date, base, quote, rate string) *Rate {
	t.Helper()
	r, err := SetRate(context.Background(), d, adminOf(familyID), RateInput{Date: date, Base: base, Quote: quote, Rate: rate})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustAccount adds an account in currency to the family.
func mustAccount(t *testing.T, d *db.DB, familyID uuid.UUID, currency string) {
	t.Helper()
	if _, err := d.NewRaw(`INSERT INTO accounts (id, family_id, name, accountable_type, currency)
		VALUES (gen_random_uuid(), ?, ?, 'Depository', ?)`, familyID, "In "+currency, currency).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestQuoteRules states Quote's rules case by case: the same currency, the family's own rates
// (direct, inverted, the direct one on a tie, older than the fetched ones and still winning),
// the fetched ones crossed through EUR (the latest earlier day of each leg, the older leg's
// date), and no rate.
func TestQuoteRules(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	mustFetched(t, d, "2026-02-26", map[string]string{"USD": "1.0805", "GBP": "0.8405", "JPY": "162.07"})
	mustFetched(t, d, "2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398"})
	mustFetched(t, d, "2026-03-02", map[string]string{"USD": "1.0823"})
	own := testkit.MustCreateUser(t, d, testkit.UserOpts{}).FamilyID
	plain := testkit.MustCreateUser(t, d, testkit.UserOpts{}).FamilyID
	mustSetRate(t, d, own, "2026-02-20", "USD", "GBP", "0.8")
	mustSetRate(t, d, own, "2026-02-27", "JPY", "USD", "0.0067")
	// Both directions on one day cannot be set (SetRate replaces the inverse), but may be
	// written by hand.
	if _, err := d.NewRaw(`INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source) VALUES
		(gen_random_uuid(), ?, '2026-02-27', 'USD', 'CHF', 0.9, 'family'),
		(gen_random_uuid(), ?, '2026-02-27', 'CHF', 'USD', 1.2, 'family')`, own, own).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	newYork, _ := time.LoadLocation("America/New_York")

	for _, tc := range []struct {
		name     string
		family   uuid.UUID
		from, to string
		on       time.Time
		rate     string // "" when none is found
		date     string
		source   string
	}{
		{"the same currency converts at 1", plain, "USD", "USD", on("2026-03-02"), "1", "2026-03-02", ""},
		{"the euro into itself too, with no rate stored", plain, "EUR", "EUR", on("2020-01-01"), "1", "2020-01-01", ""},
		{"the family's own rate", own, "USD", "GBP", on("2026-03-02"), "0.8", "2026-02-20", SourceFamily},
		{"the family's own rate inverted", own, "GBP", "USD", on("2026-03-02"), "1.25", "2026-02-20", SourceFamily},
		{"the family's rate wins from its date on", own, "JPY", "USD", on("2026-02-27"), "0.0067", "2026-02-27", SourceFamily},
		{"before it the fetched rates apply", own, "JPY", "USD", on("2026-02-26"), "0.006666872339", "2026-02-26", SourceECB},
		{"on a tie the direct rate wins", own, "USD", "CHF", on("2026-02-28"), "0.9", "2026-02-27", SourceFamily},
		{"on a tie the direct rate wins, the other way", own, "CHF", "USD", on("2026-02-28"), "1.2", "2026-02-27", SourceFamily},
		{"fetched rates cross through EUR", plain, "GBP", "USD", on("2026-02-27"), "1.284829721362", "2026-02-27", SourceECB},
		{"from EUR is the fetched rate", plain, "EUR", "USD", on("2026-03-05"), "1.0823", "2026-03-02", SourceECB},
		{"into EUR is its inverse", plain, "USD", "EUR", on("2026-02-27"), "0.926784059314", "2026-02-27", SourceECB},
		{"each leg is the latest on or before the day, dated by the older", plain, "JPY", "USD", on("2026-03-02"), "0.006677978651", "2026-02-26", SourceECB},
		{"another family's rates are not this one's", plain, "USD", "GBP", on("2026-03-02"), "0.775940127506", "2026-02-27", SourceECB},
		{"the day is the calendar date where on is", plain, "USD", "EUR", time.Date(2026, 2, 27, 23, 30, 0, 0, newYork), "0.926784059314", "2026-02-27", SourceECB},
		{"none before the first fetched day", plain, "USD", "EUR", on("2026-02-25"), "", "", ""},
		{"none for a currency nobody rates", plain, "XAU", "USD", on("2026-03-02"), "", "", ""},
		{"nor before the family's rate when nothing was fetched", own, "GBP", "USD", on("2026-02-19"), "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Quote(ctx, d, tc.family, tc.from, tc.to, tc.on)
			if tc.rate == "" {
				if !errors.Is(err, ErrNoRate) || !apperr.Is(err, apperr.NotFound) {
					t.Fatalf("Quote = %+v, %v; want NotFound, ErrNoRate", c, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Rate.String() != tc.rate || c.Date.Format(time.DateOnly) != tc.date || c.Source != tc.source || c.From != tc.from || c.To != tc.to {
				t.Errorf("Quote = %s on %s from %q; want %s on %s from %q", c.Rate, c.Date.Format(time.DateOnly), c.Source, tc.rate, tc.date, tc.source)
			}
		})
	}
}

// TestAccountRates lists what the ECB says of each currency of the family's accounts against
// the family's currency, and which currencies it has no rate for.
func TestAccountRates(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	mustFetched(t, d, "2026-02-26", map[string]string{"USD": "1.0805", "GBP": "0.8405", "JPY": "162.07"})
	mustFetched(t, d, "2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398"})
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	if rates, missing, err := AccountRates(ctx, d, u.FamilyID, on("2026-03-02")); err != nil || len(rates)+len(missing) != 0 {
		t.Fatalf("a family without accounts: %v %v %v", rates, missing, err)
	}
	for _, cur := range []string{"USD", "GBP", "EUR", "GBP", "ARS"} {
		mustAccount(t, d, u.FamilyID, cur)
	}
	// The family's own rates do not count here.
	mustSetRate(t, d, u.FamilyID, "2026-02-27", "GBP", "USD", "2")
	rates, missing, err := AccountRates(ctx, d, u.FamilyID, on("2026-03-02"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rates {
		got = append(got, c.From+"→"+c.To+" "+c.Rate.String()+" "+c.Date.Format(time.DateOnly)+" "+c.Source)
	}
	want := []string{"EUR→USD 1.079 2026-02-27 ecb", "GBP→USD 1.284829721362 2026-02-27 ecb"}
	if !slices.Equal(got, want) || !slices.Equal(missing, []string{"ARS"}) {
		t.Fatalf("rates %q, missing %v; want %q and [ARS]", got, missing, want)
	}
}
