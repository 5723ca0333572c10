// Package native reads NativeImport files (Sure's NDJSON family export, see
// reference/sure-imports.md §6) and runs the preflight checks that need no database.
//
// Read never fails: every bad line becomes a Problem, so a caller can show the user all of
// them at once. References between records are resolved against the file only; references
// the file cannot resolve are collected in File.UnresolvedRefs rather than reported, because
// Tally merges a file into an existing family and a reference may name a record the family
// (or an earlier chunk of an import session) already holds. The caller checks those against
// the database and then calls File.CheckRefs, which turns the ones still missing into
// missing_reference errors (or skipped_missing_reference warnings). Until CheckRefs has run,
// Valid treats unresolved required references as blocking.
package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Record is one valid line of the file: a supported type whose data is a JSON object.
type Record struct {
	Line     int            // 1-based physical line number, blank lines included
	Type     string         // the record type, e.g. "Transaction"
	Data     map[string]any // the data object; numbers are json.Number so no precision is lost
	SourceID string         // data.id as a string, "" when absent
}

// File is a read NDJSON file with its preflight results.
type File struct {
	Records  []Record  // the valid lines, in file order
	Problems []Problem // blocking errors, in line order within each check
	// Counts is expected_record_counts (§6.4): for each of the 15 entity keys, the lines of
	// that type that carry a data key. All 15 keys are present.
	Counts map[string]int
	// RecordTypeCounts counts lines by their "type" value, unsupported types included.
	RecordTypeCounts map[string]int
	RowsCount        int       // non-blank lines
	ValidRowsCount   int       // lines that are an object with a supported type and object data
	Warnings         []Problem // non-blocking findings
	// UnresolvedRefs lists the references to source ids that no record in the file has.
	// They are not errors yet: the caller resolves them against the database and calls
	// CheckRefs.
	UnresolvedRefs []Ref
	// Lines is the file's physical line count, for callers that show line numbers.
	Lines int

	opts    Options
	defined map[string]map[string]struct{} // the source ids this file defines, by namespace
}

// locate marks every finding with the chunk it is in, for session chunks.
func (f *File) locate() {
	if f.opts.Chunk == 0 {
		return
	}
	for _, list := range [][]Problem{f.Problems, f.Warnings} {
		for i := range list {
			list[i].Chunk = f.opts.Chunk
			if strings.HasPrefix(list[i].Message, "line ") {
				list[i].Message = fmt.Sprintf("chunk %d %s", f.opts.Chunk, list[i].Message)
			} else {
				list[i].Message = fmt.Sprintf("chunk %d: %s", f.opts.Chunk, list[i].Message)
			}
		}
	}
}

// Problem is one preflight error or warning, located as precisely as the file allows.
type Problem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Chunk   int    `json:"chunk,omitempty"`
	Line    int    `json:"line,omitempty"`
	Type    string `json:"record_type,omitempty"`
	Field   string `json:"field,omitempty"`
}

// Ref is a reference from a record to another record's source id that the file does not
// resolve.
type Ref struct {
	Line     int    // the referring line
	Type     string // the referring record's type, e.g. "Transaction"
	SourceID string // the referring record's id, "" when it has none
	Field    string // the referring field, e.g. "account_id", "tag_ids[2]", "split_lines[1].category_id"
	Target   string // the record type referred to: Account, Category, Tag, Merchant, Transaction or Budget
	ID       string // the source id referred to
	// Optional marks references whose absence only skips the record (RejectedTransfer sides,
	// rule operands): CheckRefs reports them as warnings, and Valid ignores them.
	Optional bool
}

// Types lists the 15 supported record types in Sure's processing order.
var Types = []string{"Account", "Balance", "Category", "Tag", "Merchant", "RecurringTransaction",
	"Transaction", "Transfer", "RejectedTransfer", "Trade", "Holding", "Valuation", "Budget",
	"BudgetCategory", "Rule"}

// EntityKeys maps each supported record type to its expected_record_counts key.
var EntityKeys = map[string]string{
	"Account": "accounts", "Balance": "balances", "Category": "categories", "Tag": "tags",
	"Merchant": "merchants", "RecurringTransaction": "recurring_transactions",
	"Transaction": "transactions", "Transfer": "transfers", "RejectedTransfer": "rejected_transfers",
	"Trade": "trades", "Holding": "holdings", "Valuation": "valuations", "Budget": "budgets",
	"BudgetCategory": "budget_categories", "Rule": "rules",
}

// Problem codes. The names are Sure's, so clients written against Sure keep working.
const (
	CodeInvalidJSON               = "invalid_json"
	CodeInvalidRecord             = "invalid_ndjson_record"
	CodeUnsupportedType           = "unsupported_record_type"
	CodeNoDataRows                = "no_data_rows"
	CodeMissingFields             = "missing_required_fields"
	CodeInvalidAccountableType    = "invalid_accountable_type"
	CodeInvalidAccountableSubtype = "invalid_accountable_subtype"
	CodeInvalidSplitLines         = "invalid_split_lines"
	CodeInvalidSplitLine          = "invalid_split_line"
	CodeSplitMismatch             = "split_amount_mismatch"
	CodeDuplicateSourceID         = "duplicate_source_id"
	CodeDuplicateTaxonomyName     = "duplicate_taxonomy_name"
	CodeDuplicateValuation        = "duplicate_valuation"
	CodeMissingReference          = "missing_reference"
	CodeSkippedMissingReference   = "skipped_missing_reference" // warning
	CodeNoImportableRecords       = "no_importable_records"     // warning
	// Tally's additions: Sure fails (or silently skips) these at publish; Tally reports them
	// before anything is written.
	CodeInvalidDate           = "invalid_date"
	CodeInvalidNumber         = "invalid_number"
	CodeInvalidCurrency       = "invalid_currency"
	CodeInvalidValue          = "invalid_value"
	CodeDuplicateExternalID   = "duplicate_external_id"
	CodeDuplicateBudgetPeriod = "duplicate_budget_period"
	CodeTextClipped           = "text_clipped" // warning: a text over its bound, kept cut
)

// InvalidRowsCount returns the non-blank lines that are not valid records.
func (f *File) InvalidRowsCount() int { return f.RowsCount - f.ValidRowsCount }

// Valid reports whether the file has no problems, no unresolved required reference and at
// least one supported record.
func (f *File) Valid() bool {
	if len(f.Problems) > 0 {
		return false
	}
	for _, r := range f.UnresolvedRefs {
		if !r.Optional {
			return false
		}
	}
	for _, n := range f.Counts {
		if n > 0 {
			return true
		}
	}
	return false
}

// CheckRefs reports every unresolved reference for which exists returns false (all of them
// when exists is nil, which is Sure's strict preflight) as missing_reference, or as a
// skipped_missing_reference warning when optional, and empties UnresolvedRefs.
func (f *File) CheckRefs(exists func(Ref) bool) {
	where := "the file"
	switch {
	case f.opts.Chunk > 0:
		where = "this chunk or an earlier one"
	case exists != nil:
		where = "the file or the family"
	}
	findings := len(f.Problems)
	warnings := len(f.Warnings)
	defer func() {
		// Locate only what this call added: the rest is located already.
		g := File{opts: f.opts, Problems: f.Problems[findings:], Warnings: f.Warnings[warnings:]}
		g.locate()
	}()
	for _, r := range f.UnresolvedRefs {
		if exists != nil && exists(r) {
			continue
		}
		p := Problem{Code: CodeMissingReference, Line: r.Line, Type: r.Type, Field: r.Field,
			Message: fmt.Sprintf("line %d: %s has %s %q, which no %s in %s has", r.Line, label(r.Type, r.SourceID), r.Field, r.ID, r.Target, where)}
		if r.Optional {
			p.Code = CodeSkippedMissingReference
			p.Message += "; it will be skipped during import"
			f.Warnings = append(f.Warnings, p)
		} else {
			f.Problems = append(f.Problems, p)
		}
	}
	f.UnresolvedRefs = nil
}

// FirstLineOK reports whether the first non-blank line is a JSON object with "type" and
// "data" (the create endpoint's invalid_ndjson check).
func FirstLineOK(content []byte) bool {
	content = bytes.TrimPrefix(content, utf8BOM)
	for len(content) > 0 {
		var line []byte
		line, content, _ = bytes.Cut(content, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		obj, err := decodeLine(line)
		if err != nil {
			return false
		}
		m, ok := obj.(map[string]any)
		if !ok {
			return false
		}
		_, hasType := m["type"]
		_, hasData := m["data"]
		return hasType && hasData
	}
	return false
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeLine decodes one JSON value and rejects trailing data, which json.Unmarshal would
// also do but without keeping numbers exact.
func decodeLine(line []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("unexpected end of JSON input")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// Read parses content (already size-checked by the caller) and runs every preflight check
// that does not need the database. It never fails on bad lines: each becomes a Problem.
func Read(content []byte) *File { return ReadWith(content, Options{}) }

// Options read one chunk of an import session.
type Options struct {
	// Chunk is the chunk's sequence number; messages then say "chunk 2 line 5".
	Chunk int
	// Known holds the source ids that earlier chunks define: references to them resolve, and
	// defining one again is a duplicate.
	Known *Known
}

// Known is the set of source ids defined so far, by id namespace (Account, Category, ...).
type Known struct {
	ids map[string]map[string]int // namespace → source id → chunk that defines it
}

// NewKnown returns an empty set.
func NewKnown() *Known { return &Known{ids: map[string]map[string]int{}} }

// Add records the ids f defines, as defined by chunk.
func (k *Known) Add(f *File, chunk int) {
	for kind, ids := range f.defined {
		m := k.ids[kind]
		if m == nil {
			m = make(map[string]int, len(ids))
			k.ids[kind] = m
		}
		for id := range ids {
			m[id] = chunk
		}
	}
}

func (k *Known) chunkOf(kind, id string) (int, bool) {
	if k == nil {
		return 0, false
	}
	c, ok := k.ids[kind][id]
	return c, ok
}

// ReadWith is Read for one chunk of an import session.
func ReadWith(content []byte, opts Options) *File {
	f := &File{Counts: make(map[string]int, len(EntityKeys)), RecordTypeCounts: map[string]int{}, opts: opts}
	for _, k := range EntityKeys {
		f.Counts[k] = 0
	}
	content = bytes.TrimPrefix(content, utf8BOM)
	if len(content) > 0 {
		f.Lines = bytes.Count(content, []byte{'\n'}) + 1
	}
	n := 0
	for len(content) > 0 {
		var line []byte
		line, content, _ = bytes.Cut(content, []byte{'\n'})
		n++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		f.RowsCount++
		f.readLine(n, line)
	}
	if f.RowsCount == 0 {
		f.Problems = append(f.Problems, Problem{Code: CodeNoDataRows, Message: "No data rows were found."})
		f.locate()
		return f
	}
	newChecker(f).run()
	f.locate()
	total := 0
	for _, c := range f.Counts {
		total += c
	}
	if total == 0 {
		f.Warnings = append(f.Warnings, Problem{Code: CodeNoImportableRecords, Message: "No importable records were found."})
	}
	return f
}

// readLine checks one non-blank line's shape and, when valid, keeps it as a Record.
func (f *File) readLine(n int, line []byte) {
	bad := func(code, msg string) {
		f.Problems = append(f.Problems, Problem{Code: code, Line: n, Message: fmt.Sprintf("line %d: %s", n, msg)})
	}
	v, err := decodeLine(line)
	if err != nil {
		bad(CodeInvalidJSON, "not valid JSON: "+strings.TrimPrefix(err.Error(), "json: "))
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		bad(CodeInvalidRecord, "must be a JSON object")
		return
	}
	rawType, hasType := obj["type"]
	rawData, hasData := obj["data"]
	typ, typeIsString := rawType.(string)
	if typeIsString {
		f.RecordTypeCounts[typ]++
		if key, ok := EntityKeys[typ]; ok && hasData {
			f.Counts[key]++
		}
	}
	switch {
	case !hasType || !hasData:
		var missing []string
		if !hasType {
			missing = append(missing, "type")
		}
		if !hasData {
			missing = append(missing, "data")
		}
		bad(CodeInvalidRecord, "must include type and data (missing "+strings.Join(missing, " and ")+")")
		f.Problems[len(f.Problems)-1].Field = missing[0]
		if typeIsString {
			f.Problems[len(f.Problems)-1].Type = typ
		}
		return
	case !typeIsString:
		bad(CodeInvalidRecord, "type must be a string")
		f.Problems[len(f.Problems)-1].Field = "type"
		return
	}
	if _, ok := EntityKeys[typ]; !ok {
		bad(CodeUnsupportedType, fmt.Sprintf("has unsupported record type %s", typ))
		f.Problems[len(f.Problems)-1].Type = typ
		f.Problems[len(f.Problems)-1].Field = "type"
		return
	}
	data, ok := rawData.(map[string]any)
	if !ok {
		bad(CodeInvalidRecord, typ+" data must be a JSON object")
		f.Problems[len(f.Problems)-1].Type = typ
		f.Problems[len(f.Problems)-1].Field = "data"
		return
	}
	f.ValidRowsCount++
	id, _ := scalarString(data["id"])
	f.Records = append(f.Records, Record{Line: n, Type: typ, Data: data, SourceID: id})
}

// label names a record in messages: Transaction "t-9", or just Balance when it has no id.
func label(typ, id string) string {
	if id == "" {
		return typ
	}
	return fmt.Sprintf("%s %q", typ, id)
}

// scalarString returns a string or JSON number as a string; ids are sometimes numeric.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}
