package models_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/testkit"
	"tally/models"
)

// netWorthQuery keeps the last query a bun hook saw that reads balances.
type netWorthQuery struct {
	mu  sync.Mutex
	sql string
}

func (h *netWorthQuery) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *netWorthQuery) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, "account_month_totals") {
		h.mu.Lock()
		h.sql = ev.Query
		h.mu.Unlock()
	}
}

// TestNetWorthIsReadThroughIndexes checks the plan of the dashboard's net worth over 30 days
// for a family with years of history beside another family: entries are read only through
// indexes (the month totals stand for the history before the range), never scanned whole.
func TestNetWorthIsReadThroughIndexes(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	var familyID uuid.UUID
	for i := range 2 {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		var accts []uuid.UUID
		for _, typ := range []string{"Depository", "CreditCard", "Investment"} {
			accts = append(accts, testkit.MustCreateAccount(t, d, u.FamilyID, typ, typ, "100").ID)
		}
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			SELECT gen_random_uuid(), ?, (?::uuid[])[1 + i % 3], 'transaction', date '2026-11-01' - (i % 1500), i % 300, 'USD', 'Shop ' || i
			FROM generate_series(1, 30000) AS i`, u.FamilyID, pgdialect.Array(accts)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			familyID = u.FamilyID
		}
	}
	if _, err := d.NewRaw("ANALYZE entries; ANALYZE account_month_totals").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	hook := &netWorthQuery{}
	d.AddQueryHook(hook)
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	series, err := models.DailyNetWorth(ctx, d, familyID, end.AddDate(0, 0, -29), end)
	if err != nil || len(series) != 1 || len(series[0].Points) != 30 {
		t.Fatalf("net worth: %v, %+v", err, series)
	}
	hook.mu.Lock()
	query := hook.sql
	hook.mu.Unlock()
	var raw string
	if err := d.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+query).Scan(ctx, &raw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, `"Relation Name": "account_month_totals"`) || !strings.Contains(raw, `"Index Name": "entries_account_date_idx"`) {
		t.Fatalf("the plan does not read the month totals and entries' account index:\n%s", raw)
	}
	if seqScansEntries(t, raw) {
		t.Errorf("the net worth scans entries whole:\n%s", raw)
	}
}

// seqScansEntries reports whether a JSON plan has a sequential scan of entries.
func seqScansEntries(t *testing.T, raw string) bool {
	t.Helper()
	var plans []struct {
		Plan json.RawMessage `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &plans); err != nil {
		t.Fatal(err)
	}
	var walk func(json.RawMessage) bool
	walk = func(m json.RawMessage) bool {
		var n struct {
			Type     string            `json:"Node Type"`
			Relation string            `json:"Relation Name"`
			Plans    []json.RawMessage `json:"Plans"`
		}
		if err := json.Unmarshal(m, &n); err != nil {
			t.Fatal(err)
		}
		if n.Type == "Seq Scan" && n.Relation == "entries" {
			return true
		}
		for _, c := range n.Plans {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(plans[0].Plan)
}
