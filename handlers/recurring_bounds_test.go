package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// nativeSeries is a NativeImport of an account and n monthly recurring series on it.
func nativeSeries(n int) string {
	lines := []string{nAccount}
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf(`{"type":"RecurringTransaction","data":{"id":"rt-%d","account_id":"a1","name":"Bill %d","amount":"12.00",`+
			`"currency":"USD","expected_day_of_month":5,"last_occurrence_date":"2024-01-05","next_expected_date":"2024-02-05"}}`, i, i))
	}
	return ndjson(lines...)
}

// TestNativeImportKeepsTheFamilyWithinTheSeriesBound has a family two series short of
// models.MaxRecurringSeries: a file of three series is refused at the publish with a 422 that
// names recurring_transactions, and the upload stays pending with nothing written; a file of
// two is queued, but when the family gains a series before the job writes them, the publish
// fails saying why, and writes nothing either.
func TestNativeImportKeepsTheFamilyWithinTheSeriesBound(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	testkit.MustCreateSeries(t, e.srv.DB, e.user.FamilyID, nil, models.MaxRecurringSeries-2, models.RecurringIgnored)
	series := func() int {
		return e.count(t, "SELECT count(*) FROM recurring_transactions WHERE family_id = ?", e.user.FamilyID)
	}

	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "NativeImport", "raw_file_content": nativeSeries(3), "publish": true})
	var refused struct {
		apiError
		Details map[string][]string `json:"details"`
	}
	r.JSON(t, &refused)
	want := fmt.Sprintf("A family keeps at most %d recurring series: this adds 3, and there is room for 2 more.", models.MaxRecurringSeries)
	if r.Status != http.StatusUnprocessableEntity || refused.Error != "too_many_recurring_series" || refused.ImportID == "" ||
		len(refused.Details["recurring_transactions"]) != 1 || refused.Details["recurring_transactions"][0] != want {
		t.Fatalf("publish of three series: %d %s", r.Status, r.Body)
	}
	if kept := e.get(t, refused.ImportID); kept.Data.Status != "pending" {
		t.Errorf("the refused import is %s, want pending", kept.Data.Status)
	}
	if n := series(); n != models.MaxRecurringSeries-2 {
		t.Fatalf("%d series after the refusal", n)
	}

	var queued importBody
	e.create(t, map[string]any{"type": "NativeImport", "raw_file_content": nativeSeries(2), "publish": true}, http.StatusCreated).JSON(t, &queued)
	if queued.Data.Status != "importing" {
		t.Fatalf("a file of two series is %s, want importing", queued.Data.Status)
	}
	testkit.MustCreateSeries(t, e.srv.DB, e.user.FamilyID, nil, 1, models.RecurringProposed)
	if err := e.srv.Imports.RunPublish(context.Background(), uuid.MustParse(queued.Data.ID)); err != nil {
		t.Fatal(err)
	}
	failed := e.get(t, queued.Data.ID)
	if failed.Data.Status != "failed" || failed.Data.Error == nil || !strings.Contains(*failed.Data.Error, "there is room for 1 more") {
		t.Fatalf("the publish that found no room: %s, %v", failed.Data.Status, deref(failed.Data.Error))
	}
	if n := series(); n != models.MaxRecurringSeries-1 {
		t.Fatalf("%d series after the failed publish, want %d", n, models.MaxRecurringSeries-1)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d accounts written by the failed publish", n)
	}
}

// TestRecurringPageAndListArePaged gives a family more proposed series than a page holds and
// a few confirmed ones: /recurring shows a page of each list with its own pager, a pager's
// htmx request gets only its list, a page past the end shows the last, and the API's list is
// a page too.
func TestRecurringPageAndListArePaged(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	testkit.MustCreateSeries(t, e.srv.DB, e.user.FamilyID, nil, 120, models.RecurringProposed)
	testkit.MustCreateSeries(t, e.srv.DB, e.user.FamilyID, nil, 3, models.RecurringConfirmed)
	c := testkit.NewClient(t, e.srv.URL)
	c.SignIn(e.user.Email, testkit.Password)
	rows := func(r *testkit.Response, status string) int {
		t.Helper()
		return r.Doc(t).Find(`table[data-testid="recurring-` + status + `"] [data-testid="recurring-row"]`).Length()
	}

	page := c.Get("/recurring")
	if page.Status != http.StatusOK || rows(page, "proposed") != 50 || rows(page, "confirmed") != 3 ||
		page.Doc(t).Find("#recurring-ignored-list").Length() != 0 {
		t.Fatalf("first page: %d, %d proposed and %d confirmed rows", page.Status, rows(page, "proposed"), rows(page, "confirmed"))
	}
	next := page.Doc(t).Find(`#recurring-proposed-list [data-testid="page-next"]`).AttrOr("href", "")
	if next != "/recurring?proposed_page=2" || page.Doc(t).Find(`#recurring-confirmed-list [data-testid="page-next"]`).Length() != 0 {
		t.Fatalf("the proposed list's next page is %q", next)
	}

	// The pager asks for its list only, and the next link keeps the other lists' pages.
	frag := c.Do(http.MethodGet, "/recurring?proposed_page=3&confirmed_page=1", nil,
		map[string]string{"HX-Request": "true", "HX-Target": "recurring-proposed-list"})
	if frag.Status != http.StatusOK || strings.Contains(frag.Body, "<html") || rows(frag, "proposed") != 20 ||
		frag.Has(t, "page-next") || frag.Doc(t).Find(`[data-testid="page-prev"]`).AttrOr("href", "") != "/recurring?confirmed_page=1&proposed_page=2" {
		t.Fatalf("the third page's fragment: %d, %d rows\n%s", frag.Status, rows(frag, "proposed"), frag.Body)
	}
	if past := c.Get("/recurring?proposed_page=99"); rows(past, "proposed") != 20 || !past.Has(t, "page-prev") {
		t.Fatalf("a page past the end shows %d rows", rows(past, "proposed"))
	}

	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Meta struct {
			PerPage    int `json:"per_page"`
			TotalCount int `json:"total_count"`
			TotalPages int `json:"total_pages"`
		} `json:"meta"`
	}
	e.c.API(http.MethodGet, "/api/v1/recurring?per_page=1000", e.read, nil).JSON(t, &list)
	if len(list.Data) != 25 || list.Meta.PerPage != 25 || list.Meta.TotalCount != 123 || list.Meta.TotalPages != 5 {
		t.Fatalf("the API's list: %d series, meta %+v", len(list.Data), list.Meta)
	}
}

// TestAskingForDetectionAgainQueuesNoMore posts "Look through the whole history now" thirty
// times while no worker runs: one detection of the family's history is queued, and another
// family's request queues its own.
func TestAskingForDetectionAgainQueuesNoMore(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	ask := func(email string, times int) {
		t.Helper()
		c := testkit.NewClient(t, e.srv.URL)
		c.SignIn(email, testkit.Password)
		c.Get("/recurring")
		for range times {
			if r := c.PostForm("/recurring/detect", nil); r.Status != http.StatusSeeOther {
				t.Fatalf("detect: %d %s", r.Status, r.Body)
			}
		}
	}
	ask(e.user.Email, 30)
	ask(other.Email, 1)
	queued := e.strings(t, `SELECT args->>'family_id' FROM river_job WHERE kind = 'recurring_detect' AND state = 'available' ORDER BY args->>'family_id'`)
	want := []string{e.user.FamilyID.String(), other.FamilyID.String()}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	if strings.Join(queued, ",") != strings.Join(want, ",") {
		t.Fatalf("queued detections for %v, want one for each family %v", queued, want)
	}
}
