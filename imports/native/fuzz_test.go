package native

import (
	"strings"
	"testing"
)

// FuzzRead checks that Read never panics and that every problem points inside the file.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"", "not ndjson", "[]", "\n\n", acct, txn, splits,
		string(lines(acct, txn)),
		string(lines("[]", `{"type":"Transaction","data":{"id":"transaction-1"}}`)),
		`{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Kernel"}}`,
		`{"type":"MysteryType","data":{}}`,
		string(lines(`{"type":"Rule","version":1,"data":{"id":"r1","name":null,"conditions":[{"condition_type":"transaction_tag","value":null,"sub_conditions":[{}]}]}}`,
			`{"type":"RejectedTransfer","data":{"inflow_transaction_id":"x","outflow_transaction_id":"y"}}`)),
		`{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01","amount":"1e-99999"}}`,
		`{"type":"Budget","data":{"id":"b","start_date":"2024-01-01T00:00:00Z","end_date":"2023-01-01"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		file := Read(content)
		file.CheckRefs(nil)
		n := file.Lines
		if strings.Count(string(content), "\n")+1 < n {
			t.Fatalf("Lines %d exceeds the content's lines", n)
		}
		for _, list := range [][]Problem{file.Problems, file.Warnings} {
			for _, p := range list {
				if p.Line < 0 || p.Line > n || p.Code == "" || p.Message == "" {
					t.Fatalf("problem %+v outside %d lines", p, n)
				}
			}
		}
		if file.RowsCount-file.ValidRowsCount < 0 || file.ValidRowsCount != len(file.Records) {
			t.Fatalf("counts %d/%d records %d", file.RowsCount, file.ValidRowsCount, len(file.Records))
		}
		FirstLineOK(content)
	})
}
