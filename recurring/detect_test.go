package recurring_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/models"
	"tally/recurring"
	"tally/testkit"
)

// TestDetectFindsTheHouseholdsSeries detects the series of two generated years of a
// household: every series it holds is found with its interval (recall 1), and nothing else
// (precision 1): not the groceries and coffee of every day, the phone bill that swings by a
// third, the donation of one amount at no interval, the concert paid twice, the gift card at
// Netflix's merchant, nor the magazine cancelled half a year ago. A second detection changes
// nothing, and an ignored series is never proposed again.
func TestDetectFindsTheHouseholdsSeries(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	today := day("2026-11-20")
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			f, txns, truths := mustHousehold(t, d, seed, today)
			var svc recurring.Service
			res, err := svc.Detect(ctx, d, f.user.FamilyID, today)
			if err != nil {
				t.Fatal(err)
			}
			if res.Read != len(txns) {
				t.Errorf("read %d transactions, want %d", res.Read, len(txns))
			}
			series, err := models.RecurringByStatus(ctx, d, models.FamilyViewer(f.user.FamilyID), models.RecurringStatuses...)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, tr := range truths {
				want[fmt.Sprintf("%s|%s|%s", f.accounts[tr.account].ID, f.key(tr), tr.interval)] = true
			}
			got := map[string]bool{}
			var wrong []string
			for _, r := range series {
				k := fmt.Sprintf("%s|%s|%s", *r.AccountID, *r.MatchKey, r.Interval)
				got[k] = true
				if !want[k] {
					wrong = append(wrong, fmt.Sprintf("%s %s %s (%d payments)", r.Name, r.Interval, r.Amount, r.OccurrenceCount))
				}
				if r.Status != models.RecurringProposed {
					t.Errorf("%s is %s, want proposed", r.Name, r.Status)
				}
			}
			var missed []string
			for k := range want {
				if !got[k] {
					missed = append(missed, k)
				}
			}
			hits := len(series) - len(wrong)
			if precision, recall := float64(hits)/float64(len(series)), float64(hits)/float64(len(want)); precision != 1 || recall != 1 {
				t.Errorf("precision %.2f, recall %.2f; not series: %s; missed: %s", precision, recall, strings.Join(wrong, "; "), strings.Join(missed, "; "))
			}

			again, err := svc.Detect(ctx, d, f.user.FamilyID, today)
			if err != nil {
				t.Fatal(err)
			}
			if again.Created != 0 || again.Removed != 0 || again.Updated != len(series) {
				t.Errorf("a second detection did %+v, want every series updated and none added or removed", again)
			}
			gym := seriesNamed(t, series, "Fit Gym")
			if _, err := models.UpdateRecurring(ctx, d, models.FamilyViewer(f.user.FamilyID), gym.ID, models.RecurringInput{Status: testkit.Ptr(models.RecurringIgnored)}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Detect(ctx, d, f.user.FamilyID, today.AddDate(0, 0, 7)); err != nil {
				t.Fatal(err)
			}
			after, err := models.RecurringByStatus(ctx, d, models.FamilyViewer(f.user.FamilyID), models.RecurringStatuses...)
			if err != nil {
				t.Fatal(err)
			}
			var gyms []string
			for _, r := range after {
				if r.Name == "Fit Gym" {
					gyms = append(gyms, r.Status)
				}
			}
			if !slices.Equal(gyms, []string{models.RecurringIgnored}) {
				t.Errorf("the ignored gym came back: %v", gyms)
			}
		})
	}
}

func seriesNamed(t *testing.T, list []models.Recurring, name string) models.Recurring {
	t.Helper()
	for _, r := range list {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no series %q", name)
	return models.Recurring{}
}

// TestDetectNewReadsOnlyTheNewRowsGroups detects after an import: the series of the groups the
// import's transactions belong to are found over their whole window, and only the rows of
// those groups whose amount is near a new one's are read.
func TestDetectNewReadsOnlyTheNewRowsGroups(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	today := day("2026-11-20")
	f := mustFamily(t, d)
	txns, _ := household(4, today)
	var old, fresh []txn
	for _, x := range txns {
		if x.date.After(today.AddDate(0, -1, 0)) && (x.merchant == "Netflix" || strings.HasPrefix(x.name, "ACME")) {
			fresh = append(fresh, x)
		} else {
			old = append(old, x)
		}
	}
	f.mustInsert(t, d, old, nil)
	importID := uuid.Must(uuid.NewV7())
	f.mustInsert(t, d, fresh, &importID)
	var svc recurring.Service
	res, err := svc.DetectNew(ctx, d, f.user.FamilyID, recurring.Scope{ImportID: &importID}, today)
	if err != nil {
		t.Fatal(err)
	}
	series, err := models.RecurringByStatus(ctx, d, models.FamilyViewer(f.user.FamilyID), models.RecurringProposed)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range series {
		names = append(names, r.Name+" "+r.Interval)
	}
	slices.Sort(names)
	if want := []string{"ACME Corp salary 10/2026 monthly_last_working_day", "Netflix monthly"}; !slices.Equal(names, want) {
		t.Errorf("found %v, want %v", names, want)
	}
	var lookAlikes int
	for _, x := range txns {
		if x.merchant == "Netflix" && x.amount.String() == "15.49" || strings.HasPrefix(x.name, "ACME") {
			lookAlikes++
		}
	}
	if res.Read != lookAlikes {
		t.Errorf("read %d rows, want the %d of the two groups near the new ones' amounts (not the gift card)", res.Read, lookAlikes)
	}
}

// TestNextDate is when each interval's next payment falls.
func TestNextDate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, interval string
		day            int
		last, want     string
	}{
		{"weekly", models.IntervalWeekly, 0, "2026-11-02", "2026-11-09"},
		{"every two weeks", models.IntervalBiweekly, 0, "2026-11-06", "2026-11-20"},
		{"monthly on the 1st, paid late on a Monday", models.IntervalMonthly, 1, "2026-11-02", "2026-12-01"},
		{"monthly on the 31st into February", models.IntervalMonthly, 31, "2027-01-31", "2027-02-28"},
		{"monthly on the 31st, paid on the 2nd of the month after", models.IntervalMonthly, 31, "2026-06-02", "2026-06-30"},
		{"last working day skips a weekend", models.IntervalMonthlyLastWorkingDay, 0, "2026-09-30", "2026-10-30"},
		{"last working day paid early next month", models.IntervalMonthlyLastWorkingDay, 0, "2026-11-02", "2026-11-30"},
		{"quarterly", models.IntervalQuarterly, 10, "2026-10-12", "2027-01-10"},
		{"yearly", models.IntervalYearly, 3, "2026-03-03", "2027-03-03"},
	} {
		if got := recurring.NextDate(c.interval, c.day, day(c.last)).Format(time.DateOnly); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
