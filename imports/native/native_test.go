package native

import (
	"fmt"
	"strings"
	"testing"
)

const (
	acct   = `{"type":"Account","data":{"id":"a1","name":"Checking","balance":"100.00","currency":"USD","accountable_type":"Depository"}}`
	txn    = `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"100.00"}}`
	splits = `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"100.0","split_lines":[{"id":"s1","amount":"60"},{"id":"s2","amount":"30"}]}}`
)

func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n")) }

func codes(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Code)
	}
	return out
}

func find(ps []Problem, code string) *Problem {
	for i := range ps {
		if ps[i].Code == code {
			return &ps[i]
		}
	}
	return nil
}

// TestProblems covers each code: the problem's line, type, field and message.
func TestProblems(t *testing.T) {
	tests := []struct {
		name             string
		in               []byte
		code             string
		line             int
		typ, field, text string
		warning          bool
	}{
		{"invalid json", []byte("not ndjson"), CodeInvalidJSON, 1, "", "", "line 1: not valid JSON: invalid character", false},
		{"not an object", []byte("[]"), CodeInvalidRecord, 1, "", "", "line 1: must be a JSON object", false},
		{"missing data", lines(acct, `{"type":"Tag"}`), CodeInvalidRecord, 2, "Tag", "data", "must include type and data (missing data)", false},
		{"data not object", []byte(`{"type":"Tag","data":[1]}`), CodeInvalidRecord, 1, "Tag", "data", "Tag data must be a JSON object", false},
		{"type not string", []byte(`{"type":5,"data":{}}`), CodeInvalidRecord, 1, "", "type", "type must be a string", false},
		{"unsupported", lines(acct, `{"type":"MysteryType","data":{}}`), CodeUnsupportedType, 2, "MysteryType", "type", "unsupported record type MysteryType", false},
		{"empty", []byte(""), CodeNoDataRows, 0, "", "", "No data rows were found.", false},
		{"blank lines only", []byte("\n  \n\r\n"), CodeNoDataRows, 0, "", "", "No data rows were found.", false},
		{"missing field", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","amount":"1"}}`), CodeMissingFields, 2, "Transaction", "date",
			`line 2: Transaction "t1" is missing required field date`, false},
		{"false is blank", []byte(`{"type":"Tag","data":{"id":"g1","name":false}}`), CodeMissingFields, 1, "Tag", "name", "missing required field name", false},
		{"kernel", []byte(`{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Kernel"}}`), CodeInvalidAccountableType, 1, "Account", "accountable_type",
			`line 1: Account "a1" has invalid accountable_type "Kernel"; it must be one of Depository`, false},
		{"subtype", []byte(`{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Depository","accountable":{"subtype":"not-a-subtype"}}}`),
			CodeInvalidAccountableSubtype, 1, "Account", "accountable.subtype", `Depository subtype "not-a-subtype", which Tally does not offer (it offers: checking`, true},
		{"subtype that is not text", []byte(`{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Depository","subtype":5}}`),
			CodeInvalidAccountableSubtype, 1, "Account", "subtype", `Depository subtype that is not text: 5`, false},
		{"bad date", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"not-a-date","amount":"1"}}`), CodeInvalidDate, 2, "Transaction", "date",
			`line 2: Transaction "t1" date "not-a-date" is not a date in the form YYYY-MM-DD`, false},
		{"budget ends early", []byte(`{"type":"Budget","data":{"id":"b1","start_date":"2024-02-01","end_date":"2024-01-31"}}`), CodeInvalidDate, 1, "Budget", "end_date",
			"end_date 2024-01-31 is before its start_date 2024-02-01", false},
		{"bad number", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-01","amount":"12,34.5"}}`), CodeInvalidNumber, 2, "Transaction", "amount",
			`line 2: Transaction "t1" amount "12,34.5" is not a number`, false},
		{"huge number", lines(acct, `{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01","amount":1e20}}`), CodeInvalidNumber, 2, "Valuation", "amount", "is too large", false},
		{"tiny exponent", lines(acct, `{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01","amount":"1e-200"}}`), CodeInvalidNumber, 2, "Valuation", "amount", "storable size", false},
		{"currency", []byte(`{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Vehicle","currency":"US Dollar"}}`), CodeInvalidCurrency, 1, "Account", "currency",
			`currency "US Dollar" is not a three-letter ISO code`, false},
		{"day of month", []byte(`{"type":"RecurringTransaction","data":{"id":"r1","amount":"5","expected_day_of_month":32,"last_occurrence_date":"2024-01-01","next_expected_date":"2024-02-01"}}`),
			CodeInvalidValue, 1, "RecurringTransaction", "expected_day_of_month", "must be a whole number from 1 to 31", false},
		{"tag_ids not array", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-01","amount":"1","tag_ids":"g1"}}`), CodeInvalidValue, 2, "Transaction", "tag_ids",
			"tag_ids must be an array", false},
		{"duplicate id", lines(acct, `{"type":"Tag","data":{"id":"a1","name":"ok, other kind"}}`, acct), CodeDuplicateSourceID, 3, "Account", "id",
			`line 3: Account source id "a1" is already used by line 1`, false},
		{"duplicate split id", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"1","split_lines":[{"id":"t1","amount":"1"}]}}`),
			CodeDuplicateSourceID, 2, "Transaction", "split_lines[1].id", `Transaction source id "t1" is already used by line 2`, false},
		{"duplicate name", lines(`{"type":"Category","data":{"id":"c1","name":"Groceries"}}`, `{"type":"Category","data":{"id":"c2","name":"Groceries"}}`),
			CodeDuplicateTaxonomyName, 2, "Category", "name", `line 2: Category name "Groceries" is already used by line 1`, false},
		{"duplicate valuation", lines(acct, `{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01","amount":"1"}}`, `{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01T10:00:00Z","amount":"2"}}`),
			CodeDuplicateValuation, 3, "Valuation", "date", `duplicates the valuation for account "a1" on 2024-01-01 first seen on line 2`, false},
		{"split mismatch", lines(acct, splits), CodeSplitMismatch, 2, "Transaction", "split_lines",
			`line 2: Transaction "t1" split line amounts must sum to the transaction amount 100 but sum to 90`, false},
		{"split lines not array", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"1","splits":{"a":1}}}`),
			CodeInvalidSplitLines, 2, "Transaction", "splits", "splits must be an array", false},
		{"split line not object", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"1","split_lines":[1]}}`),
			CodeInvalidSplitLine, 2, "Transaction", "split_lines[1]", "split line 1 must be a JSON object", false},
		{"split line no amount", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"1","split_lines":[{"name":"x"}]}}`),
			CodeMissingFields, 2, "Transaction", "split_lines[1].amount", "split line 1 is missing required field amount", false},
		{"missing account", []byte(txn), CodeMissingReference, 1, "Transaction", "account_id",
			`line 1: Transaction "t1" has account_id "a1", which no Account in the file has`, false},
		{"missing parent", []byte(`{"type":"Category","data":{"id":"c1","name":"Food","parent_id":"c0"}}`), CodeMissingReference, 1, "Category", "parent_id", `has parent_id "c0", which no Category`, false},
		{"missing split tag", lines(acct, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"1","split_lines":[{"amount":"1","tag_ids":["g9"]}]}}`),
			CodeMissingReference, 2, "Transaction", "split_lines[1].tag_ids[1]", `has split_lines[1].tag_ids[1] "g9", which no Tag`, false},
		{"orphan rejected transfer", lines(acct, `{"type":"RejectedTransfer","data":{"inflow_transaction_id":"x","outflow_transaction_id":"y"}}`),
			CodeSkippedMissingReference, 2, "RejectedTransfer", "inflow_transaction_id", `RejectedTransfer has inflow_transaction_id "x", which no Transaction in the file has; it will be skipped during import`, true},
		{"rule operand", []byte(`{"type":"Rule","version":1,"data":{"id":"r1","name":null,"actions":[{"action_type":"set_transaction_category","value":null}]}}`),
			CodeSkippedMissingReference, 1, "Rule", "actions[1].value", "actions[1] (set_transaction_category) names no Category", true},
		{"no importable records", []byte(`{"type":"MysteryType","data":{}}`), CodeNoImportableRecords, 0, "", "", "No importable records were found.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Read(tt.in)
			f.CheckRefs(nil)
			list := f.Problems
			if tt.warning {
				list = f.Warnings
			}
			p := find(list, tt.code)
			if p == nil {
				t.Fatalf("no %s; problems %v warnings %v", tt.code, f.Problems, f.Warnings)
			}
			if p.Line != tt.line || p.Type != tt.typ || p.Field != tt.field || !strings.Contains(p.Message, tt.text) {
				t.Errorf("got %+v\nwant line %d type %q field %q message containing %q", *p, tt.line, tt.typ, tt.field, tt.text)
			}
			if f.Valid() == (len(f.Problems) > 0) && f.Valid() {
				t.Errorf("Valid() true with problems %v", f.Problems)
			}
		})
	}
}

// TestAcceptance covers §7 cases 5, 6 and 10 that need no database.
func TestAcceptance(t *testing.T) {
	t.Run("account and transaction", func(t *testing.T) {
		f := Read(lines(acct, txn))
		f.CheckRefs(nil)
		if !f.Valid() || f.RowsCount != 2 || f.ValidRowsCount != 2 || f.InvalidRowsCount() != 0 {
			t.Fatalf("got valid %v rows %d/%d problems %v", f.Valid(), f.RowsCount, f.ValidRowsCount, f.Problems)
		}
		if len(f.Counts) != 15 || f.Counts["accounts"] != 1 || f.Counts["transactions"] != 1 || f.Counts["trades"] != 0 {
			t.Errorf("counts %v", f.Counts)
		}
		if f.RecordTypeCounts["Account"] != 1 || f.RecordTypeCounts["Transaction"] != 1 || len(f.RecordTypeCounts) != 2 {
			t.Errorf("record type counts %v", f.RecordTypeCounts)
		}
		if f.Records[1].SourceID != "t1" || f.Records[1].Line != 2 {
			t.Errorf("record %+v", f.Records[1])
		}
	})
	t.Run("reference to a later line", func(t *testing.T) {
		f := Read(lines(txn, "", acct))
		if !f.Valid() || len(f.UnresolvedRefs) != 0 {
			t.Fatalf("problems %v refs %v", f.Problems, f.UnresolvedRefs)
		}
	})
	t.Run("not ndjson", func(t *testing.T) {
		f := Read([]byte("not ndjson"))
		if f.Valid() || f.InvalidRowsCount() != 1 || codes(f.Problems)[0] != CodeInvalidJSON || FirstLineOK([]byte("not ndjson")) {
			t.Fatalf("got %+v", f)
		}
	})
	t.Run("array line plus incomplete transaction", func(t *testing.T) {
		f := Read(lines("[]", `{"type":"Transaction","data":{"id":"transaction-1"}}`))
		if f.RowsCount != 2 || f.ValidRowsCount != 1 || f.InvalidRowsCount() != 1 || len(f.Problems) <= 1 {
			t.Fatalf("rows %d valid %d problems %v", f.RowsCount, f.ValidRowsCount, f.Problems)
		}
		if got := codes(f.Problems); got[0] != CodeInvalidRecord || got[1] != CodeMissingFields {
			t.Errorf("codes %v", got)
		}
	})
	t.Run("unsupported counted in rows not entities", func(t *testing.T) {
		f := Read(lines(acct, `{"type":"MysteryType","data":{}}`))
		if f.RowsCount != 2 || f.ValidRowsCount != 1 || f.Counts["accounts"] != 1 || f.RecordTypeCounts["MysteryType"] != 1 || f.Valid() {
			t.Fatalf("got %+v", f)
		}
	})
	t.Run("null rule name and orphan rejected transfer", func(t *testing.T) {
		f := Read(lines(`{"type":"Rule","version":1,"data":{"id":"r1","name":null,"resource_type":"transaction","conditions":[],"actions":[{"action_type":"set_transaction_category","value":"Food"}]}}`,
			`{"type":"RejectedTransfer","data":{"inflow_transaction_id":"x","outflow_transaction_id":"y"}}`))
		if !f.Valid() {
			t.Fatalf("optional refs must not block: %v %v", f.Problems, f.UnresolvedRefs)
		}
		f.CheckRefs(nil)
		if !f.Valid() || len(f.Warnings) != 2 || f.Warnings[0].Code != CodeSkippedMissingReference {
			t.Fatalf("problems %v warnings %v", f.Problems, f.Warnings)
		}
		if f.Counts["rules"] != 1 || f.Counts["rejected_transfers"] != 1 {
			t.Errorf("counts %v", f.Counts)
		}
	})
	t.Run("splits summing to the amount", func(t *testing.T) {
		f := Read(lines(acct, strings.Replace(splits, `"30"`, `40`, 1)))
		f.CheckRefs(nil)
		if !f.Valid() {
			t.Fatalf("problems %v", f.Problems)
		}
		// Split children are not separate lines, so they are not counted (§6.4).
		if f.Counts["transactions"] != 1 {
			t.Errorf("counts %v", f.Counts)
		}
	})
	t.Run("transfer may name a split child", func(t *testing.T) {
		f := Read(lines(acct, strings.Replace(splits, `"30"`, `40`, 1), txn2,
			`{"type":"Transfer","data":{"inflow_transaction_id":"s1","outflow_transaction_id":"t2"}}`))
		if !f.Valid() || len(f.UnresolvedRefs) != 0 {
			t.Fatalf("problems %v refs %v", f.Problems, f.UnresolvedRefs)
		}
	})
}

const txn2 = `{"type":"Transaction","data":{"id":"t2","account_id":"a1","date":"2024-01-02","amount":"-60"}}`

// TestUnresolvedRefs checks the database hook: references the file cannot resolve wait for
// the caller, and only those it cannot find either become errors.
func TestUnresolvedRefs(t *testing.T) {
	f := Read(lines(`{"type":"Valuation","data":{"account_id":"db-acct","date":"2024-01-14","amount":"1"}}`,
		`{"type":"Category","data":{"id":"c1","name":"Food","parent_id":"db-parent"}}`))
	if len(f.Problems) != 0 || len(f.UnresolvedRefs) != 2 || f.Valid() {
		t.Fatalf("problems %v refs %v valid %v", f.Problems, f.UnresolvedRefs, f.Valid())
	}
	if r := f.UnresolvedRefs[0]; r.Line != 1 || r.Field != "account_id" || r.Target != "Account" || r.ID != "db-acct" {
		t.Errorf("ref %+v", r)
	}
	f.CheckRefs(func(r Ref) bool { return r.ID == "db-acct" })
	if len(f.Problems) != 1 || f.Problems[0].Field != "parent_id" || !strings.Contains(f.Problems[0].Message, "in the file or the family") || f.Valid() {
		t.Fatalf("problems %v", f.Problems)
	}

	// Sure's strict preflight: nothing outside the file counts.
	f = Read(lines(`{"type":"Valuation","data":{"account_id":"db-acct","date":"2024-01-14","amount":"1"}}`,
		`{"type":"Category","data":{"id":"c1","name":"Food","parent_id":"db-parent"}}`))
	f.CheckRefs(nil)
	if got := codes(f.Problems); len(got) != 2 || got[0] != CodeMissingReference || got[1] != CodeMissingReference {
		t.Fatalf("codes %v", got)
	}
}

func TestFirstLineOK(t *testing.T) {
	for in, want := range map[string]bool{
		`{"type":"Account","data":{"id":"account_1","name":"Checking"}}`: true,
		"\n\n  " + `{"type":"X","data":null}` + "\nnot json":             true,
		"\xEF\xBB\xBF" + `{"type":"X","data":{}}`:                        true,
		"not ndjson":                      false,
		"[]":                              false,
		`{"type":"Account"}`:              false,
		"":                                false,
		`{"type":"A","data":{}} trailing`: false,
	} {
		if got := FirstLineOK([]byte(in)); got != want {
			t.Errorf("FirstLineOK(%q) = %v, want %v", in, got, want)
		}
	}
}

// bigFile builds a file of n transactions over a few accounts, about 250 bytes a line.
func bigFile(n int) []byte {
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, `{"type":"Account","data":{"id":"acct-%d","name":"Account %d","balance":"1000.00","currency":"USD","accountable_type":"Depository"}}`+"\n", i, i)
	}
	for i := range n {
		fmt.Fprintf(&b, `{"type":"Transaction","data":{"id":"5f0c7e9a-1b2c-4d3e-8f9a-%012d","account_id":"acct-%d","date":"2024-%02d-%02d","amount":"-%d.%02d","currency":"USD","name":"Grocery store purchase number %d","notes":"","excluded":false,"kind":"standard"}}`+"\n",
			i, i%5, i%12+1, i%28+1, i%500, i%100, i)
	}
	return []byte(b.String())
}

func TestBigFile(t *testing.T) {
	f := Read(bigFile(1000))
	if !f.Valid() || f.Counts["transactions"] != 1000 || f.Counts["accounts"] != 5 {
		t.Fatalf("problems %v counts %v", f.Problems[:min(3, len(f.Problems))], f.Counts)
	}
}

func BenchmarkRead(b *testing.B) {
	content := bigFile(40000)
	b.SetBytes(int64(len(content)))
	b.ReportMetric(float64(len(content))/1e6, "MB")
	for b.Loop() {
		if f := Read(content); !f.Valid() {
			b.Fatal(f.Problems[0])
		}
	}
}

func TestTwoBudgetsForOnePeriod(t *testing.T) {
	f := Read([]byte(`{"type":"Budget","data":{"id":"b1","start_date":"2024-01-01","end_date":"2024-01-31"}}
{"type":"Budget","data":{"id":"b2","start_date":"2024-01-01","end_date":"2024-01-31"}}`))
	if len(f.Problems) != 1 || f.Problems[0].Code != CodeDuplicateBudgetPeriod || f.Problems[0].Line != 2 || f.Problems[0].Field != "start_date" {
		t.Fatalf("problems %+v", f.Problems)
	}
}
