package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"golang.org/x/text/encoding/charmap"

	"tally/app/apptest"
	"tally/testkit"
)

// rowsBody is the rows endpoint's answer.
type rowsBody struct {
	Data []struct {
		RowNumber int               `json:"row_number"`
		Line      int               `json:"line"`
		Valid     bool              `json:"valid"`
		Duplicate bool              `json:"duplicate"`
		Errors    []string          `json:"errors"`
		Fields    map[string]string `json:"fields"`
		MatchedBy string            `json:"matched_by"`
	} `json:"data"`
	Mappings []struct {
		Kind, Key       string
		TargetName      *string `json:"target_name"`
		CreateWhenEmpty bool    `json:"create_when_empty"`
	} `json:"mappings"`
	Meta struct {
		TotalCount int  `json:"total_count"`
		PerPage    int  `json:"per_page"`
		NextPage   *int `json:"next_page"`
	} `json:"meta"`
}

// TestRowTyping is a table of files and the ledger amounts (or row errors) they give: number
// formats, signage, the custom type column, dates, tags and encodings.
func TestRowTyping(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	cases := []struct {
		name    string
		body    map[string]any
		content []byte // sent as a multipart file instead of raw_file_content
		want    []string
	}{
		{"US amounts", map[string]any{"raw_file_content": "date,amount\n01/02/2024,\"1,234.56\"\n01/03/2024,$1.50\n"}, nil, []string{"-1234.56", "-1.50"}},
		{"semicolon separator with 1.234,56 amounts", map[string]any{"raw_file_content": "date;amount\n02.01.2024;1.234,5\n03.01.2024;-0,99\n", "col_sep": "semicolon", "number_format": "1.234,56", "date_format": "%d.%m.%Y"}, nil, []string{"-1234.50", "0.99"}},
		{"space thousands with a currency after", map[string]any{"raw_file_content": "date,amount\n2024-01-02,\"1 234,56 kr\"\n2024-01-03,\"1\u00a0000,00\"\n", "number_format": "1 234,56", "date_format": "%Y-%m-%d"}, nil, []string{"-1234.56", "-1000.00"}},
		{"no-decimal currency", map[string]any{"raw_file_content": "date,amount\n2024-01-02,\"1,234\"\n", "number_format": "1,234", "date_format": "%Y-%m-%d"}, nil, []string{"-1234.00"}},
		{"accounting negatives: parentheses and a trailing minus", map[string]any{"raw_file_content": "date,amount\n2024-01-02,(12.34)\n2024-01-03,12.34-\n", "date_format": "%Y-%m-%d"}, nil, []string{"12.34", "12.34"}},
		{"inflows negative: the file's sign is the ledger's", map[string]any{"raw_file_content": "date,amount\n2024-01-02,42.50\n2024-01-03,-10\n", "signage_convention": "inflows_negative", "date_format": "%Y-%m-%d"}, nil, []string{"42.50", "-10.00"}},
		{"custom type column marks inflows", map[string]any{"raw_file_content": "date,amount,amount_type\n01/01/2024,100,debit\n01/02/2024,200,credit\n01/03/2024,-300,DEBIT\n", "amount_type_strategy": "custom_column", "entity_type_col_label": "amount_type", "amount_type_inflow_value": "credit"}, nil, []string{"100.00", "-200.00", "300.00"}},
		{"custom type column with inflows negative flips it", map[string]any{"raw_file_content": "date,amount,type\n01/01/2024,100,debit\n01/02/2024,200,credit\n", "amount_type_strategy": "custom_column", "amount_type_inflow_value": "credit", "signage_convention": "inflows_negative"}, nil, []string{"-100.00", "200.00"}},
		{"rows to skip drop a preamble", map[string]any{"raw_file_content": "Bank export\nGenerated 2024-03-01\ndate,name,amount\n01/01/2024,Transaction 1,100\n01/02/2024,Transaction 2,-5\n", "rows_to_skip": "2"}, nil, []string{"-100.00", "5.00"}},
		{"DD MMM YYYY dates and a 2-digit year", map[string]any{"raw_file_content": "date,amount\n05 Jan 2024,1\n", "date_format": "%d %b %Y"}, nil, []string{"-1.00"}},
		{"labels with stars match plain headers", map[string]any{"raw_file_content": "Date,Amount,Description\n2024-01-02,-7,x\n", "date_col_label": "date*", "amount_col_label": "amount*", "date_format": "%Y-%m-%d"}, nil, []string{"7.00"}},
		{"windows-1250 file", nil, mustEncode(t, charmap.Windows1250, "date,amount,name\n2024-01-02,-10,Sklep spożywczy\n2024-01-03,-4,Kawiarnia Café\n"), []string{"10.00", "4.00"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// An account per case, so that no case's rows look like duplicates of another's.
			acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, tc.name, "Depository", "")
			var r *testkit.Response
			if tc.content != nil {
				body, ct := multipartBody(t, map[string]string{"account_id": acct.ID.String(), "date_format": "%Y-%m-%d", "publish": "true"}, "export.csv", "text/csv", tc.content)
				r = e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
			} else {
				tc.body["account_id"] = acct.ID.String()
				tc.body["publish"] = true
				r = e.c.API(http.MethodPost, "/api/v1/imports", e.write, tc.body)
			}
			if r.Status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			var b importBody
			r.JSON(t, &b)
			if done := e.waitFor(t, b.Data.ID); done.Data.Status != "complete" {
				t.Fatalf("publish ended %s: %v", done.Data.Status, deref(done.Data.Error))
			}
			got := e.strings(t, "SELECT amount::numeric(19,2)::text FROM entries WHERE import_id = ? ORDER BY date", uuid.MustParse(b.Data.ID))
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("amounts %v, want %v", got, tc.want)
			}
		})
	}
	// The windows-1250 names arrived intact.
	if got := e.strings(t, "SELECT name FROM entries WHERE name LIKE 'Sklep%' OR name LIKE 'Kawiarnia%' ORDER BY date"); strings.Join(got, ",") != "Sklep spożywczy,Kawiarnia Café" {
		t.Fatalf("transcoded names %q", got)
	}
}

func mustEncode(t *testing.T, cm *charmap.Charmap, s string) []byte {
	t.Helper()
	b, err := cm.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRowDiagnosticsAndMappings(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	e.srv.DB.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (gen_random_uuid(), ?, 'Diagnostic Groceries')", e.user.FamilyID).Exec(t.Context())
	csv := "date,amount,name,category,tags,account,currency\n" +
		"01/15/2024,-10.00,Grocery Run,Diagnostic Groceries,Food|Weekly,Checking,USD\n" +
		"not-a-date,not-a-number,Bad,,,Checking,EURO\n" +
		"01/16/2024,-3,,,,,\n"
	var b importBody
	e.create(t, map[string]any{"raw_file_content": csv}, http.StatusCreated).JSON(t, &b)
	if b.Data.Stats.RowsCount != 3 || b.Data.Stats.ValidRowsCount != 1 || b.Data.Stats.InvalidRowsCount != 2 || b.Data.StatusDetail.Cleaned || b.Data.StatusDetail.Publishable {
		t.Fatalf("stats %+v detail %+v", b.Data.Stats, b.Data.StatusDetail)
	}
	var rows rowsBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows", e.read, nil).JSON(t, &rows)
	if rows.Meta.TotalCount != 3 || len(rows.Data) != 3 {
		t.Fatalf("rows %+v", rows.Meta)
	}
	r1, r2, r3 := rows.Data[0], rows.Data[1], rows.Data[2]
	if !r1.Valid || r1.RowNumber != 1 || r1.Line != 2 || r1.Fields["tags"] != "Food|Weekly" || r1.Fields["date"] != "01/15/2024" {
		t.Fatalf("row 1 %+v", r1)
	}
	wantErrs := []string{`Date "not-a-date" does not match`, `Currency "EURO" is not a valid currency code`, `Amount "not-a-number" is not a number`}
	for _, w := range wantErrs {
		if !strings.Contains(strings.Join(r2.Errors, " | "), w) {
			t.Errorf("row 2 errors %q lack %q", r2.Errors, w)
		}
	}
	if r3.Valid || !strings.Contains(strings.Join(r3.Errors, ""), "Account is required") {
		t.Fatalf("row 3 %+v", r3)
	}
	kinds := map[string]string{}
	for _, m := range rows.Mappings {
		target := "create"
		if m.TargetName != nil {
			target = *m.TargetName
		}
		kinds[m.Kind+":"+m.Key] = target
	}
	want := map[string]string{"account:Checking": "Checking", "category:Diagnostic Groceries": "Diagnostic Groceries", "tag:Food": "create", "tag:Weekly": "create"}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("mappings %v, want %v", kinds, want)
	}
	var page rowsBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows?per_page=1&page=2", e.read, nil).JSON(t, &page)
	if len(page.Data) != 1 || page.Data[0].RowNumber != 2 || page.Meta.PerPage != 1 || page.Meta.NextPage == nil || *page.Meta.NextPage != 3 {
		t.Fatalf("paged rows %+v", page)
	}
	var invalid rowsBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows?only=invalid", e.read, nil).JSON(t, &invalid)
	if invalid.Meta.TotalCount != 2 {
		t.Fatalf("only=invalid gave %d rows", invalid.Meta.TotalCount)
	}
	if strings.Contains(e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID, e.read, nil).Body, "Grocery Run") {
		t.Fatal("the detail exposes the file's content")
	}
	// The original file comes back byte for byte.
	if f := e.c.Do(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/file", nil, map[string]string{"X-Api-Key": e.read}); f.Status != 200 || f.Body != csv {
		t.Fatalf("download: %d", f.Status)
	}
}

func TestDuplicatesAreReportedAndSkipped(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	mustExecDB(t, e, "INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name) VALUES (gen_random_uuid(), ?, ?, 'transaction', '2024-01-01', 100, 'USD', 'Coffee  Shop')", e.user.FamilyID, acct.ID)
	mustExecDB(t, e, "INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name) VALUES (gen_random_uuid(), ?, ?, 'transaction', '2024-01-02', 50, 'USD', 'Vending Machine')", e.user.FamilyID, acct.ID)
	csv := "date,amount,name\n" +
		"2024-01-01,100,coffee shop\n" + // a duplicate: the same name ignoring case and spacing
		"2024-01-01,100,Bakery\n" + //     another name, and the day's entry is matched: not a duplicate
		"2024-01-02,50,Vending Machine\n" + // two identical rows against one entry: one duplicate
		"2024-01-02,50,Vending Machine\n" +
		"2024-01-03,50,Vending Machine\n" //  another date: not a duplicate
	b := e.publish(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "signage_convention": "inflows_negative", "account_id": acct.ID.String()})
	if b.Data.Stats.DuplicateRowsCount != 2 {
		t.Fatalf("duplicates %d, want 2", b.Data.Stats.DuplicateRowsCount)
	}
	if got := e.strings(t, "SELECT name FROM entries WHERE import_id = ? ORDER BY date, name", uuid.MustParse(b.Data.ID)); strings.Join(got, ",") != "Bakery,Vending Machine,Vending Machine" {
		t.Fatalf("imported %v", got)
	}
	// The existing entries were not claimed by the import: a revert leaves them.
	e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/revert", e.write, nil)
	e.waitFor(t, b.Data.ID)
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ?", acct.ID); n != 2 {
		t.Fatalf("%d entries after revert, want the 2 that existed before", n)
	}
	var dups rowsBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows?only=duplicate", e.read, nil).JSON(t, &dups)
	if dups.Meta.TotalCount != 0 {
		t.Fatalf("duplicate marks survived the revert: %d", dups.Meta.TotalCount)
	}
}

func mustExecDB(t *testing.T, e *importEnv, query string, args ...any) {
	t.Helper()
	if _, err := e.srv.DB.NewRaw(query, args...).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
}
