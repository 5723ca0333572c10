package fakesimplefin_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tally/banksync/fakesimplefin"
)

// The answers for the sample dataset are the reference's own samples (§4.6 v1, §4.7 v2),
// except that sfin-url is the fake's root rather than the reference's made-up Bridge.
func TestSampleAnswersAreTheReferences(t *testing.T) {
	s, access := newSample(t)
	for _, tc := range []struct{ query, golden string }{
		{"pending=1", "testdata/accounts_v1.json"},
		{"pending=1&version=2", "testdata/accounts_v2.json"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			raw, err := os.ReadFile(tc.golden)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			raw = []byte(strings.ReplaceAll(string(raw), "https://bridge.example.test/simplefin", s.URL+"/simplefin"))
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			resp, body := get(t, http.DefaultClient, access+"/accounts?"+tc.query)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.MarshalIndent(got, "", "  ")
				t.Errorf("answer differs from %s:\n%s", tc.golden, g)
			}
		})
	}
}

func TestShapes(t *testing.T) {
	_, access := newSample(t)

	v1 := getAccounts(t, access, "", http.StatusOK)
	if v1.Errors == nil || v1.Errlist != nil || v1.Connections != nil {
		t.Errorf("v1: errors %v errlist %v connections %v, want errors only", v1.Errors, v1.Errlist, v1.Connections)
	}
	for _, a := range v1.Accounts {
		if a.Org == nil || a.Org.SFINURL == "" || a.ConnID != "" {
			t.Errorf("v1 account %s: org %+v conn_id %q, want an org and no conn_id", a.ID, a.Org, a.ConnID)
		}
	}

	v2 := getAccounts(t, access, "version=2", http.StatusOK)
	if v2.Errors != nil || v2.Errlist == nil || len(v2.Connections) != 2 {
		t.Errorf("v2: errors %v errlist %v connections %v, want errlist and 2 connections", v2.Errors, v2.Errlist, v2.Connections)
	}
	for _, a := range v2.Accounts {
		if a.Org != nil || a.ConnID == "" {
			t.Errorf("v2 account %s: org %+v conn_id %q, want conn_id and no org", a.ID, a.Org, a.ConnID)
		}
	}

	if got := getAccounts(t, access, "version=1", http.StatusOK); got.Errors == nil {
		t.Error("version=1: not the v1 shape")
	}
}

// The expectations are the reference's notes on its sample (§4.6).
func TestTransactionFilters(t *testing.T) {
	_, access := newSample(t)
	for _, tc := range []struct {
		name  string
		query string
		want  map[string][]string
	}{
		{"no parameters: the last 30 days, posted rows only", "", map[string][]string{
			"ACT-1001": {"TRN-1001-01", "TRN-1001-02", "TRN-1001-03", "TRN-1001-04"},
			"ACT-2002": {"TRN-2002-01", "TRN-2002-02", "TRN-2002-04"},
			"ACT-3003": {"TRN-3003-01"},
		}},
		{"pending=1 adds pending rows, in order of transacted_at", "pending=1", map[string][]string{
			"ACT-1001": {"TRN-1001-01", "TRN-1001-02", "TRN-1001-03", "TRN-1001-04", "TRN-1001-05"},
			"ACT-2002": {"TRN-2002-01", "TRN-2002-02", "TRN-2002-03", "TRN-2002-04"},
			"ACT-3003": {"TRN-3003-01"},
		}},
		{"pending=0 includes them too: only presence counts", "pending=0", map[string][]string{
			"ACT-1001": {"TRN-1001-01", "TRN-1001-02", "TRN-1001-03", "TRN-1001-04", "TRN-1001-05"},
			"ACT-2002": {"TRN-2002-01", "TRN-2002-02", "TRN-2002-03", "TRN-2002-04"},
			"ACT-3003": {"TRN-3003-01"},
		}},
		{"start-date keeps rows posted on or after it", "start-date=1773057600", map[string][]string{
			"ACT-1001": {"TRN-1001-03", "TRN-1001-04"},
			"ACT-2002": {"TRN-2002-02", "TRN-2002-04"},
			"ACT-3003": {},
		}},
		{"a pending row is dated by transacted_at", "start-date=1773057600&pending=1", map[string][]string{
			"ACT-1001": {"TRN-1001-03", "TRN-1001-04", "TRN-1001-05"},
			"ACT-2002": {"TRN-2002-02", "TRN-2002-03", "TRN-2002-04"},
			"ACT-3003": {},
		}},
		{"start-date equal to a posted time includes it", "start-date=1773144000", map[string][]string{
			"ACT-1001": {"TRN-1001-03", "TRN-1001-04"},
			"ACT-2002": {"TRN-2002-02", "TRN-2002-04"},
			"ACT-3003": {},
		}},
		{"end-date equal to a posted time excludes it", "start-date=1773057600&end-date=1773316800&pending=1", map[string][]string{
			"ACT-1001": {"TRN-1001-03"},
			"ACT-2002": {"TRN-2002-02", "TRN-2002-03"},
			"ACT-3003": {},
		}},
		{"end-date equal to a pending row's transacted_at excludes it", "start-date=1773403200&end-date=1773505200&pending=1", map[string][]string{
			"ACT-1001": {},
			"ACT-2002": {"TRN-2002-04"},
			"ACT-3003": {},
		}},
		{"a second later includes it", "start-date=1773403200&end-date=1773505201&pending=1", map[string][]string{
			"ACT-1001": {"TRN-1001-05"},
			"ACT-2002": {"TRN-2002-04"},
			"ACT-3003": {},
		}},
		{"account keeps one account", "account=ACT-2002", map[string][]string{
			"ACT-2002": {"TRN-2002-01", "TRN-2002-02", "TRN-2002-04"},
		}},
		{"account repeats", "account=ACT-1001&account=ACT-3003&start-date=1773057600", map[string][]string{
			"ACT-1001": {"TRN-1001-03", "TRN-1001-04"},
			"ACT-3003": {},
		}},
		{"an unknown account is absent", "account=ACT-9999", map[string][]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := getAccounts(t, access, tc.query, http.StatusOK)
			if got := set.transactionIDs(); !maps.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("transactions\n got %v\nwant %v", got, tc.want)
			}
			if len(set.Errors) != 0 {
				t.Errorf("errors %v", set.Errors)
			}
		})
	}
}

func TestUnknownAccountIsAnErrorInV2(t *testing.T) {
	_, access := newSample(t)
	set := getAccounts(t, access, "version=2&account=ACT-3003&account=ACT-9999", http.StatusOK)
	if len(set.Accounts) != 1 || len(set.Connections) != 1 || set.Connections[0].ConnID != "CON-B" {
		t.Errorf("accounts %d, connections %+v: want ACT-3003 and its connection only", len(set.Accounts), set.Connections)
	}
	if len(set.Errlist) != 1 || set.Errlist[0].Code != "act." || set.Errlist[0].AccountID != "ACT-9999" {
		t.Errorf("errlist %+v, want one act. error for ACT-9999", set.Errlist)
	}
}

func TestBalancesOnly(t *testing.T) {
	_, access := newSample(t)
	resp, body := get(t, http.DefaultClient, access+"/accounts?balances-only=1&pending=1")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var set struct {
		Accounts []map[string]json.RawMessage `json:"accounts"`
	}
	if err := json.Unmarshal([]byte(body), &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Accounts) != 3 {
		t.Fatalf("%d accounts, want 3", len(set.Accounts))
	}
	for _, a := range set.Accounts {
		if _, ok := a["transactions"]; ok {
			t.Errorf("account %s has transactions", a["id"])
		}
		if _, ok := a["balance"]; !ok {
			t.Errorf("account %s has no balance", a["id"])
		}
	}
	if _, ok := set.Accounts[2]["holdings"]; !ok {
		t.Error("balances-only dropped the brokerage's holdings")
	}
}

func TestAccountError(t *testing.T) {
	s, access := newSample(t)
	const msg = "Connection to Example Brokerage may need attention"
	s.AccountError("ACT-3003", msg)

	v1 := getAccounts(t, access, "pending=1", http.StatusOK)
	if !slices.Equal(v1.Errors, []string{msg}) || len(v1.Accounts) != 2 || v1.Accounts[1].ID != "ACT-2002" {
		t.Errorf("v1: errors %v and %d accounts, want the message and the two others", v1.Errors, len(v1.Accounts))
	}
	v2 := getAccounts(t, access, "version=2", http.StatusOK)
	if len(v2.Errlist) != 1 || v2.Errlist[0].Code != "act.failed" || v2.Errlist[0].Msg != msg ||
		v2.Errlist[0].AccountID != "ACT-3003" || v2.Errlist[0].ConnID != "CON-B" {
		t.Errorf("v2: errlist %+v, want act.failed for ACT-3003 on CON-B", v2.Errlist)
	}
	if got := getAccounts(t, access, "account=ACT-1001", http.StatusOK); len(got.Errors) != 0 {
		t.Errorf("a request not naming the account reports its error: %v", got.Errors)
	}

	s.ClearAccountError("ACT-3003")
	if got := getAccounts(t, access, "", http.StatusOK); len(got.Errors) != 0 || len(got.Accounts) != 3 {
		t.Errorf("after clearing: errors %v, %d accounts", got.Errors, len(got.Accounts))
	}
}

func TestInvalidDates(t *testing.T) {
	_, access := newSample(t)
	for query, msg := range map[string]string{
		"start-date=yesterday":  "Invalid start-date",
		"end-date=1773576000.5": "Invalid end-date",
	} {
		if set := getAccounts(t, access, query, http.StatusBadRequest); !slices.Equal(set.Errors, []string{msg}) {
			t.Errorf("%s: errors %v, want [%s]", query, set.Errors, msg)
		}
	}
}

func TestRangeLimit(t *testing.T) {
	const day = 24 * time.Hour
	now := fakesimplefin.SampleNow
	for _, tc := range []struct {
		name        string
		days        int // 0: the Bridge's default
		mode        fakesimplefin.RangeMode
		start, end  time.Time
		status      int
		errors      []string
		includesOld bool // the transaction posted 95 days before now
	}{
		{"90 days is the Bridge's limit", 0, 0, now.Add(-90 * day), time.Time{}, http.StatusOK, nil, false},
		{"longer is capped to the last 90 days, with a warning", 0, 0, now.Add(-100 * day), time.Time{}, http.StatusOK,
			[]string{"Requested date range exceeds limit of 90 days and was capped."}, false},
		{"older Bridges capped silently", 90, fakesimplefin.RangeTruncate, now.Add(-100 * day), time.Time{}, http.StatusOK, nil, false},
		{"no limit", -1, 0, now.Add(-100 * day), time.Time{}, http.StatusOK, nil, true},
		{"60 days passes a 60-day rule", 60, fakesimplefin.RangeReject, now.Add(-60 * day), now, http.StatusOK, nil, false},
		{"a second more fails it", 60, fakesimplefin.RangeReject, now.Add(-60*day - time.Second), now, http.StatusBadRequest,
			[]string{"Requested date range exceeds limit of 60 days."}, false},
		{"the range is between the dates, not from now", 60, fakesimplefin.RangeReject, now.Add(-120 * day), now.Add(-60 * day), http.StatusOK, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, access := newSample(t)
			s.AddTransaction("ACT-1001", fakesimplefin.Transaction{
				ID: "TRN-OLD", Posted: now.Add(-95 * day), Amount: "-1.00", Description: "OLD",
			})
			switch {
			case tc.days < 0:
				s.SetRangeLimit(0, 0)
			case tc.days > 0:
				s.SetRangeLimit(tc.days, tc.mode)
			}
			set := getAccounts(t, access, epochQuery(tc.start, tc.end), tc.status)
			if !slices.Equal(set.Errors, tc.errors) {
				t.Errorf("errors %q, want %q", set.Errors, tc.errors)
			}
			if got := slices.Contains(set.transactionIDs()["ACT-1001"], "TRN-OLD"); got != tc.includesOld {
				t.Errorf("includes the 95-day-old transaction: %v, want %v", got, tc.includesOld)
			}
		})
	}

	t.Run("the v2 warning is gen.api", func(t *testing.T) {
		_, access := newSample(t)
		set := getAccounts(t, access, epochQuery(now.Add(-100*day), time.Time{})+"&version=2", http.StatusOK)
		if len(set.Errlist) != 1 || set.Errlist[0].Code != "gen.api" {
			t.Errorf("errlist %+v, want one gen.api", set.Errlist)
		}
	})
}

func TestQuota(t *testing.T) {
	s, access := newSample(t)
	s.SetQuota(2, 3)
	const warning = "Too many requests. Please make fewer requests; SimpleFIN data is only refreshed once every 24 hours."

	if set := getAccounts(t, access, "", http.StatusOK); len(set.Errors) != 0 {
		t.Errorf("request 1: errors %v", set.Errors)
	}
	if set := getAccounts(t, access, "", http.StatusOK); !slices.Equal(set.Errors, []string{warning}) || len(set.Accounts) != 3 {
		t.Errorf("request 2: errors %v with %d accounts, want the warning and the data", set.Errors, len(set.Accounts))
	}
	resp, body := get(t, http.DefaultClient, access+"/accounts")
	if want := `{"errors":["Too many requests. SimpleFIN data is only refreshed once every 24 hours. Expected usage of this API is 24 requests per day."]}`; resp.StatusCode != http.StatusTooManyRequests || body != want {
		t.Errorf("request 3: %d %s, want 429 %s", resp.StatusCode, body, want)
	}
	if set := getAccounts(t, access, "account=ACT-1001", http.StatusOK); len(set.Errors) != 0 {
		t.Errorf("an account request, counted apart: errors %v", set.Errors)
	}
	if set := getAccounts(t, s.NewAccessURL(), "", http.StatusOK); len(set.Errors) != 0 {
		t.Errorf("another access URL: errors %v", set.Errors)
	}
	s.Advance(24 * time.Hour)
	if set := getAccounts(t, access, "", http.StatusOK); len(set.Errors) != 0 {
		t.Errorf("a day later: errors %v", set.Errors)
	}
}
