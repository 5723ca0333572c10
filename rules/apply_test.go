package rules_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/jobs"
	"tally/ledger"
	"tally/models"
	"tally/rules"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

type family struct {
	t   *testing.T
	d   *db.DB
	svc *imports.Service
	u   *models.User

	account string
}

func newFamily(t *testing.T) *family {
	d := testkit.MustOpenDB(t)
	svc, _, err := jobs.NewImports(d, testkit.DiscardLogger(), imports.DefaultLimits, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &family{t: t, d: d, svc: svc, u: testkit.MustCreateUser(t, d, testkit.UserOpts{})}
}

// named creates a category, merchant or tag and returns its id.
func (f *family) named(table, name string) uuid.UUID {
	f.t.Helper()
	id := uuid.Must(uuid.NewV7())
	if _, err := f.d.NewRaw("INSERT INTO ? (id, family_id, name) VALUES (?, ?, ?)", bun.Ident(table), id, f.u.FamilyID, name).Exec(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return id
}

// rule stores a rule at position.
func (f *family) rule(position int, name string, active bool, conditions []rules.Condition, actions []rules.Action) {
	f.t.Helper()
	c, _ := json.Marshal(conditions)
	a, _ := json.Marshal(actions)
	if _, err := f.d.NewRaw(`INSERT INTO rules (id, family_id, name, active, position, conditions, actions) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		uuid.Must(uuid.NewV7()), f.u.FamilyID, name, active, position, string(c), string(a)).Exec(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

// publish imports csv into the family's checking account and publishes it at once.
func (f *family) publish(csv string) uuid.UUID {
	f.t.Helper()
	ctx := context.Background()
	if f.account == "" {
		f.account = testkit.MustCreateAccount(f.t, f.d, f.u.FamilyID, "Checking", "Depository", "").ID.String()
	}
	df := "%Y-%m-%d"
	det, err := f.svc.Create(ctx, imports.Request{FamilyID: f.u.FamilyID, UserID: f.u.ID, DateFormat: &df, Publish: true, AccountID: &f.account,
		Upload: imports.Upload{Content: []byte(csv), Present: true}})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.svc.RunPublish(ctx, det.ID); err != nil {
		f.t.Fatal(err)
	}
	var status string
	if err := f.d.NewRaw("SELECT status FROM imports WHERE id = ?", det.ID).Scan(ctx, &status); err != nil || status != imports.StatusComplete {
		f.t.Fatalf("import %s (err %v)", status, err)
	}
	return det.ID
}

type row struct {
	Name         string      `bun:"name"`
	OriginalName *string     `bun:"original_name"`
	Category     *string     `bun:"category"`
	Merchant     *string     `bun:"merchant"`
	Tags         string      `bun:"tags"`
	Excluded     bool        `bun:"excluded"`
	ID           uuid.UUID   `bun:"id"`
	TagIDs       []uuid.UUID `bun:"tag_ids,array"`
}

// entries reads the family's transactions by their original (or only) name.
func (f *family) entries() map[string]row {
	f.t.Helper()
	var rows []row
	if err := f.d.NewRaw(`SELECT e.id, e.name, e.original_name, c.name AS category, m.name AS merchant, e.excluded,
			coalesce((SELECT string_agg(t.name, ',' ORDER BY t.name) FROM tags t WHERE t.id = ANY (e.tag_ids)), '') AS tags
		FROM entries e LEFT JOIN categories c ON c.id = e.category_id LEFT JOIN merchants m ON m.id = e.merchant_id
		WHERE e.family_id = ? AND e.kind = 'transaction'`, f.u.FamilyID).Scan(context.Background(), &rows); err != nil {
		f.t.Fatal(err)
	}
	out := map[string]row{}
	for _, r := range rows {
		key := r.Name
		if r.OriginalName != nil {
			key = *r.OriginalName
		}
		out[key] = r
	}
	return out
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestRulesRunOnPublish publishes a file under four rules and checks each transaction: the
// order decides, an inactive rule does nothing, tags add up under "continue", and a category
// the file gave is replaced only where a rule says so.
func TestRulesRunOnPublish(t *testing.T) {
	f := newFamily(t)
	groceries, transport := f.named("categories", "Groceries"), f.named("categories", "Transport")
	amazon := f.named("merchants", "Amazon")
	online := f.named("tags", "online")
	f.rule(1, "Amazon clean-up", true, []rules.Condition{{Type: "transaction_name", Operator: "starts_with", Value: "amzn mktp"}},
		[]rules.Action{{Type: "set_transaction_name", Value: "Amazon"}, {Type: "set_transaction_merchant", Value: amazon.String()},
			{Type: "set_transaction_tags", Value: online.String()}})
	f.rule(2, "Supermarkets", true, []rules.Condition{{Type: "compound", Operator: "or", Sub: []rules.Condition{
		{Type: "transaction_name", Operator: "like", Value: "rewe"}, {Type: "transaction_name", Operator: "like", Value: "aldi"}}}},
		[]rules.Action{{Type: "set_transaction_category", Value: groceries.String()}})
	f.rule(3, "Never", false, nil, []rules.Action{{Type: "exclude_transaction"}})
	f.rule(4, "Uncategorised trips", true, []rules.Condition{{Type: "transaction_name", Operator: "matches", Value: `^uber\s*\*\s*trip`},
		{Type: "transaction_category", Operator: "is_null"}},
		[]rules.Action{{Type: "set_transaction_category", Value: transport.String()}})

	id := f.publish("date,amount,name,category\n" +
		"2026-03-01,-23.99,AMZN Mktp US*2K4,\n" +
		"2026-03-02,-41.20,REWE Markt 0815,Eating out\n" +
		"2026-03-03,-14.00,UBER * TRIP 8XK,\n" +
		"2026-03-04,-9.00,Uber * Trip QQ1,Travel\n" +
		"2026-03-05,-3.00,Kiosk,\n")
	got := f.entries()
	if len(got) != 5 {
		t.Fatalf("%d transactions: %v", len(got), got)
	}
	// Where no rule sets a merchant, the one the bank's text names is the transaction's.
	want := map[string]row{
		"AMZN Mktp US*2K4": {Name: "Amazon", Merchant: ptr("Amazon"), Tags: "online"},
		"REWE Markt 0815":  {Name: "REWE Markt 0815", Category: ptr("Groceries"), Merchant: ptr("REWE Markt")},
		"UBER * TRIP 8XK":  {Name: "UBER * TRIP 8XK", Category: ptr("Transport"), Merchant: ptr("Uber")},
		"Uber * Trip QQ1":  {Name: "Uber * Trip QQ1", Category: ptr("Travel"), Merchant: ptr("Uber")},
		"Kiosk":            {Name: "Kiosk", Merchant: ptr("Kiosk")},
	}
	for name, w := range want {
		g := got[name]
		if g.Name != w.Name || str(g.Category) != str(w.Category) || str(g.Merchant) != str(w.Merchant) || g.Tags != w.Tags || g.Excluded {
			t.Errorf("%s: name %q category %q merchant %q tags %q excluded %v; want name %q category %q merchant %q tags %q",
				name, g.Name, str(g.Category), str(g.Merchant), g.Tags, g.Excluded, w.Name, str(w.Category), str(w.Merchant), w.Tags)
		}
	}

	// A revert takes the import's transactions away, rules' changes with them.
	if err := f.svc.Revert(context.Background(), f.u.FamilyID, id); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RunRevert(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got := f.entries(); len(got) != 0 {
		t.Errorf("%d transactions after the revert", len(got))
	}
}

// TestImportedRulesRunFromThenOn imports rules the way Sure exports them (names, not ids),
// then a file: the imported rules categorise it.
func TestImportedRulesRunFromThenOn(t *testing.T) {
	f := newFamily(t)
	ctx := context.Background()
	ruleCSV := "name,resource_type,active,effective_date,conditions,actions\n" +
		`Groceries,transaction,true,,"[{""condition_type"":""transaction_name"",""operator"":""like"",""value"":""grocery""}]","[{""action_type"":""set_transaction_category"",""value"":""Groceries""}]"` + "\n"
	det, err := f.svc.Create(ctx, imports.Request{FamilyID: f.u.FamilyID, UserID: f.u.ID, Type: string(imports.RuleImport), Publish: true,
		Upload: imports.Upload{Content: []byte(ruleCSV), Present: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RunPublish(ctx, det.ID); err != nil {
		t.Fatal(err)
	}
	f.publish("date,amount,name\n2026-03-01,-10,Corner Grocery Store\n2026-03-02,-5,Bakery\n")
	got := f.entries()
	if str(got["Corner Grocery Store"].Category) != "Groceries" || got["Bakery"].Category != nil {
		t.Errorf("after the imported rule: %q and %q", str(got["Corner Grocery Store"].Category), str(got["Bakery"].Category))
	}
}

// TestRunOverHistoryLeavesHandEditsAlone applies the rules to every transaction of the family
// and checks that a field set by hand is kept while the others change.
func TestRunOverHistoryLeavesHandEditsAlone(t *testing.T) {
	f := newFamily(t)
	ctx := context.Background()
	f.publish("date,amount,name\n2026-03-01,-10,Coffee Corner\n2026-03-02,-12,Coffee Corner\n")
	drinks := f.named("categories", "Drinks")
	treats := f.named("categories", "Treats")
	f.rule(1, "Coffee", true, []rules.Condition{{Type: "transaction_name", Operator: "like", Value: "coffee"}},
		[]rules.Action{{Type: "set_transaction_category", Value: drinks.String()}, {Type: "exclude_transaction"}})
	// One of the two was set by hand: its category is Treats and locked.
	if _, err := f.d.NewRaw(`UPDATE entries SET category_id = ?, locked_fields = '{category}'
		WHERE id = (SELECT id FROM entries WHERE family_id = ? AND date = '2026-03-02')`, treats, f.u.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	err := f.d.InTx(ctx, func(ctx context.Context, tx db.Tx) (err error) {
		n, err = rules.Runner{}.Run(ctx, tx, f.u.FamilyID, rules.Scope{All: true})
		return err
	})
	if err != nil || n != 2 {
		t.Fatalf("run over history: %d changed, %v", n, err)
	}
	var rows []struct {
		Category string `bun:"category"`
		Excluded bool   `bun:"excluded"`
	}
	if err := f.d.NewRaw(`SELECT c.name AS category, e.excluded FROM entries e JOIN categories c ON c.id = e.category_id
		WHERE e.family_id = ? ORDER BY e.date`, f.u.FamilyID).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Category != "Drinks" || !rows[0].Excluded || rows[1].Category != "Treats" || !rows[1].Excluded {
		t.Errorf("after the run: %+v; want Drinks and the hand-set Treats, both excluded", rows)
	}
	// Another family's transactions are not touched by this family's rules.
	other := newFamily(t)
	other.publish("date,amount,name\n2026-03-01,-10,Coffee Corner\n")
	if got := other.entries()["Coffee Corner"]; got.Category != nil || got.Excluded {
		t.Errorf("another family's transaction changed: %+v", got)
	}
}

func ptr(s string) *string { return &s }

// TestUndoOfAnApplicationStaysAndKeepsLaterEdits applies a rule to the history and undoes it
// an hour later, after a person changed one of its transactions: the undo is still offered,
// puts the others back, and leaves the person's edit; past models.UndoWindow it is refused.
func TestUndoOfAnApplicationStaysAndKeepsLaterEdits(t *testing.T) {
	f := newFamily(t)
	ctx := context.Background()
	f.publish("date,amount,name\n2026-03-01,-10,Coffee Corner\n2026-03-02,-12,Coffee Corner\n2026-03-03,-4,Coffee Corner\n")
	drinks, treats := f.named("categories", "Drinks"), f.named("categories", "Treats")
	st, err := rules.Create(ctx, f.d, models.FamilyViewer(f.u.FamilyID), rules.Input{Name: ptr("Coffee"),
		Conditions: &[]rules.Condition{{Type: "transaction_name", Operator: "like", Value: "coffee"}},
		Actions:    &[]rules.Action{{Type: "set_transaction_category", Value: drinks.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	app, err := rules.ApplyToHistory(ctx, f.d, models.FamilyViewer(f.u.FamilyID), st.ID)
	if err != nil || app.Changed != 3 || app.RuleName != "Coffee" {
		t.Fatalf("apply: %+v, %v", app, err)
	}
	// An hour passes, then a person gives one of them another category by hand.
	if _, err := f.d.NewRaw(`UPDATE transaction_changes SET created_at = created_at - interval '1 hour' WHERE id = ?;
		UPDATE entries SET updated_at = updated_at - interval '1 hour' WHERE family_id = ?`, app.ID, f.u.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var edited uuid.UUID
	if err := f.d.NewRaw("SELECT id FROM entries WHERE family_id = ? AND date = '2026-03-02'", f.u.FamilyID).Scan(ctx, &edited); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Update(ctx, f.d, models.FamilyViewer(f.u.FamilyID), edited, ledger.Patch{Category: &ledger.Ref{ID: &treats}}); err != nil {
		t.Fatal(err)
	}
	open, err := rules.OpenApplications(ctx, f.d, models.FamilyViewer(f.u.FamilyID), 10)
	if err != nil || len(open) != 1 || open[0].ID != app.ID || open[0].Changed != 3 {
		t.Fatalf("the applications still offered: %+v, %v", open, err)
	}
	done, err := models.UndoChange(ctx, f.d, models.FamilyViewer(f.u.FamilyID), app.ID)
	if err != nil || done != (models.Undone{Restored: 2, Kept: 1}) {
		t.Fatalf("undo: %+v, %v", done, err)
	}
	var categories []string
	if err := f.d.NewRaw(`SELECT coalesce(c.name, '') FROM entries e LEFT JOIN categories c ON c.id = e.category_id
		WHERE e.family_id = ? AND e.kind = 'transaction' ORDER BY e.date`, f.u.FamilyID).Scan(ctx, &categories); err != nil {
		t.Fatal(err)
	}
	if strings.Join(categories, ",") != ",Treats," {
		t.Errorf("categories after the undo: %q, want none but the hand-set Treats", categories)
	}
	if open, err := rules.OpenApplications(ctx, f.d, models.FamilyViewer(f.u.FamilyID), 10); err != nil || len(open) != 0 {
		t.Errorf("an undone application is still offered: %+v, %v", open, err)
	}

	// Past the window, an application can no longer be undone.
	again, err := rules.ApplyToHistory(ctx, f.d, models.FamilyViewer(f.u.FamilyID), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.d.NewRaw("UPDATE transaction_changes SET undo_until = now() - interval '1 second' WHERE id = ?", again.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := models.UndoChange(ctx, f.d, models.FamilyViewer(f.u.FamilyID), again.ID); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("an undo past the window: %v, want a conflict", err)
	}
}

// TestMarkAsTransfer marks card payments as transfers to the card by rule: the payment stops
// counting as spending when it is published, before the card's side exists, and pairs with
// that side when the card's statement arrives.
func TestMarkAsTransfer(t *testing.T) {
	ctx := context.Background()
	f := newFamily(t)
	card := testkit.MustCreateAccount(t, f.d, f.u.FamilyID, "Visa", "CreditCard", "").ID
	f.rule(1, "Card payments", true, []rules.Condition{{Type: "transaction_name", Operator: "starts_with", Value: "visa autopay"}},
		[]rules.Action{{Type: "mark_as_transfer", Value: card.String()}})
	f.publish("date,amount,name\n2026-03-01,-250,VISA AUTOPAY 0311\n2026-03-03,-250,GROCERIES\n")
	kinds := func() string {
		var got []string
		if err := f.d.NewRaw(`SELECT e.name || ':' || e.transaction_kind || ':' || (t.id IS NOT NULL) FROM entries e
			LEFT JOIN transfers t ON e.id IN (t.inflow_entry_id, t.outflow_entry_id)
			WHERE e.family_id = ? AND e.kind = 'transaction' ORDER BY e.date, e.name`, f.u.FamilyID).Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	if got, want := kinds(), "VISA AUTOPAY 0311:cc_payment:false GROCERIES:standard:false"; got != want {
		t.Errorf("after the checking import: %s, want %s", got, want)
	}

	// The card's statement: its payment pairs with the marked one, not with the grocery
	// purchase of the same amount on its own day.
	cardID := card.String()
	df := "%Y-%m-%d"
	det, err := f.svc.Create(ctx, imports.Request{FamilyID: f.u.FamilyID, UserID: f.u.ID, DateFormat: &df, Publish: true, AccountID: &cardID,
		Upload: imports.Upload{Content: []byte("date,amount,name\n2026-03-03,250,PAYMENT THANK YOU\n"), Present: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RunPublish(ctx, det.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(), "VISA AUTOPAY 0311:cc_payment:true GROCERIES:standard:false PAYMENT THANK YOU:funds_movement:true"; got != want {
		t.Errorf("after the card import: %s, want %s", got, want)
	}
}
