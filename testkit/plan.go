package testkit

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"tally/internal/db"
)

// QueryRecorder keeps the last query bun ran whose SQL contains a string, for a test to look
// at its plan.
type QueryRecorder struct {
	match string
	mu    sync.Mutex
	last  string
}

// RecordQueries starts keeping d's last query that contains match.
func RecordQueries(d *db.DB, match string) *QueryRecorder {
	r := &QueryRecorder{match: match}
	d.AddQueryHook(r)
	return r
}

// BeforeQuery is part of bun.QueryHook.
func (r *QueryRecorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

// AfterQuery is part of bun.QueryHook.
func (r *QueryRecorder) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, r.match) {
		r.mu.Lock()
		r.last = ev.Query
		r.mu.Unlock()
	}
}

// Last is the last query kept, with its arguments in it; it fails tb when there is none.
func (r *QueryRecorder) Last(tb testing.TB) string {
	tb.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == "" {
		tb.Fatalf("no query containing %q ran", r.match)
	}
	return r.last
}

// PlanNode is a node of a plan of EXPLAIN (ANALYZE, FORMAT JSON).
type PlanNode struct {
	Type       string     `json:"Node Type"`
	Relation   string     `json:"Relation Name"`
	Index      string     `json:"Index Name"`
	IndexCond  string     `json:"Index Cond"`
	ActualRows float64    `json:"Actual Rows"`
	Removed    float64    `json:"Rows Removed by Filter"` // each time it ran, like ActualRows
	Loops      float64    `json:"Actual Loops"`           // how often it ran: once per row of another in a row-by-row join
	Plans      []PlanNode `json:"Plans"`
}

// Walk calls fn on n and every node below it.
func (n PlanNode) Walk(fn func(PlanNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.Walk(fn)
	}
}

// Explain runs query under EXPLAIN (ANALYZE, FORMAT JSON) and returns its plan, and the JSON
// to print when a test fails. d is a database or a transaction: a statement that writes is
// run, so explain it in a transaction that is rolled back.
func Explain(tb testing.TB, d bun.IDB, query string) (PlanNode, string) {
	tb.Helper()
	var raw string
	if err := d.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+query).Scan(context.Background(), &raw); err != nil {
		tb.Fatalf("explain: %v", err)
	}
	var out []struct {
		Plan PlanNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil || len(out) == 0 {
		tb.Fatalf("read the plan: %v", err)
	}
	return out[0].Plan, raw
}
