package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// whoChanged is "<user id> <via>" of the entries ids, in their order, for comparing with want.
func whoChanged(t *testing.T, srv *apptest.Server, ids ...uuid.UUID) []string {
	t.Helper()
	out := make([]string, len(ids))
	for i, id := range ids {
		got := testkitStrings(t, srv, "SELECT coalesce(updated_by::text, 'nobody') || ' ' || coalesce(updated_via, '') FROM entries WHERE id = ?", id)
		if len(got) != 1 {
			t.Fatalf("entry %s is gone", id)
		}
		out[i] = got[0]
	}
	return out
}

// wantChangedBy fails the test unless every entry of ids records u as a member's change.
func wantChangedBy(t *testing.T, srv *apptest.Server, what string, u *models.User, ids ...uuid.UUID) {
	t.Helper()
	for i, got := range whoChanged(t, srv, ids...) {
		if got != u.ID.String()+" member" {
			t.Errorf("%s: entry %s records %q, want %s as a member", what, ids[i], got, u.Email)
		}
	}
}

// entry writes a transaction of amount (money out positive) into account on date.
func entry(t *testing.T, srv *apptest.Server, a *models.Account, date, amount, name string, extra string, args ...any) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (?, ?, ?, 'transaction', ?, ?, 'USD', ?)`, id, a.FamilyID, a.ID, date, amount, name).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		if _, err := srv.DB.NewRaw("UPDATE entries SET "+extra+" WHERE id = ?", append(args, id)...).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// Confirming a proposed transfer and unlinking one record who did it on both transactions: Ben
// on the pages, Jana through the API.
func TestTransferConfirmAndUnlinkRecordWhoDidIt(t *testing.T) {
	t.Parallel()
	e := newWhoEnv(t)
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.jana.FamilyID, "Checking", "Depository", "100")
	savings := testkit.MustCreateAccount(t, e.srv.DB, e.jana.FamilyID, "Savings", "Depository", "0")
	pair := func(day string) (uuid.UUID, uuid.UUID, string) {
		out := entry(t, e.srv, checking, day, "50.00", "To savings", "")
		in := entry(t, e.srv, savings, day, "-50.00", "From checking", "")
		id := uuid.Must(uuid.NewV7())
		if _, err := e.srv.DB.NewRaw(`INSERT INTO transfers (id, family_id, inflow_entry_id, outflow_entry_id, status) VALUES (?, ?, ?, ?, 'pending')`,
			id, e.jana.FamilyID, in, out).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		return out, in, id.String()
	}
	out, in, id := pair("2026-03-02")
	e.c.Get("/transfers")
	if r := e.c.PostForm("/transfers/"+id+"/confirm", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	wantChangedBy(t, e.srv, "a confirmed transfer", e.ben, out, in)
	e.api(t, http.MethodDelete, "/api/v1/transfers/"+id, nil, http.StatusNoContent, nil)
	wantChangedBy(t, e.srv, "a transfer unlinked through the API", e.jana, out, in)

	out, in, id = pair("2026-03-09")
	e.api(t, http.MethodPost, "/api/v1/transfers/"+id+"/confirm", nil, http.StatusOK, nil)
	wantChangedBy(t, e.srv, "a transfer confirmed through the API", e.jana, out, in)
	if r := e.c.PostForm("/transfers/"+id+"/unlink", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("unlink: %d %s", r.Status, r.Body)
	}
	wantChangedBy(t, e.srv, "an unlinked transfer", e.ben, out, in)
}

// Deleting a category moves its transactions, and deleting a tag takes it off its
// transactions: each of those transactions records who deleted it.
func TestCategoryAndTagDeletionRecordWhoChangedTheTransactions(t *testing.T) {
	t.Parallel()
	e := newWhoEnv(t)
	ctx := context.Background()
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.jana.FamilyID, "Checking", "Depository", "100")
	old, err := models.CreateCategory(ctx, e.srv.DB, e.jana.FamilyID, models.CategoryInput{Name: testkit.Ptr("Snacks"), Classification: testkit.Ptr(models.CategoryExpense)})
	if err != nil {
		t.Fatal(err)
	}
	food, err := models.CreateCategory(ctx, e.srv.DB, e.jana.FamilyID, models.CategoryInput{Name: testkit.Ptr("Food"), Classification: testkit.Ptr(models.CategoryExpense)})
	if err != nil {
		t.Fatal(err)
	}
	tag := uuid.Must(uuid.NewV7())
	if _, err := e.srv.DB.NewRaw("INSERT INTO tags (id, family_id, name) VALUES (?, ?, 'Trip')", tag, e.jana.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	snack := entry(t, e.srv, acct, "2026-03-02", "4.50", "Kiosk", "category_id = ?", old.ID)
	tagged := entry(t, e.srv, acct, "2026-03-03", "80.00", "Hotel", "tag_ids = ARRAY[?::uuid]", tag)
	untouched := entry(t, e.srv, acct, "2026-03-04", "9.00", "Bakery", "")

	e.c.Get("/categories/" + old.ID.String() + "/delete")
	if r := e.c.PostForm("/categories/"+old.ID.String()+"/delete", url.Values{"replacement_id": {food.ID.String()}}); r.Status != http.StatusSeeOther {
		t.Fatalf("delete the category: %d %s", r.Status, r.Body)
	}
	wantChangedBy(t, e.srv, "a transaction of a deleted category", e.ben, snack)
	e.api(t, http.MethodDelete, "/api/v1/tags/"+tag.String(), nil, http.StatusNoContent, nil)
	wantChangedBy(t, e.srv, "a transaction of a deleted tag", e.jana, tagged)
	if got := whoChanged(t, e.srv, untouched); got[0] != "nobody " {
		t.Errorf("a transaction neither touched records %q", got[0])
	}
}

// A reconciliation fix's entry, an adjustment or a trusted balance, records who made it.
func TestReconciliationFixesRecordWhoMadeThem(t *testing.T) {
	t.Parallel()
	e := newWhoEnv(t)
	ctx := context.Background()
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.jana.FamilyID, "Checking", "Depository", "100")
	day := time.Now().UTC().AddDate(0, 0, -10).Truncate(24 * time.Hour)
	for i, amount := range []string{"130.00", "170.00"} {
		a, err := models.AccountByID(ctx, e.srv.DB, models.FamilyViewer(e.jana.FamilyID), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := models.StateBalance(ctx, e.srv.DB, a, day.AddDate(0, 0, i), decimal.RequireFromString(amount), "statement", "Bank balance"); err != nil {
			t.Fatal(err)
		}
	}
	var rec reconciliationBody
	e.c.API(http.MethodGet, "/api/v1/accounts/"+acct.ID.String()+"/reconciliation", e.key, nil).JSON(t, &rec)
	if len(rec.Data) < 2 || rec.Data[0].Status != "differs" {
		t.Fatalf("the reconciliation: %+v", rec)
	}
	base := "/accounts/" + acct.ID.String()
	e.c.Get(base)
	for _, fix := range []string{models.FixAdjust, models.FixTrust} {
		var rec reconciliationBody
		e.c.API(http.MethodGet, "/api/v1/accounts/"+acct.ID.String()+"/reconciliation", e.key, nil).JSON(t, &rec)
		var differs string
		for _, c := range rec.Data {
			if c.Status == "differs" {
				differs = c.ID
			}
		}
		if differs == "" {
			t.Fatalf("no checkpoint differs before the %s fix: %+v", fix, rec)
		}
		if r := e.c.PostForm(base+"/checkpoints/"+differs+"/fix", url.Values{"fix": {fix}}); r.Status != http.StatusSeeOther {
			t.Fatalf("fix %s: %d %s", fix, r.Status, r.Body)
		}
	}
	fixes := testkitStrings(t, e.srv, "SELECT id::text FROM entries WHERE account_id = ? AND source = 'reconciliation' ORDER BY created_at", acct.ID)
	if len(fixes) != 2 {
		t.Fatalf("%d fixes written", len(fixes))
	}
	for _, id := range fixes {
		wantChangedBy(t, e.srv, "a reconciliation fix", e.ben, uuid.MustParse(id))
	}
}

// An import's revert changes back what it does not remove: the other side of a transfer the
// publish matched counts as spending again, and records who asked for the revert.
func TestImportRevertRecordsWhoRevertedWhatItChangesBack(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "1000")
	savings := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Savings", "Depository", "0")
	in := entry(t, e.srv, savings, "2026-03-02", "-250.00", "From checking", "")
	var im importBody
	e.create(t, map[string]any{"type": "TransactionImport", "account_id": checking.ID.String(), "publish": "true",
		"raw_file_content": "date,amount,name\n2026-03-02,-250.00,To savings\n"}, http.StatusCreated).JSON(t, &im)
	if got := e.waitFor(t, im.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("publish: %s", got.Data.Status)
	}
	if got := testkitStrings(t, e.srv, "SELECT transaction_kind FROM entries WHERE id = ?", in); got[0] == models.KindStandard {
		t.Fatalf("the publish matched no transfer: %v", got)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+im.Data.ID+"/revert", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", r.Status, r.Body)
	}
	if got := e.waitFor(t, im.Data.ID); got.Data.Status != "pending" {
		t.Fatalf("revert: %s", got.Data.Status)
	}
	if got := testkitStrings(t, e.srv, "SELECT transaction_kind FROM entries WHERE id = ?", in); got[0] != models.KindStandard {
		t.Fatalf("the transfer's other side after the revert: %v", got)
	}
	wantChangedBy(t, e.srv, "the other side of a reverted transfer", e.user, in)
}

// The budget page's category line says who set its amount last, and when, as the
// transaction panel does: Ben on the page, then Jana through the API; in German for a
// reader who reads German.
func TestBudgetLineSaysWhoChangedIt(t *testing.T) {
	t.Parallel()
	e := newWhoEnv(t)
	ctx := context.Background()
	cat, err := models.CreateCategory(ctx, e.srv.DB, e.jana.FamilyID, models.CategoryInput{Name: testkit.Ptr("Groceries"), Classification: testkit.Ptr(models.CategoryExpense)})
	if err != nil {
		t.Fatal(err)
	}
	month := time.Now().UTC().Format("2006-01")
	page := "/budgets/" + month
	line := "budget-changed-by-" + cat.ID.String()
	if p := e.c.Get(page); p.Status != http.StatusOK || p.Has(t, line) {
		t.Fatalf("a line nobody set says who changed it: %d", p.Status)
	}
	if r := e.c.PostForm(page+"/categories/"+cat.ID.String(), url.Values{"budgeted": {"300"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("set the line: %d %s", r.Status, r.Body)
	}
	if got := e.c.Get(page).TestID(t, line); !strings.HasPrefix(got, "Changed by Ben Novak, "+time.Now().Format("2006")) {
		t.Errorf("after Ben set it the line says %q", got)
	}
	e.api(t, http.MethodPatch, "/api/v1/budgets/"+month+"/categories/"+cat.ID.String(), map[string]any{"budgeted": "320"}, http.StatusOK, nil)
	if got := e.c.Get(page).TestID(t, line); !strings.HasPrefix(got, "Changed by Jana Novak, ") {
		t.Errorf("after Jana set it the line says %q", got)
	}
	if _, err := e.srv.DB.NewRaw("UPDATE users SET language = 'de' WHERE id = ?", e.ben.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.c.Get(page).TestID(t, line); !strings.Contains(got, "Jana Novak") || strings.HasPrefix(got, "Changed") {
		t.Errorf("in German the line says %q", got)
	}
}
