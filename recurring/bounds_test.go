package recurring_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/models"
	"tally/recurring"
	"tally/testkit"
)

// TestDetectionAddsNoSeriesPastTheBound has a family a few series short of
// models.MaxRecurringSeries detect a household's history that holds more: detection adds as
// many as there is room for, says how many it dropped, and a second detection adds none.
func TestDetectionAddsNoSeriesPastTheBound(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	today := day("2026-11-20")
	f, _, truths := mustHousehold(t, d, 1, today)
	const room = 3
	testkit.MustCreateSeries(t, d, f.user.FamilyID, nil, models.MaxRecurringSeries-room, models.RecurringIgnored)

	var svc recurring.Service
	res, err := svc.Detect(ctx, d, f.user.FamilyID, today)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found != len(truths) || res.Created != room || res.Dropped != len(truths)-room {
		t.Fatalf("detection %+v, want %d found, %d created and the rest dropped", res, len(truths), room)
	}
	count := func() int {
		var n int
		if err := d.NewRaw("SELECT count(*) FROM recurring_transactions WHERE family_id = ?", f.user.FamilyID).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != models.MaxRecurringSeries {
		t.Fatalf("%d series, want the bound %d", n, models.MaxRecurringSeries)
	}
	if res, err = svc.Detect(ctx, d, f.user.FamilyID, today); err != nil || res.Created != 0 || res.Updated != room {
		t.Fatalf("the second detection %+v (%v), want the %d series moved on and none added", res, err, room)
	}
	if n := count(); n != models.MaxRecurringSeries {
		t.Fatalf("%d series after the second detection", n)
	}
}

// TestForecastReadsNoMoreThanTheBound gives an account more confirmed weekly series than a
// family may now have (as an import made them before the bound): its forecast of a year, the
// bills to come and a month's expectations read MaxRecurringSeries of them, those due first.
func TestForecastReadsNoMoreThanTheBound(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	f := mustFamily(t, d)
	acct := f.accounts[0].ID
	testkit.MustCreateSeries(t, d, f.user.FamilyID, &acct, models.MaxRecurringSeries+100, models.RecurringConfirmed)
	today := time.Now().UTC().Truncate(24 * time.Hour)

	var svc recurring.Service
	fc, err := svc.Forecast(ctx, d, models.FamilyViewer(f.user.FamilyID), acct, today, recurring.MaxForecastDays)
	if err != nil {
		t.Fatal(err)
	}
	series, bills := map[uuid.UUID]bool{}, 0
	for _, day := range fc.Days {
		for _, b := range day.Bills {
			series[b.SeriesID] = true
			bills++
		}
	}
	if len(fc.Days) != recurring.MaxForecastDays || len(series) != models.MaxRecurringSeries || bills > models.MaxRecurringSeries*53 {
		t.Fatalf("a forecast of %d days with %d bills of %d series, want %d days of at most %d series paid weekly",
			len(fc.Days), bills, len(series), recurring.MaxForecastDays, models.MaxRecurringSeries)
	}
	upcoming, err := svc.Upcoming(ctx, d, models.FamilyViewer(f.user.FamilyID), today, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(upcoming) != models.MaxRecurringSeries {
		t.Fatalf("%d bills today, want one of each of %d series", len(upcoming), models.MaxRecurringSeries)
	}
}
