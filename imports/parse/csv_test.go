package parse

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// row is a record as the tests write it: its line and its fields.
type row struct {
	line   int
	fields []string
}

func rowsOf(t *CSVTable) []row {
	out := make([]row, len(t.Records))
	for i, r := range t.Records {
		out[i] = row{r.Line, r.Fields}
	}
	return out
}

func TestCSV(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		opts    CSVOptions
		headers []string
		rows    []row
		wantErr string
	}{
		{
			name:    "comma-separated",
			text:    "date,amount,name\n2024-01-05,12.50,Coffee\n2024-01-06,-3.00,Bus\n",
			headers: []string{"date", "amount", "name"},
			rows:    []row{{2, []string{"2024-01-05", "12.50", "Coffee"}}, {3, []string{"2024-01-06", "-3.00", "Bus"}}},
		},
		{
			name:    "semicolon-separated with decimal commas",
			text:    "Datum;Betrag;Name\n05.01.2024;12,50;Kaffee\n",
			opts:    CSVOptions{Separator: ';'},
			headers: []string{"Datum", "Betrag", "Name"},
			rows:    []row{{2, []string{"05.01.2024", "12,50", "Kaffee"}}},
		},
		{
			name:    "zero separator means comma",
			text:    "a;b,c\n1;2,3",
			opts:    CSVOptions{Separator: 0},
			headers: []string{"a;b", "c"},
			rows:    []row{{2, []string{"1;2", "3"}}},
		},
		{
			name:    "rows to skip drop a preamble and keep the original line numbers",
			text:    "Bank of Example\nAccount 1234\nExported 2024-01-31\ndate,amount\n2024-01-05,1.00\n\n2024-01-06,2.00\n",
			opts:    CSVOptions{RowsToSkip: 3},
			headers: []string{"date", "amount"},
			rows:    []row{{5, []string{"2024-01-05", "1.00"}}, {7, []string{"2024-01-06", "2.00"}}},
		},
		{
			name:    "a skipped preamble may hold unbalanced quotes",
			text:    "Statement \"January\nname,amount\nx,1\n",
			opts:    CSVOptions{RowsToSkip: 1},
			headers: []string{"name", "amount"},
			rows:    []row{{3, []string{"x", "1"}}},
		},
		{
			name:    "quoted fields hold separators, quotes and newlines",
			text:    "name,memo,amount\n\"Smith, J\",\"line one\nline two\",5\n\"He said \"\"hi\"\"\",x,6\n",
			headers: []string{"name", "memo", "amount"},
			rows: []row{
				{2, []string{"Smith, J", "line one\nline two", "5"}},
				{4, []string{`He said "hi"`, "x", "6"}},
			},
		},
		{
			name:    "a record spanning lines starts at its first line, after skipped rows too",
			text:    "preamble\na,b\n1,\"x\n\ny\"\n2,z\n",
			opts:    CSVOptions{RowsToSkip: 1},
			headers: []string{"a", "b"},
			rows:    []row{{3, []string{"1", "x\n\ny"}}, {6, []string{"2", "z"}}},
		},
		{
			name:    "stray quotes in unquoted fields are kept",
			text:    "name,size\nJoe's 12\" pizza,1\n",
			headers: []string{"name", "size"},
			rows:    []row{{2, []string{`Joe's 12" pizza`, "1"}}},
		},
		{
			name:    "a quote after a space starts a quoted field",
			text:    "a, b\n1, \"2, 3\"\n",
			headers: []string{"a", "b"},
			rows:    []row{{2, []string{"1", "2, 3"}}},
		},
		{
			name:    "blank lines and rows of empty fields are left out",
			text:    "\n\na,b\n\n1,2\n   \n,,\n ; \n3,4\n\n",
			headers: []string{"a", "b"},
			rows:    []row{{5, []string{"1", "2"}}, {8, []string{";"}}, {9, []string{"3", "4"}}},
		},
		{
			name:    "CRLF line endings",
			text:    "a,b\r\n1,2\r\n\r\n3,\"x\r\ny\"\r\n",
			headers: []string{"a", "b"},
			rows:    []row{{2, []string{"1", "2"}}, {4, []string{"3", "x\ny"}}},
		},
		{
			name:    "carriage returns alone end lines",
			text:    "a,b\r1,2\r3,4",
			headers: []string{"a", "b"},
			rows:    []row{{2, []string{"1", "2"}}, {3, []string{"3", "4"}}},
		},
		{
			name:    "headers and fields are trimmed",
			text:    "  Date  ,\tAmount \n 2024-01-05 , 1.00\t\n",
			headers: []string{"Date", "Amount"},
			rows:    []row{{2, []string{"2024-01-05", "1.00"}}},
		},
		{
			name:    "records may be shorter or longer than the header",
			text:    "a,b,c\n1\n1,2,3,4\n",
			headers: []string{"a", "b", "c"},
			rows:    []row{{2, []string{"1"}}, {3, []string{"1", "2", "3", "4"}}},
		},
		{
			name:    "a byte order mark before the header is dropped",
			text:    "\ufeffdate,amount\n2024-01-05,1\n",
			headers: []string{"date", "amount"},
			rows:    []row{{2, []string{"2024-01-05", "1"}}},
		},
		{
			name:    "a header without data rows is not an error",
			text:    "date,amount\n\n",
			headers: []string{"date", "amount"},
			rows:    []row{},
		},
		{
			name:    "a file without a final newline",
			text:    "a\n1",
			headers: []string{"a"},
			rows:    []row{{2, []string{"1"}}},
		},
		{
			name:    "a quoted field closed at the very end",
			text:    "a\n\"1\"",
			headers: []string{"a"},
			rows:    []row{{2, []string{"1"}}},
		},
		{
			name:    "blank headers may repeat",
			text:    "date,,amount,\n1,,2,\n",
			headers: []string{"date", "", "amount", ""},
			rows:    []row{{2, []string{"1", "", "2", ""}}},
		},
		{
			name:    "unclosed quote names the line where the field opens",
			text:    "a,b\n1,2\n3,\"open\n4,5\n6,7\n",
			wantErr: "line 3: a quoted field is not closed",
		},
		{
			name:    "unclosed quote after skipped rows names the original line",
			text:    "x\ny\na,b\n1,2\n3,4,\"open\n",
			opts:    CSVOptions{RowsToSkip: 2},
			wantErr: "line 5: a quoted field is not closed",
		},
		{
			name:    "unclosed quote in the header",
			text:    "a,\"b\n1,2\n",
			wantErr: "line 1: a quoted field is not closed",
		},
		{
			name:    "a quote followed by text does not close a field",
			text:    "a\n\"one\"two\n",
			wantErr: "line 2: a quoted field is not closed",
		},
		{
			name:    "duplicate normalized headers",
			text:    "date,Amount,date*,name\n",
			wantErr: "CSV headers normalize to duplicate columns: date, date*",
		},
		{
			name:    "several duplicate groups are listed in file order",
			text:    "Transaction Date,amount,transaction-date,AMOUNT\n",
			wantErr: "CSV headers normalize to duplicate columns: Transaction Date, amount, transaction-date, AMOUNT",
		},
		{
			name:    "empty text",
			text:    "",
			wantErr: "the file is empty",
		},
		{
			name:    "whitespace only",
			text:    " \n\t\r\n",
			wantErr: "the file is empty",
		},
		{
			name:    "rows of empty fields only",
			text:    ",,\n , \n",
			wantErr: "the file is empty",
		},
		{
			name:    "nothing after the skipped rows",
			text:    "preamble\n\n\n",
			opts:    CSVOptions{RowsToSkip: 1},
			wantErr: "the file is empty after its first line, which is skipped",
		},
		{
			name:    "nothing after several skipped rows",
			text:    "one\ntwo\n  \n",
			opts:    CSVOptions{RowsToSkip: 2},
			wantErr: "the file is empty after its first 2 lines, which are skipped",
		},
		{
			name:    "rows to skip equal to the number of lines",
			text:    "one\ntwo\nthree\n",
			opts:    CSVOptions{RowsToSkip: 3},
			wantErr: "rows to skip (3) must be less than the number of lines in the file (3)",
		},
		{
			name:    "rows to skip beyond the last line without a newline",
			text:    "one\ntwo",
			opts:    CSVOptions{RowsToSkip: 5},
			wantErr: "rows to skip (5) must be less than the number of lines in the file (2)",
		},
		{
			name:    "negative rows to skip",
			text:    "a\n1\n",
			opts:    CSVOptions{RowsToSkip: -1},
			wantErr: "rows to skip (-1) must not be negative",
		},
		{
			name:    "unsupported separator",
			text:    "a:b\n",
			opts:    CSVOptions{Separator: ':'},
			wantErr: `separator ':' is not supported: use ",", ";", a tab or "|"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CSV(tt.text, tt.opts)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("CSV(%q) = %+v, want error %q", tt.text, got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Fatalf("CSV(%q) error = %q, want %q", tt.text, err, tt.wantErr)
				}
				if empty := strings.HasPrefix(tt.wantErr, "the file is empty"); errors.Is(err, ErrEmpty) != empty {
					t.Fatalf("CSV(%q) error %q is ErrEmpty: %v, want %v", tt.text, err, !empty, empty)
				}
				return
			}
			if err != nil {
				t.Fatalf("CSV(%q): %v", tt.text, err)
			}
			if !slices.Equal(got.Headers, tt.headers) {
				t.Errorf("headers = %q, want %q", got.Headers, tt.headers)
			}
			rows := rowsOf(got)
			if !slices.EqualFunc(rows, tt.rows, func(a, b row) bool { return a.line == b.line && slices.Equal(a.fields, b.fields) }) {
				t.Errorf("records = %+v, want %+v", rows, tt.rows)
			}
		})
	}
}

func TestCSVErrorCarriesTheLine(t *testing.T) {
	_, err := CSV("x\na\n\"b\n", CSVOptions{RowsToSkip: 1})
	ce, ok := err.(*CSVError)
	if !ok || ce.Line != 3 || ce.Msg != "a quoted field is not closed" {
		t.Fatalf("error %#v, want *CSVError{Line: 3}", err)
	}
}

func TestCSVValueByNormalizedHeader(t *testing.T) {
	table, err := CSV("Date*, Amount ,Transaction  Type,Long-Memo_Text\n2024-01-05,12.50,debit,hello\nshort\n", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantIndex := map[string]int{"date": 0, "amount": 1, "transaction_type": 2, "long_memo_text": 3}
	if idx := table.Index(); !maps.Equal(idx, wantIndex) {
		t.Fatalf("Index() = %v, want %v", idx, wantIndex)
	}
	first, short := table.Records[0], table.Records[1]
	for _, tt := range []struct {
		name string
		rec  CSVRecord
		key  string
		want string
	}{
		{"starred header looked up without its star", first, "date", "2024-01-05"},
		{"padded header looked up trimmed", first, "amount", "12.50"},
		{"spaces joined by an underscore", first, "transaction_type", "debit"},
		{"dashes and underscores joined", first, "long_memo_text", "hello"},
		{"unknown key", first, "payee", ""},
		{"keys are not normalized again", first, "Date*", ""},
		{"record too short for the column", short, "amount", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := table.Value(tt.rec, tt.key); got != tt.want {
				t.Fatalf("Value(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}

	idx := table.Index()
	idx["date"] = 3
	if got := table.Value(first, "date"); got != "2024-01-05" {
		t.Fatalf("changing Index's map changed the table: Value = %q", got)
	}

	built := &CSVTable{Headers: []string{"Name", "Amount*"}}
	if got := built.Value(CSVRecord{Fields: []string{"x", "5"}}, "amount"); got != "5" {
		t.Fatalf("Value on a table not made by CSV = %q, want 5", got)
	}
}

func TestNormalizeHeader(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"lower-cased", "Amount", "amount"},
		{"stars removed", "Date*", "date"},
		{"stars removed anywhere", "*Acc*ount*", "account"},
		{"trimmed", "  name\t", "name"},
		{"inner spaces become one underscore", "Transaction   Date", "transaction_date"},
		{"dashes become an underscore", "transaction-date", "transaction_date"},
		{"mixed runs become one underscore", "a - _ b", "a_b"},
		{"stars removed before trimming", " Date * ", "date"},
		{"other punctuation kept", "Amount (USD)", "amount_(usd)"},
		{"non-ASCII lower-cased", "ÉTIQUETTES", "étiquettes"},
		{"no-break space is a space", "Posting\u00a0Date", "posting_date"},
		{"blank", "  ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeHeader(tt.in); got != tt.want {
				t.Fatalf("NormalizeHeader(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// benchmarkCSV is a bank export of 150,000 rows and ten columns, about 10 MB, with quoted
// fields holding separators and quotes.
func benchmarkCSV() string {
	var b strings.Builder
	b.WriteString("Date,Amount,Name,Category,Tags,Account,Currency,Notes,Reference,Status\n")
	for i := range 150_000 {
		fmt.Fprintf(&b, "2024-%02d-%02d,-%d.%02d,\"Shop %d, Main\",Food,\"a,b\",Chk,USD,\"\"\"n\"\"\",R%06d,ok\n",
			i%12+1, i%28+1, i%5000, i%100, i%977, i)
	}
	return b.String()
}

func BenchmarkCSV(b *testing.B) {
	text := benchmarkCSV()
	// The floor, the best of three runs: encoding/csv reading the same text and keeping its
	// records, the least CSV can do.
	var floor time.Duration
	for range 3 {
		start := time.Now()
		r := csv.NewReader(strings.NewReader(text))
		r.LazyQuotes, r.FieldsPerRecord = true, -1
		var records [][]string
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			records = append(records, rec)
		}
		if d := time.Since(start); floor == 0 || d < floor {
			floor = d
		}
		runtime.KeepAlive(records)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		table, err := CSV(text, CSVOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(table.Records) != 150_000 || table.Value(table.Records[149_999], "reference") != "R149999" {
			b.Fatalf("read %d records", len(table.Records))
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(floor), "x-encoding/csv")
}

// A header written twice word for word (ING's "Saldo;Währung;Betrag;Währung") is numbered, so
// both columns can be named; a file without a header row is read with the headers given.
func TestCSVRepeatedHeadersAndNoHeader(t *testing.T) {
	table, err := CSV("Saldo;Währung;Betrag;Währung\n1,00;EUR;-2,00;USD\n", CSVOptions{Separator: ';'})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Saldo", "Währung", "Betrag", "Währung (2)"}; !slices.Equal(table.Headers, want) {
		t.Errorf("headers %q, want %q", table.Headers, want)
	}
	if got := table.Value(table.Records[0], NormalizeHeader("Währung (2)")); got != "USD" {
		t.Errorf("second Währung = %q", got)
	}
	if keys := HeaderKeys([]string{" Währung", "Währung ", "Date*"}); !slices.Equal(keys, []string{"währung", "währung_(2)", "date"}) {
		t.Errorf("HeaderKeys = %q", keys)
	}

	table, err = CSV("\"03/02/2026\",\"-42.17\",\"*\"\n\"03/03/2026\",\"1500.00\",\"*\"\n", CSVOptions{Headers: []string{"Date", "Amount", "*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Records) != 2 || table.Value(table.Records[0], "amount") != "-42.17" {
		t.Errorf("headerless file read as %q with records %v", table.Headers, table.Records)
	}
}

// A file quoted with ' reads as one quoted with ", and keeps its other quotes as they are.
func TestCSVSingleQuotes(t *testing.T) {
	text := "'Date','Payee','Amount'\n'02/03/2026','Joe''s Diner, \"the\" best','-1,234.50'\n'03/03/2026',O'Brien,'12'\n"
	table, err := CSV(text, CSVOptions{Quote: '\''})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Date", "Payee", "Amount"}; !slices.Equal(table.Headers, want) {
		t.Errorf("headers %q", table.Headers)
	}
	if got := table.Records[0].Fields; !slices.Equal(got, []string{"02/03/2026", `Joe's Diner, "the" best`, "-1,234.50"}) {
		t.Errorf("first record %q", got)
	}
	if got := table.Records[1].Fields[1]; got != "O'Brien" {
		t.Errorf("a stray apostrophe reads %q", got)
	}
	if _, err := CSV("a\n1\n", CSVOptions{Quote: '`'}); err == nil {
		t.Error("a backquote is taken as a quote")
	}
}
