package parse

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// CSVOptions says how to read a CSV file.
type CSVOptions struct {
	Separator  rune // ',' or ';' (zero means ',')
	RowsToSkip int  // physical lines dropped before the header (preambles)
	// Headers, when set, name the columns of a file that has no header row: every row after
	// the skipped lines is a record.
	Headers []string
	// Quote is the character that quotes fields: '"' (zero means '"') or '\''.
	Quote rune
}

// SwapQuotes exchanges every ' and " of s. A file quoted with ' becomes one quoted with ",
// which encoding/csv reads, and swapping each field back gives its text: the exchange is its
// own inverse, so no character is lost.
func SwapQuotes(s string) string {
	if !strings.ContainsAny(s, `'"`) {
		return s
	}
	// Byte by byte: both are ASCII, which never occurs inside a UTF-8 sequence, and bytes
	// that are not UTF-8 stay as they are.
	b := []byte(s)
	for i, c := range b {
		switch c {
		case '\'':
			b[i] = '"'
		case '"':
			b[i] = '\''
		}
	}
	return string(b)
}

// CSVTable is a CSV file read as a header row and data records.
//
// Value caches its column index in the table; tables returned by CSV come indexed, so they
// may be read from several goroutines.
type CSVTable struct {
	Headers []string    // as in the file, trimmed
	Records []CSVRecord // data rows, blank lines left out
	index   map[string]int
}

// CSVRecord is one data row of a CSV file.
type CSVRecord struct {
	Line   int      // 1-based physical line in the original text (before skipping) where the record starts
	Fields []string // trimmed
}

// CSVError is a problem at a line of a CSV file.
type CSVError struct {
	Line int // 1-based physical line in the original text
	Msg  string
}

// Error returns the problem after its line, as in "line 4: a quoted field is not closed".
func (e *CSVError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// csvEnd is a last line added after the text. encoding/csv, with LazyQuotes, silently ends a
// quoted field that is still open at the end of the input; if this line comes back as a record
// of its own, every quote was closed, and if it does not, a quoted field swallowed it.
const csvEnd = "\x00end of text\x00"

// CSV reads text (already UTF-8) as a table with a header row.
//
// Stray quotes inside unquoted fields are kept as text; a quoted field that is never closed is
// an error. Records may have more or fewer fields than the header. Rows whose fields are all
// blank are left out, so the header is the first row with a non-blank field.
func CSV(text string, opts CSVOptions) (*CSVTable, error) {
	sep := opts.Separator
	if sep == 0 {
		sep = ','
	}
	if sep != ',' && sep != ';' && sep != '\t' && sep != '|' {
		return nil, fmt.Errorf(`separator %q is not supported: use ",", ";", a tab or "|"`, sep)
	}
	switch opts.Quote {
	case 0, '"':
	case '\'':
		text = SwapQuotes(text)
	default:
		return nil, fmt.Errorf(`quote %q is not supported: use " or '`, opts.Quote)
	}
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.Contains(text, "\n") {
		// Classic Mac OS ended lines with a carriage return alone.
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	skip := opts.RowsToSkip
	rest, err := skipLines(text, skip)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(rest) == "" {
		return nil, emptyFile(skip)
	}

	r := csv.NewReader(io.MultiReader(strings.NewReader(rest), strings.NewReader("\n"+csvEnd)))
	r.Comma = sep
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true // so that `a, "b, c"` reads as two fields, as people mean it

	t := &CSVTable{Records: make([]CSVRecord, 0, strings.Count(rest, "\n"))}
	if len(opts.Headers) > 0 {
		t.Headers = slices.Clone(opts.Headers)
	}
	// Each record is kept back until the next one arrives, since only the last may be csvEnd.
	var pending []string
	pendingLine, lastFieldLine := 0, 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvReadError(err, skip)
		}
		if pending != nil {
			t.add(pending, pendingLine)
		}
		line, _ := r.FieldPos(0)
		lastLine, _ := r.FieldPos(len(rec) - 1)
		pending, pendingLine, lastFieldLine = rec, line+skip, lastLine+skip
	}
	if len(pending) != 1 || pending[0] != csvEnd {
		return nil, &CSVError{Line: lastFieldLine, Msg: "a quoted field is not closed"}
	}
	if t.Headers == nil {
		return nil, emptyFile(skip)
	}
	if opts.Quote == '\'' {
		recs := recordFields(t.Records)
		if len(opts.Headers) == 0 {
			recs = append(recs, t.Headers)
		}
		for _, rec := range recs {
			for i, f := range rec {
				rec[i] = SwapQuotes(f)
			}
		}
	}
	numberRepeats(t.Headers)
	index, duplicates := indexHeaders(t.Headers)
	if duplicates != nil {
		return nil, fmt.Errorf("CSV headers normalize to duplicate columns: %s", strings.Join(duplicates, ", "))
	}
	t.index = index
	return t, nil
}

// HeaderKeys are headers as the columns of a file are known: repeats numbered as CSV numbers
// them, then normalized (NormalizeHeader).
func HeaderKeys(headers []string) []string {
	keys := make([]string, len(headers))
	for i, h := range headers {
		keys[i] = strings.TrimSpace(h)
	}
	numberRepeats(keys)
	for i, h := range keys {
		keys[i] = NormalizeHeader(h)
	}
	return keys
}

// recordFields are the fields of each record, to change in place.
func recordFields(recs []CSVRecord) [][]string {
	out := make([][]string, len(recs))
	for i := range recs {
		out[i] = recs[i].Fields
	}
	return out
}

// numberRepeats renames each header that repeats an earlier one word for word, as banks do
// ("Saldo;Währung;Betrag;Währung"), to "Währung (2)", so that every column can be named.
// Headers that differ but normalize alike ("date" and "date*") are left to clash.
func numberRepeats(headers []string) {
	seen := map[string]int{}
	for i, h := range headers {
		if h == "" {
			continue
		}
		seen[h]++
		if n := seen[h]; n > 1 {
			headers[i] = fmt.Sprintf("%s (%d)", h, n)
		}
	}
}

// add trims the fields of rec and keeps it as the header, if it is the first, or as a record,
// unless every field is blank.
func (t *CSVTable) add(rec []string, line int) {
	blank := true
	for i, f := range rec {
		rec[i] = strings.TrimSpace(f)
		blank = blank && rec[i] == ""
	}
	switch {
	case blank:
	case t.Headers == nil:
		t.Headers = rec
	default:
		t.Records = append(t.Records, CSVRecord{Line: line, Fields: rec})
	}
}

// skipLines drops the first n physical lines of text.
func skipLines(text string, n int) (string, error) {
	if n < 0 {
		return "", fmt.Errorf("rows to skip (%d) must not be negative", n)
	}
	if n == 0 {
		return text, nil
	}
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	if n >= lines {
		return "", fmt.Errorf("rows to skip (%d) must be less than the number of lines in the file (%d)", n, lines)
	}
	for range n {
		text = text[strings.IndexByte(text, '\n')+1:]
	}
	return text, nil
}

// ErrEmpty is a file with no line that holds a value: blank, or only separators.
var ErrEmpty = errors.New("the file is empty")

func emptyFile(skipped int) error {
	switch skipped {
	case 0:
		return ErrEmpty
	case 1:
		return fmt.Errorf("%w after its first line, which is skipped", ErrEmpty)
	default:
		return fmt.Errorf("%w after its first %d lines, which are skipped", ErrEmpty, skipped)
	}
}

// csvReadError turns an encoding/csv error into a CSVError on the original line. With the
// reader's options only read failures are expected, but a parse error must still name its line.
func csvReadError(err error, skipped int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	msg := pe.Err.Error()
	switch {
	case errors.Is(pe.Err, csv.ErrQuote):
		msg = `extra or missing " in quoted field`
	case errors.Is(pe.Err, csv.ErrBareQuote):
		msg = `a " appears in a field that is not quoted`
	}
	return &CSVError{Line: pe.Line + skipped, Msg: msg}
}

// indexHeaders maps the normalized headers to their columns, leaving blank headers out; it
// also returns, in file order, the headers that share their normalized form with another.
func indexHeaders(headers []string) (map[string]int, []string) {
	index := make(map[string]int, len(headers))
	var clash map[int]bool
	for i, h := range headers {
		key := NormalizeHeader(h)
		if key == "" {
			continue
		}
		if j, ok := index[key]; ok {
			if clash == nil {
				clash = map[int]bool{}
			}
			clash[i], clash[j] = true, true
			continue
		}
		index[key] = i
	}
	var duplicates []string
	for i, h := range headers {
		if clash[i] {
			duplicates = append(duplicates, h)
		}
	}
	return index, duplicates
}

// NormalizeHeader lower-cases a header, removes '*' characters, trims, and turns runs of
// spaces, '-' and '_' into one '_'.
func NormalizeHeader(h string) string {
	h = strings.TrimSpace(strings.ToLower(strings.ReplaceAll(h, "*", "")))
	var b strings.Builder
	b.Grow(len(h))
	joined := false
	for _, r := range h {
		if unicode.IsSpace(r) || r == '-' || r == '_' {
			if !joined {
				b.WriteByte('_')
			}
			joined = true
			continue
		}
		joined = false
		b.WriteRune(r)
	}
	return b.String()
}

// Index maps normalized headers to their columns; blank headers have no entry. The map is the
// caller's to keep and change.
func (t *CSVTable) Index() map[string]int { return maps.Clone(t.columns()) }

// Value returns the trimmed cell of record r under the header whose normalized form is key, or
// "" when there is no such header or r is too short to reach it.
func (t *CSVTable) Value(r CSVRecord, key string) string {
	col, ok := t.columns()[key]
	if !ok || col >= len(r.Fields) {
		return ""
	}
	return r.Fields[col]
}

// columns returns the header index, building it for tables that were not made by CSV.
func (t *CSVTable) columns() map[string]int {
	if t.index == nil {
		t.index, _ = indexHeaders(t.Headers)
	}
	return t.index
}
