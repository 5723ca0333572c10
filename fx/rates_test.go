package fx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/models"
	"tally/testkit"
)

func TestSetRateNamesEveryBadField(t *testing.T) {
	d := testkit.MustOpenDB(t)
	fam := testkit.MustCreateUser(t, d, testkit.UserOpts{}).FamilyID
	inTwoDays := time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly)
	for _, tc := range []struct {
		name string
		in   RateInput
		want map[string]string // field → words of its message
	}{
		{"nothing given", RateInput{}, map[string]string{"date": "Enter the date", "base": "three-letter ISO", "quote": "three-letter ISO",
			"rate": "Enter how much"}},
		{"a date that is not one", RateInput{Date: "02/03/2026", Base: "EUR", Quote: "USD", Rate: "1.08"}, map[string]string{"date": "is not a date (YYYY-MM-DD)"}},
		{"a date in year 0", RateInput{Date: "0000-01-01", Base: "EUR", Quote: "USD", Rate: "1.08"}, map[string]string{"date": "out of range"}},
		{"a date two days ahead", RateInput{Date: inTwoDays, Base: "EUR", Quote: "USD", Rate: "1.08"}, map[string]string{"date": "in the future"}},
		{"codes that are not ISO codes", RateInput{Date: "2026-03-02", Base: "EURO", Quote: "U$D", Rate: "1.08"},
			map[string]string{"base": "Base must be", "quote": "Quote must be"}},
		{"a currency into itself", RateInput{Date: "2026-03-02", Base: "USD", Quote: "usd", Rate: "1"}, map[string]string{"quote": "must differ"}},
		{"a rate that is not a number", RateInput{Date: "2026-03-02", Base: "EUR", Quote: "USD", Rate: "1,08"}, map[string]string{"rate": "such as 1.0823"}},
		{"a rate of zero", RateInput{Date: "2026-03-02", Base: "EUR", Quote: "USD", Rate: "0"}, map[string]string{"rate": "greater than zero"}},
		{"a negative rate", RateInput{Date: "2026-03-02", Base: "EUR", Quote: "USD", Rate: "-1.08"}, map[string]string{"rate": "such as 1.0823"}},
		{"a rate of 13 decimals", RateInput{Date: "2026-03-02", Base: "EUR", Quote: "USD", Rate: "1.0000000000001"}, map[string]string{"rate": "12 decimals"}},
		{"a rate too large", RateInput{Date: "2026-03-02", Base: "EUR", Quote: "USD", Rate: "12345678901234567"}, map[string]string{"rate": "too large"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SetRate(context.Background(), d, adminOf(fam), tc.in)
			e := apperr.As(err)
			if e == nil || e.Code != apperr.Invalid || len(e.Fields) != len(tc.want) {
				t.Fatalf("error %v, want problems on %v", err, tc.want)
			}
			for field, words := range tc.want {
				if len(e.Fields[field]) == 0 || !strings.Contains(e.Fields[field][0], words) {
					t.Errorf("%s: %v, want %q", field, e.Fields[field], words)
				}
			}
		})
	}
}

// TestFamilyRates sets, replaces, lists and deletes a family's own rates; every query is the
// family's only.
func TestFamilyRates(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	fam := testkit.MustCreateUser(t, d, testkit.UserOpts{}).FamilyID
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{}).FamilyID

	first := mustSetRate(t, d, fam, " 2026-03-02 ", " eur", "usd ", "1.0800")
	if first.Base != "EUR" || first.Quote != "USD" || first.Rate.String() != "1.08" || first.Source != SourceFamily ||
		first.Date.Format(time.DateOnly) != "2026-03-02" || first.FamilyID == nil || *first.FamilyID != fam {
		t.Fatalf("set %+v", first)
	}
	// Again for the pair and date: replaced, not added.
	again := mustSetRate(t, d, fam, "2026-03-02", "EUR", "USD", "1.09")
	// The other way round on the same date replaces it too.
	inverse := mustSetRate(t, d, fam, "2026-03-02", "USD", "EUR", "0.92")
	mustSetRate(t, d, fam, "2026-02-27", "GBP", "USD", "1.27")
	mustSetRate(t, d, fam, "2026-03-01", "CHF", "EUR", "1.06")
	mustSetRate(t, d, other, "2026-03-02", "EUR", "USD", "1.5")
	mustFetched(t, d, "2026-03-02", map[string]string{"USD": "1.0823"})
	if again.ID != first.ID || again.Rate.String() != "1.09" || again.UpdatedAt.Before(first.UpdatedAt) {
		t.Errorf("replaced %+v", again)
	}

	list, total, err := Rates(ctx, d, fam, Filter{}, models.Page{Number: 1, Size: 10})
	var got []string
	for _, r := range list {
		got = append(got, r.Date.Format(time.DateOnly)+" "+r.Base+"→"+r.Quote+" "+r.Rate.String())
	}
	if err != nil || total != 3 || strings.Join(got, ", ") != "2026-03-02 USD→EUR 0.92, 2026-03-01 CHF→EUR 1.06, 2026-02-27 GBP→USD 1.27" {
		t.Fatalf("list %q (%d), %v", got, total, err)
	}
	if list, total, _ := Rates(ctx, d, fam, Filter{}, models.Page{Number: 2, Size: 2}); total != 3 || len(list) != 1 || list[0].Base != "GBP" {
		t.Errorf("the second page of two: %d of %d", len(list), total)
	}
	mar1 := on("2026-03-01")
	for _, tc := range []struct {
		f    Filter
		want int
	}{{Filter{Quote: "EUR"}, 2}, {Filter{Base: "CHF", Quote: "EUR"}, 1}, {Filter{Date: &mar1}, 1}, {Filter{Base: "JPY"}, 0}} {
		if _, n, err := Rates(ctx, d, fam, tc.f, models.Page{Number: 1, Size: 10}); err != nil || n != tc.want {
			t.Errorf("filter %+v: %d, %v; want %d", tc.f, n, err, tc.want)
		}
	}

	// Another family's rate, a fetched one, or one that does not exist, cannot be deleted.
	var fetchedID, othersID uuid.UUID
	if err := d.NewRaw("SELECT id FROM exchange_rates WHERE family_id IS NULL").Scan(ctx, &fetchedID); err != nil {
		t.Fatal(err)
	}
	if err := d.NewRaw("SELECT id FROM exchange_rates WHERE family_id = ?", other).Scan(ctx, &othersID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uuid.UUID{fetchedID, othersID, uuid.New(), first.ID} {
		if err := DeleteRate(ctx, d, adminOf(fam), id); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("delete %s: %v, want NotFound", id, err)
		}
	}
	member := &models.User{FamilyID: fam, Role: models.RoleMember}
	if _, err := SetRate(ctx, d, member, RateInput{Date: "2026-03-02", Base: "EUR", Quote: "USD", Rate: "2"}); !apperr.Is(err, apperr.Forbidden) {
		t.Errorf("a member's rate: %v, want Forbidden", err)
	}
	if err := DeleteRate(ctx, d, member, inverse.ID); !apperr.Is(err, apperr.Forbidden) {
		t.Errorf("a member's delete: %v, want Forbidden", err)
	}
	if err := DeleteRate(ctx, d, adminOf(fam), inverse.ID); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := Rates(ctx, d, fam, Filter{}, models.Page{Number: 1, Size: 10}); total != 2 {
		t.Errorf("%d left after a delete", total)
	}
	if n := countRates(t, d); n != 4 {
		t.Errorf("%d rates in all, want the family's 2, the other's and the fetched one", n)
	}
}
