package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// reconciliationBody is a GET /api/v1/accounts/{id}/reconciliation answer.
type reconciliationBody struct {
	Data []struct {
		ID, Date, Source, Status string
		Bank                     string  `json:"bank_balance"`
		Tally                    string  `json:"tally_balance"`
		Difference               string  `json:"difference"`
		ImportID                 *string `json:"import_id"`
		GapAfter                 *string `json:"gap_after"`
		GapThrough               *string `json:"gap_through"`
	} `json:"data"`
	Meta struct {
		Anchor *struct {
			Date, Balance, Source string
		} `json:"anchor"`
		BalanceKnown bool `json:"balance_known"`
		Differences  int  `json:"differences"`
	} `json:"meta"`
}

// summary is "date bank/tally status" per checkpoint, newest first.
func (b reconciliationBody) summary() string {
	var parts []string
	for _, c := range b.Data {
		parts = append(parts, c.Date+" "+c.Bank+"/"+c.Tally+" "+c.Status)
	}
	return strings.Join(parts, ", ")
}

// TestAStatementThatDisagreesIsNamed is the camt.053 whose opening balance disagrees
// with the ledger by €999.06: the import's page and the account's say so with the figures,
// the API lists it, the chart marks it, and each fix works and is undone, through the real
// router.
func TestAStatementThatDisagreesIsNamed(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	e.statement(t, "CamtImport", camt053(testIBAN, "1000.00", "2026-03-02", "3334.40", "2026-03-04",
		"REF1 2026-03-02 CRDT 2500.00 Acme Payroll", "REF2 2026-03-03 DBIT 45.60 Corner Bakery", "REF3 2026-03-04 DBIT 120.00 City Power"))
	acct := e.accountByKey(t, "iban:"+testIBAN).String()
	// The next statement opens 999.06 above where the first closed.
	second := e.statement(t, "CamtImport", camt053(testIBAN, "4333.46", "2026-03-05", "4303.46", "2026-03-05",
		"REF4 2026-03-05 DBIT 30.00 Book Shop"))
	st := second.Data.Statements.Statements[0]
	if st.Reconciliation != "reconciled" || st.LedgerCheck == nil || st.LedgerCheck.Status != "difference" || deref(st.LedgerCheck.Difference) != "999.06" {
		t.Fatalf("the file adds up, but its closing balance should differ from the ledger by 999.06: %+v %+v", st, st.LedgerCheck)
	}
	recon := func(t *testing.T) reconciliationBody {
		t.Helper()
		var b reconciliationBody
		r := e.c.API(http.MethodGet, "/api/v1/accounts/"+acct+"/reconciliation", e.read, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("reconciliation: %d %s", r.Status, r.Body)
		}
		r.JSON(t, &b)
		return b
	}
	b := recon(t)
	if got, want := b.summary(), "2026-03-05 4303.46/3304.40 differs, 2026-03-04 4333.46/3334.40 differs"; got != want {
		t.Fatalf("checkpoints\n got %s\nwant %s", got, want)
	}
	if c := b.Data[0]; c.Difference != "999.06" || c.Source != "camt" || c.ImportID == nil || *c.ImportID != second.Data.ID || b.Meta.Differences != 2 ||
		b.Meta.Anchor == nil || b.Meta.Anchor.Balance != "1000.00" || b.Meta.Anchor.Date != "2026-03-01" {
		t.Errorf("the latest checkpoint %+v, meta %+v", c, b.Meta)
	}

	c := apptest.NewClient(t, e.srv)
	c.SignIn(e.user.Email, testkit.Password)
	t.Run("the import's page names the difference and offers the fixes", func(t *testing.T) {
		doc := c.Get("/imports/" + second.Data.ID).Doc(t)
		if s, _ := doc.Find(`[data-testid="statement-opening-check"]`).Attr("data-status"); s != "difference" {
			t.Errorf("the opening check says %q", s)
		}
		card := doc.Find(`[data-testid="reconciliation"]`)
		// The import's own closing balance; the day before's was the first file's, which this one
		// corrected.
		if n := card.Find(`[data-testid="checkpoint"][data-status="differs"]`).Length(); n != 1 {
			t.Errorf("%d checkpoints that differ on the import's page", n)
		}
		if diff := strings.TrimSpace(card.Find(`[data-testid="checkpoint-difference"]`).First().Text()); diff != "€999.06" {
			t.Errorf("difference %q", diff)
		}
		if card.Find(`[data-testid="fix-adjust"]`).Length() != 1 || card.Find(`[data-testid="fix-trust"]`).Length() != 1 {
			t.Errorf("the fixes are not offered:\n%s", card.Text())
		}
		if href, _ := card.Find(`[data-testid="fix-look"]`).First().Attr("href"); href != "/transactions?account_id="+acct+"&start_date=2026-03-02&end_date=2026-03-05" {
			t.Errorf("the missing transactions are looked for at %q", href)
		}
	})
	t.Run("the account's page says so, and its chart marks the days", func(t *testing.T) {
		doc := c.Get("/accounts/" + acct + "?range=all").Doc(t)
		if got := strings.TrimSpace(doc.Find(`[data-testid="balance-differences"]`).Text()); got != "2 balances differ from the bank" {
			t.Errorf("badge %q", got)
		}
		if n := doc.Find(`[data-testid="chart-mark"]`).Length(); n != 2 {
			t.Errorf("%d marks on the chart", n)
		}
		if got := doc.Find(`[data-testid="balance-anchor"]`).Text(); !strings.Contains(got, "€1,000.00") {
			t.Errorf("the anchor is described as %q", got)
		}
	})
	fix := func(t *testing.T, how string) {
		t.Helper()
		r := c.PostForm("/accounts/"+acct+"/checkpoints/"+recon(t).Data[0].ID+"/fix", url.Values{"fix": {how}, "return": {"/imports/" + second.Data.ID}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/imports/"+second.Data.ID {
			t.Fatalf("fix %s: %d to %q", how, r.Status, r.Header.Get("Location"))
		}
	}
	undo := func(t *testing.T) {
		t.Helper()
		fixes := c.Get("/accounts/" + acct).Doc(t).Find(`[data-testid="reconciliation-fix"] form`)
		action, _ := fixes.Attr("action")
		if fixes.Length() != 1 || c.PostForm(action, nil).Status != http.StatusSeeOther {
			t.Fatalf("%d fixes to undo (%q)", fixes.Length(), action)
		}
		if got := recon(t).Meta.Differences; got != 2 {
			t.Errorf("%d differences after the undo, want the 2 again", got)
		}
	}
	t.Run("trusting the bank moves the anchor, and the undo moves it back", func(t *testing.T) {
		fix(t, models.FixTrust)
		b := recon(t)
		if b.Meta.Anchor == nil || b.Meta.Anchor.Date != "2026-03-05" || b.Meta.Anchor.Balance != "4303.46" || b.Meta.Anchor.Source != "reconciliation" {
			t.Fatalf("anchor %+v", b.Meta.Anchor)
		}
		// Walked from the bank's figure, the first file's opening balance is now the one off.
		if got, want := b.summary(), "2026-03-05 4303.46/4303.46 matches, 2026-03-04 4333.46/4333.46 matches, 2026-03-01 1000.00/1999.06 differs"; got != want {
			t.Errorf("checkpoints\n got %s\nwant %s", got, want)
		}
		undo(t)
	})
	t.Run("an adjustment meets the bank, and the undo takes it away", func(t *testing.T) {
		fix(t, models.FixAdjust)
		b := recon(t)
		// Dated the checkpoint's day, after the anchor: the day before still differs on its own.
		if got, want := b.summary(), "2026-03-05 4303.46/4303.46 matches, 2026-03-04 4333.46/3334.40 differs"; got != want {
			t.Errorf("checkpoints\n got %s\nwant %s", got, want)
		}
		var excluded bool
		var category string
		if err := e.srv.DB.NewRaw(`SELECT e.excluded, c.name FROM entries e JOIN categories c ON c.id = e.category_id
			WHERE e.account_id = ? AND e.source = 'reconciliation'`, acct).Scan(t.Context(), &excluded, &category); err != nil || !excluded || category != "Balance adjustment" {
			t.Errorf("the adjustment: excluded %v, category %q, %v", excluded, category, err)
		}
		undo(t)
	})
	t.Run("a balance set through the API is the new anchor", func(t *testing.T) {
		r := e.c.API(http.MethodPatch, "/api/v1/accounts/"+acct, e.write, map[string]any{"balance": "5000.00"})
		if r.Status != http.StatusOK || !strings.Contains(r.Body, `"balance":"5000.00"`) {
			t.Fatalf("PATCH balance: %d %s", r.Status, r.Body)
		}
		if b := recon(t); b.Meta.Anchor == nil || b.Meta.Anchor.Balance != "5000.00" || b.Meta.Anchor.Source != "manual" {
			t.Errorf("anchor %+v", b.Meta.Anchor)
		}
		if r := e.c.API(http.MethodPatch, "/api/v1/accounts/"+acct, e.write, map[string]any{"balance": "1.234"}); r.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(r.Body, `"balance"`) {
			t.Errorf("a balance with too many decimals: %d %s", r.Status, r.Body)
		}
	})
	t.Run("another family's account is not found", func(t *testing.T) {
		other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
		key := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, models.ScopeReadWrite)
		if r := e.c.API(http.MethodGet, "/api/v1/accounts/"+acct+"/reconciliation", key, nil); r.Status != http.StatusNotFound {
			t.Errorf("another family's reconciliation: %d", r.Status)
		}
		oc := apptest.NewClient(t, e.srv)
		oc.SignIn(other.Email, testkit.Password)
		oc.Get("/")
		if r := oc.PostForm("/accounts/"+acct+"/checkpoints/"+recon(t).Data[0].ID+"/fix", url.Values{"fix": {models.FixTrust}}); r.Status != http.StatusNotFound {
			t.Errorf("another family's fix: %d", r.Status)
		}
	})
}

// TestAccountFormBalance checks the account form: a blank balance is not known and the page
// says so; a balance typed on the edit page becomes the anchor.
func TestAccountFormBalance(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	c.Get("/accounts/new")
	r := c.PostForm("/accounts", url.Values{"name": {"Cash"}, "accountable_type": {"Depository"}, "currency": {"USD"}, "balance": {""}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create: %d", r.Status)
	}
	page := r.Header.Get("Location")
	if got := c.Get(page).Doc(t).Find(`[data-testid="balance-anchor"]`).Text(); !strings.Contains(got, "not known") {
		t.Errorf("a blank balance is described as %q", got)
	}
	id := strings.TrimPrefix(page, "/accounts/")
	c.Get(page + "/edit")
	if r := c.PostForm(page, url.Values{"name": {"Cash"}, "accountable_type": {"Depository"}, "balance": {"12.5"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", r.Status, r.Body)
	}
	a, err := models.AccountByID(t.Context(), srv.DB, models.FamilyViewer(u.FamilyID), uuid.MustParse(id))
	if err != nil || a.Balance.StringFixed(2) != "12.50" {
		t.Fatalf("balance after the edit: %v %v", a.Balance, err)
	}
	if got := c.Get(page).Doc(t).Find(`[data-testid="balance-anchor"]`).Text(); !strings.Contains(got, "$12.50") || !strings.Contains(got, "Balance set by hand") {
		t.Errorf("the anchor is described as %q", got)
	}
	if r := c.PostForm(page, url.Values{"name": {"Cash"}, "accountable_type": {"Depository"}, "balance": {"lots"}}); r.Status != http.StatusUnprocessableEntity ||
		r.TestID(t, "error-balance") == "" {
		t.Errorf("a balance that is no amount: %d", r.Status)
	}
}
