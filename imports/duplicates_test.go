package imports_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/imports"
	"tally/testkit"
)

// rowRules are the rules that matched the import's rows, "-" for none, in file order.
func (im *importer) rowRules(d *imports.Detail) string {
	im.t.Helper()
	rows, _, err := imports.Rows(context.Background(), im.d, imports.RowFilter{ImportID: d.ID, Page: 1, PerPage: 100})
	if err != nil {
		im.t.Fatal(err)
	}
	if _, err := imports.AlreadyThere(context.Background(), im.d, d, rows); err != nil {
		im.t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		rule := r.MatchedBy
		if rule == "" {
			rule = "-"
		}
		out = append(out, fmt.Sprintf("%d:%s", r.RowNumber, rule))
	}
	return strings.Join(out, " ")
}

func (im *importer) detail(id uuid.UUID) *imports.Detail {
	im.t.Helper()
	got, err := imports.Get(context.Background(), im.d, im.user.FamilyID, id)
	if err != nil {
		im.t.Fatal(err)
	}
	d, err := imports.Describe(context.Background(), im.d, got)
	if err != nil {
		im.t.Fatal(err)
	}
	return d
}

// TestLikelyDuplicates uploads again, with its names lost, a file whose transactions are in
// the account: a row of the same date and amount and another name is a likely duplicate, each
// transaction already there is matched by one row only (two equal coffees against one are one
// duplicate and one new), a kept row is published, and the rest are skipped.
func TestLikelyDuplicates(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	acct := im.account("Girokonto")
	first := "date,amount,name\n" +
		"2025-03-01,-5.00,Coffee Bar\n" +
		"2025-03-02,-42.10,REWE Markt\n" +
		"2025-03-03,-9.99,Netflix\n" +
		"2025-03-05,-5.00,Coffee Bar\n"
	if status := im.publish(im.upload(first, &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the first file ended %s", status)
	}
	again := im.upload("date,amount,name\n"+
		"2025-03-01,-5.00,coffee  bar\n"+ // 1: the same name, but for case and spacing
		"2025-03-01,-5.00,Coffee Bar\n"+ // 2: a second coffee that day: new
		"2025-03-02,-42.10,Imported item\n"+ // 3: the name was not read
		"2025-03-03,-9.99,\n"+ // 4: no name at all
		"2025-03-04,-7.00,Kiosk\n"+ // 5: new
		"2025-03-05,-5.00,\n"+ // 6: two unnamed coffees against one
		"2025-03-05,-5.00,\n"+ // 7: the second is new
		"2025-03-02,-42.10,REWE Markt\n", // 8: REWE's own row, after the unnamed one
		&acct)
	d := im.detail(again.ID)
	// Row 8 matches REWE by name, so the unnamed row 3 has nothing left to match.
	if got, want := im.rowRules(d), "1:content 2:- 3:- 4:likely 5:- 6:likely 7:- 8:content"; got != want {
		t.Errorf("rules before publishing:\n got %s\nwant %s", got, want)
	}
	if m, _ := imports.AlreadyThere(context.Background(), im.d, d, nil); m != (imports.Matches{Duplicates: 4, Likely: 2}) {
		t.Errorf("counts before publishing: %+v", m)
	}

	if err := im.s.Keep(context.Background(), im.user.FamilyID, again.ID, imports.KeepChoice{Rows: map[int]bool{6: true}}); err != nil {
		t.Fatal(err)
	}
	if got, want := im.rowRules(d), "1:content 2:- 3:- 4:likely 5:- 6:likely_kept 7:- 8:content"; got != want {
		t.Errorf("rules once row 6 is kept:\n got %s\nwant %s", got, want)
	}
	if err := im.s.Keep(context.Background(), im.user.FamilyID, again.ID, imports.KeepChoice{Rows: map[int]bool{9: true}}); err == nil {
		t.Error("a row the import does not have was kept")
	}

	if status := im.publish(again.ID); status != imports.StatusComplete {
		t.Fatalf("the second file ended %s", status)
	}
	done := im.detail(again.ID)
	if done.DuplicateRowsCount != 3 || done.LikelyDuplicateRowsCount != 1 {
		t.Errorf("after publishing: %d duplicates, %d of them likely; want 3 and 1", done.DuplicateRowsCount, done.LikelyDuplicateRowsCount)
	}
	var added []string
	if err := im.d.NewRaw("SELECT date || ' ' || name FROM entries WHERE import_id = ? ORDER BY date, name", again.ID).Scan(context.Background(), &added); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(added, ", "), "2025-03-01 Coffee Bar, 2025-03-02 Imported item, 2025-03-04 Kiosk, 2025-03-05 Imported item, 2025-03-05 Imported item"; got != want {
		t.Errorf("published:\n got %s\nwant %s", got, want)
	}
}

// TestLikelyDuplicatesCountedInOnePass checks the count for review of a file uploaded again
// with every name lost, all of its rows likely duplicates, some of them of the same day and
// amount: the rows are read once, and the entries by account and day.
func TestLikelyDuplicatesCountedInOnePass(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	acct := im.account("Checking")
	if status := im.publish(im.upload(spending(3000), &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the earlier import ended %s", status)
	}
	queries := testkit.RecordQueries(im.d, "SELECT rule, count(*)")
	d := im.upload(regexp.MustCompile(`Shop \d+`).ReplaceAllString(spending(3000), "Imported item"), &acct)
	m, err := imports.AlreadyThere(context.Background(), im.d, d, nil)
	if err != nil || m != (imports.Matches{Duplicates: 3000, Likely: 3000}) {
		t.Fatalf("already there: %+v, %v; want all 3000 rows likely duplicates", m, err)
	}
	plan, raw := testkit.Explain(t, im.d, queries.Last(t))
	checkOnePass(t, "the count of likely duplicates", plan, raw)
}

// TestContentRuleKeepsCurrenciesApart uploads again a day's two payments of the same amount and
// name, one in euros and one in dollars, into a dollar account: each is the duplicate of its
// own currency's transaction. Rows of another currency than the account's once shared its
// count of the day's entries, so the second row found its entry taken by the first.
func TestContentRuleKeepsCurrenciesApart(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	acct := im.account("Checking")
	file := "date,amount,name,currency\n" +
		"2025-03-01,-10.00,Shop,EUR\n" +
		"2025-03-01,-10.00,Shop,USD\n"
	if status := im.publish(im.upload(file, &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the first import ended %s", status)
	}
	var currencies []string
	if err := im.d.NewRaw("SELECT currency FROM entries WHERE account_id = ? AND kind = 'transaction' ORDER BY currency", acct).Scan(context.Background(), &currencies); err != nil {
		t.Fatal(err)
	}
	if strings.Join(currencies, " ") != "EUR USD" {
		t.Fatalf("the first import wrote entries in %v, want one in EUR and one in USD", currencies)
	}
	again := im.upload(file, &acct)
	if got, want := im.rowRules(again), "1:content 2:content"; got != want {
		t.Errorf("rules %q, want %q", got, want)
	}
}

// TestASplitsPartsAreNotDuplicates uploads again, split into two parts since, a transaction of
// the account: a row of a part's day and amount is new, as the ledger has the whole and not the
// part as a transaction of the account, while the whole's own row is still its duplicate.
func TestASplitsPartsAreNotDuplicates(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	acct := im.account("Girokonto")
	if status := im.publish(im.upload("date,amount,name\n2025-03-02,-42.10,REWE Markt\n", &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the first file ended %s", status)
	}
	if _, err := im.d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, parent_id)
		SELECT gen_random_uuid(), family_id, account_id, 'transaction', date, sign(amount) * part, currency, 'Groceries', id
		FROM entries, (VALUES (30.00), (12.10)) AS p (part) WHERE account_id = ? AND name = 'REWE Markt'`, acct).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := im.upload("date,amount,name\n2025-03-02,-30.00,Groceries\n2025-03-02,-42.10,Kartenzahlung\n", &acct)
	if got, want := im.rowRules(again), "1:- 2:likely"; got != want {
		t.Errorf("rules %q, want %q", got, want)
	}
}
