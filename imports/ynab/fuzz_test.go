package ynab

import (
	"bytes"
	"errors"
	"testing"

	"tally/imports/movein"
)

// FuzzRead feeds budget JSON to Read: it must not panic, must refuse only with a
// *movein.Error, and what it reads must hold together (movein.Budget.Check).
func FuzzRead(f *testing.F) {
	f.Add(household(f))
	f.Add([]byte(`{"data": {"plan": {"accounts": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
		"transactions": [{"id": "t1", "date": "2026-08-09", "amount": 20000, "account_id": "b", "memo": "m"},
		{"id": "t3", "date": "2026-08-09", "amount": -30000, "account_id": "a", "subtransactions": [
		{"id": "s1", "amount": -10000}, {"id": "s2", "amount": -20000, "memo": "m", "transfer_account_id": "b"}]}]}}}`))
	f.Fuzz(func(t *testing.T, content []byte) {
		b, err := Read(bytes.NewReader(content))
		if err != nil {
			var me *movein.Error
			if !errors.As(err, &me) {
				t.Fatalf("Read failed with %T %v, not a *movein.Error", err, err)
			}
			return
		}
		if err := b.Check(); err != nil {
			t.Fatalf("the budget read does not hold together: %v", err)
		}
	})
}
