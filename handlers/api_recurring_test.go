package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestRecurringAPI imports eight weekly gym payments: the job that follows the publish
// proposes the series, the API lists and shows it, confirms and edits it with every problem
// named by its field, and the account's forecast counts it; another family reaches none of it.
func TestRecurringAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "5000")
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Card", "CreditCard", "0")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")
	today := time.Now().UTC().Truncate(24 * time.Hour)

	csv := "date,amount,name\n"
	for k := 8; k >= 1; k-- {
		csv += today.AddDate(0, 0, -7*k).Format(time.DateOnly) + ",-20.00,Gym membership\n"
	}
	csv += today.AddDate(0, 0, -40).Format(time.DateOnly) + ",-35.10,Corner shop\n"
	r := e.create(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "publish": true}, http.StatusCreated)
	var b importBody
	r.JSON(t, &b)
	if done := e.waitFor(t, b.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s", done.Data.Status)
	}
	var list struct {
		Data []struct {
			ID, Name, Interval, Amount, Status string
			NextDate                           string `json:"next_date"`
		}
	}
	for deadline := time.Now().Add(30 * time.Second); len(list.Data) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no series proposed 30s after the publish\n%s", e.srv.Logs)
		}
		e.c.API(http.MethodGet, "/api/v1/recurring", e.read, nil).JSON(t, &list)
	}
	s := list.Data[0]
	if len(list.Data) != 1 || s.Interval != "weekly" || s.Amount != "20.00" || s.Status != "proposed" || s.NextDate != today.Format(time.DateOnly) {
		t.Fatalf("detected %+v, want one weekly series of 20.00 due today", list.Data)
	}
	path := "/api/v1/recurring/" + s.ID
	fitness, err := models.CreateCategory(context.Background(), e.srv.DB, e.user.FamilyID, models.CategoryInput{Name: testkit.Ptr("Fitness")})
	if err != nil {
		t.Fatal(err)
	}
	forecast := "/api/v1/accounts/" + acct.ID.String() + "/forecast"

	e.runAPICases(t, []apiCase{
		{name: "a list with meta", method: http.MethodGet, path: "/api/v1/recurring", key: e.read, status: http.StatusOK,
			contains: []string{`"total_count":1`, `"account_id":"` + acct.ID.String() + `"`, `"currency":"USD"`, `"occurrences":8`, `"last_amount":"20.00"`}},
		{name: "another family's list is empty", method: http.MethodGet, path: "/api/v1/recurring", key: otherKey, status: http.StatusOK,
			contains: []string{`"data":[]`}},
		{name: "another family cannot see ours", method: http.MethodGet, path: path, key: otherKey, status: http.StatusNotFound},
		{name: "another family cannot confirm ours", method: http.MethodPatch, path: path, key: otherKey, body: map[string]any{"status": "confirmed"},
			status: http.StatusNotFound},
		{name: "a read key cannot confirm", method: http.MethodPatch, path: path, key: e.read, body: map[string]any{"status": "confirmed"}, status: http.StatusForbidden},
		{name: "a proposed series brings nothing to the forecast", method: http.MethodGet, path: forecast + "?days=7", key: e.read, status: http.StatusOK,
			contains: []string{`"balance":"5000.00"`, `"first_below_zero":null`, `"bills":[]`}, excludes: []string{`"series_id"`}},
		{name: "every problem is named by its field", method: http.MethodPatch, path: path,
			body:   map[string]any{"status": "maybe", "name": " ", "amount": "lots", "interval": "daily", "next_date": "soon", "category_id": "nope"},
			status: http.StatusUnprocessableEntity,
			contains: []string{`"status":["Status \"maybe\" must be one of proposed, confirmed, ignored"]`, `"name":["Name can't be blank"]`,
				`"amount":["\"lots\" is not a number: write it like 1250.00"]`, `"interval":["Interval \"daily\" must be one of weekly, biweekly, monthly, monthly_last_working_day, quarterly, yearly"]`,
				`"next_date":["next_date \"soon\" is not a date (YYYY-MM-DD)"]`, `"category_id":["Category \"nope\" is not one of the family's categories"]`}},
		{name: "a zero amount is refused", method: http.MethodPatch, path: path, body: map[string]any{"amount": "0"}, status: http.StatusUnprocessableEntity,
			contains: []string{`"amount":["Amount must not be zero`}},
		{name: "confirm and rename", method: http.MethodPatch, path: path, body: map[string]any{"status": "confirmed", "name": "Gym"}, status: http.StatusOK,
			contains: []string{`"status":"confirmed"`, `"name":"Gym"`, `"confidence":"1.00"`}},
		{name: "a confirmed series moves the forecast, weekly from today", method: http.MethodGet, path: forecast + "?days=8", key: e.read, status: http.StatusOK,
			contains: []string{`"balance":"5000.00"`, `{"date":"` + today.Format(time.DateOnly) + `","balance":"4980.00","bills":[{"series_id":"` + s.ID + `","name":"Gym","date":"` + today.Format(time.DateOnly) + `","amount":"20.00","currency":"USD"}]}`,
				`{"date":"` + today.AddDate(0, 0, 7).Format(time.DateOnly) + `","balance":"4960.00"`}},
		{name: "a big edit makes it go below zero", method: http.MethodPatch, path: path, body: map[string]any{"amount": "3000"}, status: http.StatusOK,
			contains: []string{`"amount":"3000.00"`}},
		{name: "the first day below zero is named", method: http.MethodGet, path: forecast, key: e.read, status: http.StatusOK,
			contains: []string{`"first_below_zero":"` + today.AddDate(0, 0, 7).Format(time.DateOnly) + `"`}},
		{name: "days past a year is refused", method: http.MethodGet, path: forecast + "?days=366", key: e.read, status: http.StatusUnprocessableEntity,
			contains: []string{`"days":["days must be a whole number from 1 to 365"]`}},
		{name: "days that is no number is refused", method: http.MethodGet, path: forecast + "?days=a", key: e.read, status: http.StatusUnprocessableEntity,
			contains: []string{`"days":[`}},
		{name: "a credit card has no forecast", method: http.MethodGet, path: "/api/v1/accounts/" + card.ID.String() + "/forecast", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{`"account_id":["A forecast is made for current accounts`}},
		{name: "another family's account has no forecast", method: http.MethodGet, path: forecast, key: otherKey, status: http.StatusNotFound},
		{name: "give it a category", method: http.MethodPatch, path: path, body: map[string]any{"category_id": fitness.ID.String()}, status: http.StatusOK,
			contains: []string{`"category_id":"` + fitness.ID.String() + `"`}},
		{name: "ignore it for good, its category cleared", method: http.MethodPatch, path: path, body: map[string]any{"status": "ignored", "category_id": nil}, status: http.StatusOK,
			contains: []string{`"status":"ignored"`, `"category_id":null`},
			after: func(t *testing.T) {
				if n := e.count(t, "SELECT count(*) FROM recurring_transactions WHERE family_id = ?", e.user.FamilyID); n != 1 {
					t.Errorf("%d series, want the one ignored", n)
				}
			}},
	})
}
