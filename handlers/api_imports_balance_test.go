package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// reconciliation is the account's GET /api/v1/accounts/{id}/reconciliation answer.
func (e *importEnv) reconciliation(t *testing.T, account uuid.UUID) reconciliationBody {
	t.Helper()
	var b reconciliationBody
	r := e.c.API(http.MethodGet, "/api/v1/accounts/"+account.String()+"/reconciliation", e.read, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("reconciliation: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &b)
	return b
}

// runningBalanceRows are four days of a checking account, oldest first, with the balance the
// bank printed after each row; the bank leaves the balance of a day's earlier lines blank.
var runningBalanceRows = []string{
	"2026-03-02,Acme Payroll,2500.00,3500.00",
	"2026-03-03,Corner Bakery,-45.60,",
	"2026-03-03,City Power,-120.00,3334.40",
	"2026-03-04,Book Shop,-30.00,3304.40",
}

func runningBalanceFile(rows []string) string {
	return "date,name,amount,Balance\n" + strings.Join(rows, "\n") + "\n"
}

// A transaction file's mapped running balance gives an account whose balance was not known
// the file's closing balance as its anchor, and the balance before the file as a checkpoint
// that matches; read newest first, the same file says the same.
func TestRunningBalanceColumnAnchorsAndChecks(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	newest := slices.Clone(runningBalanceRows)
	slices.Reverse(newest)
	for _, c := range []struct {
		name string
		rows []string
	}{{"oldest first", runningBalanceRows}, {"newest first", newest}} {
		t.Run(c.name, func(t *testing.T) {
			acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking "+c.name, "Depository", "")
			b := e.publish(t, map[string]any{"raw_file_content": runningBalanceFile(c.rows), "date_format": "%Y-%m-%d",
				"account_id": acct.ID.String(), "balance_col_label": "Balance"})
			rec := e.reconciliation(t, acct.ID)
			if a := rec.Meta.Anchor; a == nil || a.Date != "2026-03-04" || a.Balance != "3304.40" || a.Source != "csv" {
				t.Fatalf("anchor %+v, want the file's closing balance", a)
			}
			if got, want := rec.summary(), "2026-03-01 1000.00/1000.00 matches"; got != want {
				t.Fatalf("checkpoints\n got %s\nwant %s", got, want)
			}
			if c := rec.Data[0]; c.Source != "csv" || c.ImportID == nil || *c.ImportID != b.Data.ID {
				t.Errorf("checkpoint %+v", c)
			}
			if got := e.strings(t, "SELECT name FROM entries WHERE account_id = ? AND kind = 'valuation' ORDER BY date", acct.ID); !slices.Equal(got,
				[]string{"Running balance before the file", "Balance from the bank's file"}) {
				t.Errorf("valuations %q", got)
			}
		})
	}

	t.Run("a later file that disagrees shows checkpoints that differ", func(t *testing.T) {
		acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Savings", "Depository", "")
		e.publish(t, map[string]any{"raw_file_content": runningBalanceFile(runningBalanceRows), "date_format": "%Y-%m-%d",
			"account_id": acct.ID.String(), "balance_col_label": "Balance"})
		// The bank's balance is 50.00 above the ledger's: a transaction Tally never saw.
		second := runningBalanceFile([]string{"2026-03-10,Cafe,-4.60,3349.80", "2026-03-11,Refund,10.00,3359.80"})
		e.publish(t, map[string]any{"raw_file_content": second, "date_format": "%Y-%m-%d",
			"account_id": acct.ID.String(), "balance_col_label": "Balance"})
		rec := e.reconciliation(t, acct.ID)
		if got, want := rec.summary(), "2026-03-11 3359.80/3309.80 differs, 2026-03-09 3354.40/3304.40 differs, 2026-03-01 1000.00/1000.00 matches"; got != want {
			t.Fatalf("checkpoints\n got %s\nwant %s", got, want)
		}
		if rec.Data[0].Difference != "50.00" || rec.Meta.Differences != 2 || rec.Meta.Anchor == nil || rec.Meta.Anchor.Date != "2026-03-04" {
			t.Errorf("latest checkpoint %+v, meta %+v", rec.Data[0], rec.Meta)
		}
		if got := e.strings(t, "SELECT name FROM entries WHERE account_id = ? AND kind = 'valuation' AND date > '2026-03-04' ORDER BY date", acct.ID); !slices.Equal(got,
			[]string{"Running balance before the file", "Running balance at the end of the file"}) {
			t.Errorf("the second file's valuations %q", got)
		}
	})

	t.Run("a card's balance is what it owes, whichever side the file is written from", func(t *testing.T) {
		for _, c := range []struct{ signage, file string }{
			// The holder's side: money in positive, the debt negative.
			{"inflows_positive", "2026-03-02,Groceries,-80.00,-580.00\n2026-03-05,Payment,500.00,-80.00\n"},
			// The lender's side: charges positive, the balance what is owed.
			{"inflows_negative", "2026-03-02,Groceries,80.00,580.00\n2026-03-05,Payment,-500.00,80.00\n"},
		} {
			acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Card "+c.signage, "CreditCard", "")
			e.publish(t, map[string]any{"raw_file_content": "date,name,amount,Balance\n" + c.file, "date_format": "%Y-%m-%d",
				"account_id": acct.ID.String(), "balance_col_label": "Balance", "signage_convention": c.signage})
			rec := e.reconciliation(t, acct.ID)
			if a := rec.Meta.Anchor; a == nil || a.Date != "2026-03-05" || a.Balance != "80.00" {
				t.Errorf("%s: anchor %+v", c.signage, a)
			}
			if got, want := rec.summary(), "2026-03-01 500.00/500.00 matches"; got != want {
				t.Errorf("%s: checkpoints %s, want %s", c.signage, got, want)
			}
		}
	})
}

// A balance cell that is not a number is a problem of its row, naming the column; a file
// whose balance column is not mapped records no balance and reads nothing from it.
func TestRunningBalanceColumnIsReadOnlyWhenMapped(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")

	var b importBody
	e.create(t, map[string]any{"raw_file_content": runningBalanceFile([]string{"2026-03-02,Acme Payroll,2500.00,lots"}),
		"date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "balance_col_label": "Balance"}, http.StatusCreated).JSON(t, &b)
	if b.Data.Stats.InvalidRowsCount != 1 {
		t.Fatalf("stats %+v, want the row invalid", b.Data.Stats)
	}
	var rows struct {
		Data []struct {
			Errors []string          `json:"errors"`
			Fields map[string]string `json:"fields"`
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows", e.read, nil).JSON(t, &rows)
	if len(rows.Data) != 1 || len(rows.Data[0].Errors) != 1 || !strings.HasPrefix(rows.Data[0].Errors[0], "Balance ") ||
		rows.Data[0].Fields["balance"] != "lots" {
		t.Fatalf("rows %+v", rows.Data)
	}

	var unmapped struct {
		Data struct {
			Configuration struct {
				BalanceColLabel *string `json:"balance_col_label"`
			} `json:"configuration"`
			UnmappedColumns []string `json:"unmapped_columns"`
		} `json:"data"`
	}
	done := e.publish(t, map[string]any{"raw_file_content": runningBalanceFile(runningBalanceRows), "date_format": "%Y-%m-%d",
		"account_id": acct.ID.String()})
	e.c.API(http.MethodGet, "/api/v1/imports/"+done.Data.ID, e.read, nil).JSON(t, &unmapped)
	if unmapped.Data.Configuration.BalanceColLabel != nil || !slices.Equal(unmapped.Data.UnmappedColumns, []string{"Balance"}) {
		t.Errorf("configuration %+v", unmapped.Data)
	}
	if got := e.amounts(t, done.Data.ID); !slices.Equal(got, []string{"-2500.00", "120.00", "45.60", "30.00"}) {
		t.Errorf("amounts %q", got)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'valuation'", acct.ID); n != 0 {
		t.Errorf("%d valuations from a file whose balance column is not mapped", n)
	}

	// Rows staged before the column was added have one cell fewer, and still read.
	e.count(t, "WITH u AS (UPDATE import_rows SET raw = raw[1:16] WHERE import_id = ? RETURNING 1) SELECT count(*) FROM u", uuid.MustParse(done.Data.ID))
	r := e.c.API(http.MethodGet, "/api/v1/imports/"+done.Data.ID+"/rows", e.read, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("rows of an older import: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &rows)
	if len(rows.Data) != 4 || rows.Data[0].Fields["name"] != "Acme Payroll" {
		t.Errorf("rows of an older import %+v", rows.Data)
	}
}

// The import page offers the running balance among the columns, and once it is mapped says so.
func TestImportPageMapsTheRunningBalance(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, runningBalanceFile(runningBalanceRows), nil)
	page := "/imports/" + id
	r := e.c.Get(page)
	wantPage(t, r, http.StatusOK)
	if n := r.Doc(t).Find(`[data-testid="configure-balance"] option[value="Balance"]`).Length(); n != 1 {
		t.Fatalf("the balance select offers the Balance header %d times", n)
	}
	if v, ok := r.Doc(t).Find(`[data-testid="configure-balance"] option[selected]`).Attr("value"); ok && v != "" {
		t.Errorf("the balance column is read unasked: %q", v)
	}
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"balance_col_label": {"Balance"}}), page)
	r = e.c.Get(page)
	if v, _ := r.Doc(t).Find(`[data-testid="configure-balance"] option[selected]`).Attr("value"); v != "Balance" {
		t.Errorf("after the change the balance select shows %q", v)
	}
	if got := r.TestID(t, "import-config"); !strings.Contains(got, "Running balance column") {
		t.Errorf("configuration %q", got)
	}
	if r.Has(t, "unmapped-columns") {
		t.Errorf("unmapped: %q", r.TestID(t, "unmapped-columns"))
	}
}
