package imports

import (
	"context"
	"maps"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports/native"
)

// Finding is one preflight error or warning of a NativeImport, with its chunk, line, record
// type and field.
type Finding = native.Problem

// Readback statuses.
const (
	ReadbackNotVerified = "not_verified"
	ReadbackMatched     = "matched"
	ReadbackMismatch    = "mismatch"
	ReadbackFailed      = "failed"
	ReadbackReverted    = "reverted"
)

// Readback compares a NativeImport's expected record counts with what the database holds
// after publish. Only records carrying the import's provenance are counted, plus the existing
// records it merged lines into, so other writes to the family never cause a mismatch. Records
// the import made itself (an opening balance the file lacks, a category a rule names) are
// reported apart and never cause one.
type Readback struct {
	Status               string              `json:"status"`
	CheckedAt            *time.Time          `json:"checked_at"`
	ExpectedRecordCounts map[string]int      `json:"expected_record_counts,omitzero"`
	BeforeCounts         map[string]int      `json:"before_counts,omitzero"`
	AfterCounts          map[string]int      `json:"after_counts,omitzero"`
	ActualDeltaCounts    map[string]int      `json:"actual_delta_counts,omitzero"`
	CheckedCounts        map[string]int      `json:"checked_counts,omitzero"`
	Mismatches           map[string]Mismatch `json:"mismatches,omitzero"`
	SynthesizedCounts    map[string]int      `json:"synthesized_counts,omitzero"`
	MergedCounts         map[string]int      `json:"merged_counts,omitzero"`
	Error                *string             `json:"error,omitempty"`
}

// Mismatch is an entity whose count differs from the file's.
type Mismatch struct {
	Expected int `json:"expected"`
	Actual   int `json:"actual"`
}

// ReadbackStatus is the readback's status; not_verified until a publish has checked it.
func (i *Import) ReadbackStatus() string {
	if i.Readback == nil || i.Readback.Status == "" {
		return ReadbackNotVerified
	}
	return i.Readback.Status
}

// Summary is what a publish did, per entity.
type Summary map[string]*EntitySummary

// EntitySummary counts one entity's records: created from a line, merged into an existing
// record, made by the import itself, or skipped because a reference did not resolve.
type EntitySummary struct {
	Created     int `json:"created"`
	Merged      int `json:"merged"`
	Synthesized int `json:"synthesized"`
	Skipped     int `json:"skipped"`
}

func (s Summary) of(entity string) *EntitySummary {
	e := s[entity]
	if e == nil {
		e = &EntitySummary{}
		s[entity] = e
	}
	return e
}

// recordCounts are the counts readback takes: what the import holds.
type recordCounts struct {
	own, merged, synthesized map[string]int
}

// actual is what the file's lines became: the import's own records, less those it made
// itself, plus the existing records it merged lines into.
func (c recordCounts) actual() map[string]int {
	out := make(map[string]int, len(native.EntityKeys))
	for _, k := range native.EntityKeys {
		out[k] = c.own[k] - c.synthesized[k] + c.merged[k]
	}
	return out
}

// provenanceCounts selects, per entity, the records that carry an import's provenance.
const provenanceCounts = `
	SELECT 'accounts' AS entity, count(*) AS n FROM accounts WHERE import_id = ?0
	UNION ALL SELECT 'balances', count(*) FROM balances WHERE import_id = ?0
	UNION ALL SELECT 'categories', count(*) FROM categories WHERE import_id = ?0
	UNION ALL SELECT 'tags', count(*) FROM tags WHERE import_id = ?0
	UNION ALL SELECT 'merchants', count(*) FROM merchants WHERE import_id = ?0
	UNION ALL SELECT 'recurring_transactions', count(*) FROM recurring_transactions WHERE import_id = ?0
	UNION ALL SELECT CASE kind WHEN 'transaction' THEN 'transactions' WHEN 'trade' THEN 'trades' ELSE 'valuations' END, count(*)
		FROM entries WHERE import_id = ?0 AND parent_id IS NULL GROUP BY kind
	UNION ALL SELECT 'transfers', count(*) FROM transfers WHERE import_id = ?0
	UNION ALL SELECT 'rejected_transfers', count(*) FROM rejected_transfers WHERE import_id = ?0
	UNION ALL SELECT 'holdings', count(*) FROM holdings WHERE import_id = ?0
	UNION ALL SELECT 'budgets', count(*) FROM budgets WHERE import_id = ?0
	UNION ALL SELECT 'budget_categories', count(*) FROM budget_categories WHERE import_id = ?0
	UNION ALL SELECT 'rules', count(*) FROM rules WHERE import_id = ?0`

// countRecords reads back what the import holds now.
func countRecords(ctx context.Context, idb bun.IDB, importID uuid.UUID) (recordCounts, error) {
	c := recordCounts{own: map[string]int{}, merged: map[string]int{}, synthesized: map[string]int{}}
	var own []struct {
		Entity string `bun:"entity"`
		N      int    `bun:"n"`
	}
	if err := idb.NewRaw(provenanceCounts, importID).Scan(ctx, &own); err != nil {
		return c, err
	}
	for _, r := range own {
		c.own[r.Entity] += r.N
	}
	var links []struct {
		Entity string `bun:"entity"`
		Role   string `bun:"role"`
		N      int    `bun:"n"`
	}
	if err := idb.NewRaw(`SELECT entity, role, count(*) AS n FROM import_links WHERE import_id = ? GROUP BY entity, role`, importID).
		Scan(ctx, &links); err != nil {
		return c, err
	}
	for _, l := range links {
		if l.Role == "merged" {
			c.merged[l.Entity] = l.N
		} else {
			c.synthesized[l.Entity] = l.N
		}
	}
	return c, nil
}

// readback compares the expected counts with before and after, as of now.
func readback(expected map[string]int, before, after recordCounts, now time.Time) *Readback {
	rb := &Readback{
		CheckedAt:            &now,
		ExpectedRecordCounts: expected,
		BeforeCounts:         before.actual(),
		AfterCounts:          after.actual(),
		ActualDeltaCounts:    map[string]int{},
		CheckedCounts:        map[string]int{},
		Mismatches:           map[string]Mismatch{},
		SynthesizedCounts:    map[string]int{},
		MergedCounts:         map[string]int{},
	}
	for _, k := range native.EntityKeys {
		delta := rb.AfterCounts[k] - rb.BeforeCounts[k]
		rb.ActualDeltaCounts[k] = delta
		rb.CheckedCounts[k] = expected[k]
		rb.SynthesizedCounts[k] = after.synthesized[k] - before.synthesized[k]
		rb.MergedCounts[k] = after.merged[k] - before.merged[k]
		if delta != expected[k] {
			rb.Mismatches[k] = Mismatch{Expected: expected[k], Actual: delta}
		}
	}
	rb.Status = ReadbackMatched
	if len(rb.Mismatches) > 0 {
		rb.Status = ReadbackMismatch
	}
	return rb
}

// failedReadback is the readback of a publish that rolled back: the counts as the database
// has them (so the deltas show nothing was kept), and the reason.
func failedReadback(ctx context.Context, idb bun.IDB, im *Import, reason string, now time.Time) *Readback {
	rb := &Readback{Status: ReadbackFailed, CheckedAt: &now, ExpectedRecordCounts: maps.Clone(im.ExpectedRecordCounts), Error: &reason}
	if c, err := countRecords(ctx, idb, im.ID); err == nil {
		rb.BeforeCounts, rb.AfterCounts = c.actual(), c.actual()
		rb.ActualDeltaCounts, rb.CheckedCounts = map[string]int{}, map[string]int{}
		for _, k := range native.EntityKeys {
			rb.ActualDeltaCounts[k] = 0
			rb.CheckedCounts[k] = im.ExpectedRecordCounts[k]
		}
	}
	return rb
}
