package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/fx"
	"tally/fx/fakeecb"
	"tally/models"
	"tally/testkit"
)

// TestExchangeRatesAPI sets, reads and deletes a family's own rates, and asks which rate
// converts a pair on a day: the family's own (direct or inverted) wins, else the ECB's crossed
// through EUR, with the rate's date and age; another family's rates are out of reach.
func TestExchangeRatesAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	ecb := fakeecb.NewTest(t)
	ecb.SetDay("2026-02-26", map[string]string{"USD": "1.0805", "GBP": "0.8405", "JPY": "162.07"})
	ecb.SetDay("2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398"})
	ecb.SetDay("2026-03-02", map[string]string{"USD": "1.0823"})
	if _, err := (&fx.Fetcher{DB: e.srv.DB, URL: ecb.URL}).Fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")
	var fetchedID string
	if err := e.srv.DB.NewRaw("SELECT id::text FROM exchange_rates WHERE family_id IS NULL LIMIT 1").Scan(context.Background(), &fetchedID); err != nil {
		t.Fatal(err)
	}
	gbp := e.mustPost(t, "/api/v1/exchange_rates", map[string]any{"date": "2026-02-20", "base": "gbp", "quote": "USD", "rate": "1.25"})
	var theirs struct{ Data struct{ ID string } }
	if r := e.c.API(http.MethodPost, "/api/v1/exchange_rates", otherKey, map[string]any{"date": "2026-02-20", "base": "GBP", "quote": "USD", "rate": "9"}); r.Status != http.StatusCreated {
		t.Fatalf("another family's rate: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &theirs)
	}
	today := time.Now().UTC().Format(time.DateOnly) // the family's time zone is UTC

	e.runAPICases(t, []apiCase{
		{name: "a rate is stored with its codes in capitals", method: http.MethodPost, path: "/api/v1/exchange_rates",
			body: map[string]any{"date": "2026-03-01", "base": "CHF", "quote": "usd", "rate": "1.1300"}, status: http.StatusCreated,
			contains: []string{`"date":"2026-03-01","base":"CHF","quote":"USD","rate":"1.13","source":"family"`}},
		{name: "every problem is named by its field", method: http.MethodPost, path: "/api/v1/exchange_rates",
			body: map[string]any{"date": "2026-02-30", "base": "EURO", "quote": "EURO", "rate": "0"}, status: http.StatusUnprocessableEntity,
			contains: []string{`"date":["date \"2026-02-30\" is not a date (YYYY-MM-DD)"]`, `"base":["Base must be a three-letter ISO currency code such as EUR."]`,
				`"quote":["Quote must be`, `The quote currency must differ from the base`, `"rate":["Rate must be greater than zero."]`}},
		{name: "a rate is a decimal string, not a number", method: http.MethodPost, path: "/api/v1/exchange_rates",
			body: map[string]any{"date": "2026-03-01", "base": "CHF", "quote": "USD", "rate": 1.13}, status: http.StatusBadRequest},
		{name: "an unknown field is refused", method: http.MethodPost, path: "/api/v1/exchange_rates",
			body: map[string]any{"date": "2026-03-01", "base": "CHF", "quote": "USD", "rate": "1.13", "source": "ecb"}, status: http.StatusBadRequest},
		{name: "a read key cannot set a rate", method: http.MethodPost, path: "/api/v1/exchange_rates", key: e.read,
			body: map[string]any{"date": "2026-03-01", "base": "CHF", "quote": "USD", "rate": "1.13"}, status: http.StatusForbidden},

		{name: "the family's own rate wins", method: http.MethodGet, path: "/api/v1/exchange_rates?base=GBP&quote=USD&date=2026-03-02", key: e.read,
			status: http.StatusOK, contains: []string{`{"data":{"base":"GBP","quote":"USD","on":"2026-03-02","rate":"1.25","date":"2026-02-20","age_days":10,"source":"family"}}`}},
		{name: "inverted", method: http.MethodGet, path: "/api/v1/exchange_rates?base=USD&quote=GBP&date=2026-03-02", key: e.read,
			status: http.StatusOK, contains: []string{`"rate":"0.8","date":"2026-02-20","age_days":10,"source":"family"`}},
		{name: "the ECB's crossed through EUR, dated by its older leg", method: http.MethodGet, path: "/api/v1/exchange_rates?base=JPY&quote=USD&date=2026-03-02",
			key: e.read, status: http.StatusOK, contains: []string{`"rate":"0.006677978651","date":"2026-02-26","age_days":4,"source":"ecb"`}},
		{name: "the same currency at 1, from no source", method: http.MethodGet, path: "/api/v1/exchange_rates?base=USD&quote=USD&date=2026-03-02",
			key: e.read, status: http.StatusOK, contains: []string{`"rate":"1","date":"2026-03-02","age_days":0,"source":null`}},
		{name: "today when no date is given", method: http.MethodGet, path: "/api/v1/exchange_rates?base=EUR&quote=USD", key: e.read,
			status: http.StatusOK, contains: []string{`"on":"` + today + `","rate":"1.0823","date":"2026-03-02"`}},
		{name: "no rate before the first", method: http.MethodGet, path: "/api/v1/exchange_rates?base=USD&quote=EUR&date=2026-02-01", key: e.read,
			status: http.StatusNotFound, contains: []string{`"error":"no_exchange_rate"`, `No exchange rate converts USD to EUR on or before 2026-02-01`}},
		{name: "bad parameters are named", method: http.MethodGet, path: "/api/v1/exchange_rates?base=usd&quote=USD&date=2026-3-2", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{`"base":["base \"usd\" is not a three-letter ISO currency code such as EUR"]`, `"date":[`}},

		{name: "the family's own rates, newest first", method: http.MethodGet, path: "/api/v1/exchange_rates", key: e.read, status: http.StatusOK,
			contains: []string{`"base":"CHF","quote":"USD","rate":"1.13","source":"family"`, `"total_count":2`},
			excludes: []string{`"rate":"9"`, `"source":"ecb"`}},
		{name: "narrowed by base", method: http.MethodGet, path: "/api/v1/exchange_rates?base=GBP", key: e.read, status: http.StatusOK,
			contains: []string{`"id":"` + gbp + `"`, `"total_count":1`}},
		{name: "narrowed by date", method: http.MethodGet, path: "/api/v1/exchange_rates?date=2026-03-01", key: e.read, status: http.StatusOK,
			contains: []string{`"base":"CHF"`, `"total_count":1`}},
		{name: "another family's list is its own", method: http.MethodGet, path: "/api/v1/exchange_rates", key: otherKey, status: http.StatusOK,
			contains: []string{`"id":"` + theirs.Data.ID + `"`, `"total_count":1`}},
		{name: "another family converts with its own", method: http.MethodGet, path: "/api/v1/exchange_rates?base=GBP&quote=USD&date=2026-03-02",
			key: otherKey, status: http.StatusOK, contains: []string{`"rate":"9","date":"2026-02-20"`}},

		{name: "a read key cannot delete", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + gbp, key: e.read, status: http.StatusForbidden},
		{name: "another family cannot delete ours", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + gbp, key: otherKey, status: http.StatusNotFound},
		{name: "nor ours theirs", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + theirs.Data.ID, status: http.StatusNotFound},
		{name: "nor anyone a fetched rate", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + fetchedID, status: http.StatusNotFound},
		{name: "our own is deleted", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + gbp, status: http.StatusNoContent},
		{name: "and once only", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + gbp, status: http.StatusNotFound},
		{name: "then the ECB's converts the pair", method: http.MethodGet, path: "/api/v1/exchange_rates?base=GBP&quote=USD&date=2026-03-02", key: e.read,
			status: http.StatusOK, contains: []string{`"rate":"1.288759228388","date":"2026-02-27","age_days":3,"source":"ecb"`}},
	})
}

// TestOnlyAdminsSetRatesThroughTheAPI is the page's rule in the API: a member of the family
// (with a read_write key) reads the family's rates but gets 403 forbidden, as for webhooks,
// when setting or deleting one, and nothing changes; an admin's key does both.
func TestOnlyAdminsSetRatesThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID, Role: models.RoleMember})
	memberKey := testkit.MustCreateAPIKey(t, e.srv.DB, member.ID, models.ScopeReadWrite)
	rate := map[string]any{"date": "2026-03-01", "base": "GBP", "quote": "USD", "rate": "1.25"}
	id := e.mustPost(t, "/api/v1/exchange_rates", rate)
	forbidden := []string{`"error":"forbidden"`, `"message":"Only an admin of the family can set or delete its exchange rates"`}

	e.runAPICases(t, []apiCase{
		{name: "a member reads the family's rates", method: http.MethodGet, path: "/api/v1/exchange_rates", key: memberKey,
			status: http.StatusOK, contains: []string{`"id":"` + id + `"`, `"total_count":1`}},
		{name: "and the rate of a pair", method: http.MethodGet, path: "/api/v1/exchange_rates?base=GBP&quote=USD&date=2026-03-02", key: memberKey,
			status: http.StatusOK, contains: []string{`"rate":"1.25","date":"2026-03-01"`}},
		{name: "but may not set one", method: http.MethodPost, path: "/api/v1/exchange_rates", key: memberKey,
			body: map[string]any{"date": "2026-03-01", "base": "GBP", "quote": "USD", "rate": "9"}, status: http.StatusForbidden, contains: forbidden},
		{name: "nor one with problems, which it learns nothing of", method: http.MethodPost, path: "/api/v1/exchange_rates", key: memberKey,
			body: map[string]any{"date": "0000-01-01", "base": "GBP", "quote": "GBP", "rate": "0"}, status: http.StatusForbidden, contains: forbidden},
		{name: "nor delete one", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + id, key: memberKey,
			status: http.StatusForbidden, contains: forbidden},
		{name: "which is unchanged", method: http.MethodGet, path: "/api/v1/exchange_rates", key: memberKey,
			status: http.StatusOK, contains: []string{`"id":"` + id + `"`, `"rate":"1.25"`, `"total_count":1`}},
		{name: "an admin replaces it", method: http.MethodPost, path: "/api/v1/exchange_rates", body: map[string]any{"date": "2026-03-01", "base": "GBP", "quote": "USD", "rate": "1.3"},
			status: http.StatusCreated, contains: []string{`"rate":"1.3"`}},
		{name: "and deletes it", method: http.MethodDelete, path: "/api/v1/exchange_rates/" + id, status: http.StatusNoContent},
	})
}
