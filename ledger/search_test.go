package ledger_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/ledger"
	"tally/models"
	"tally/testkit"
)

// TestSearchFindsEveryWord is the search of the transactions lists: every word is found, in any
// order, whatever its case and accents, in the name, the notes or the merchant's name, or in
// the amount when it reads as money; a word no transaction has finds nothing.
func TestSearchFindsEveryWord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Girokonto", "Depository", "")
	amazon, mueller := uuid.New(), uuid.New()
	if _, err := d.NewRaw("INSERT INTO merchants (id, family_id, name) VALUES (?, ?, 'Amazon'), (?, ?, 'Müller')", amazon, u.FamilyID, mueller, u.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name, notes, amount string // amount in the ledger's sign: positive for money out
		merchant            *uuid.UUID
	}{
		{"REWE Markt Grünwald", "", "13.99", nil},
		{"Refund REWE", "", "-13.99", nil},
		{"Café Müller", "Frühstück mit Ana", "8.50", nil},
		{"AMZN Mktp DE", "", "42.00", &amazon},
		{"Gehalt November", "", "-2500.00", nil},
		{"Straße des 17. Juni Parkhaus", "", "3.00", nil},
		{"Miete", "", "1234.56", nil},
		{"Shop_1", "", "5.00", nil},
		{"Shopx1", "", "5.00", nil},
		{"Baeckerei Gruenwald", "", "3.20", nil}, // a bank that writes umlauts out
		{"Blumenhaus Berger", "", "24.90", nil},
		{"KARTENZAHLUNG 4711", "", "12.95", &mueller},
	} {
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes, merchant_id)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', '2026-11-02', ?, 'EUR', ?, ?, ?)`,
			u.FamilyID, acct.ID, e.amount, e.name, e.notes, e.merchant).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Another family's transaction is never found.
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	theirs := testkit.MustCreateAccount(t, d, other.FamilyID, "Checking", "Depository", "")
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', '2026-11-02', 13.99, 'EUR', 'REWE Markt Grünwald')`, other.FamilyID, theirs.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"two words", "rewe grünwald", []string{"REWE Markt Grünwald"}},
		{"two words in the other order", "grünwald rewe", []string{"REWE Markt Grünwald"}},
		{"without the accent the name has", "grunwald", []string{"REWE Markt Grünwald"}},
		{"with an accent the name lacks", "rewé", []string{"REWE Markt Grünwald", "Refund REWE"}},
		{"upper case", "GRÜNWALD", []string{"REWE Markt Grünwald", "Baeckerei Gruenwald"}},
		{"a quoted phrase", `"markt grünwald"`, []string{"REWE Markt Grünwald"}},
		{"a quoted phrase is in its order", `"grünwald markt"`, nil},
		{"part of a word", "mark", []string{"REWE Markt Grünwald"}},
		{"an umlaut typed out", "gruenwald", []string{"REWE Markt Grünwald", "Baeckerei Gruenwald"}},
		{"an umlaut typed out, in capitals", "GRUENWALD", []string{"REWE Markt Grünwald", "Baeckerei Gruenwald"}},
		{"an umlaut the bank wrote out", "grünwald", []string{"REWE Markt Grünwald", "Baeckerei Gruenwald"}},
		{"an umlaut the bank wrote out, another word", "bäckerei", []string{"Baeckerei Gruenwald"}},
		{"an umlaut typed out beside another word", "rewe gruenwald", []string{"REWE Markt Grünwald"}},
		{"umlauts typed out in the notes", "fruehstueck", []string{"Café Müller"}},
		{"without the umlaut is not the bank's spelling", "grunwald baeckerei", nil},
		{"ue that is no umlaut's", "blue", nil},
		{"a merchant's umlaut typed out", "mueller", []string{"Café Müller", "KARTENZAHLUNG 4711"}},
		{"ß as ss", "strasse", []string{"Straße des 17. Juni Parkhaus"}},
		{"ß in the search", "STRAßE", []string{"Straße des 17. Juni Parkhaus"}},
		{"in the notes, without accents", "fruhstuck ana", []string{"Café Müller"}},
		{"one word in the name, one in the notes", "cafe frühstück", []string{"Café Müller"}},
		{"the merchant's name", "amazon", []string{"AMZN Mktp DE"}},
		{"the merchant's name and the bank's", "amzn AMAZON", []string{"AMZN Mktp DE"}},
		{"a word no transaction has beside one that many have", "rewe münchen", nil},
		{"words of two transactions", "amazon gehalt", nil},
		{"an amount, either way", "13.99", []string{"REWE Markt Grünwald", "Refund REWE"}},
		{"money out", "-13.99", []string{"REWE Markt Grünwald"}},
		{"money in", "+13.99", []string{"Refund REWE"}},
		{"a decimal comma", "13,99", []string{"REWE Markt Grünwald", "Refund REWE"}},
		{"a currency symbol in the word", "13,99€", []string{"REWE Markt Grünwald", "Refund REWE"}},
		{"a currency symbol apart", "13,99 €", []string{"REWE Markt Grünwald", "Refund REWE"}},
		{"an amount and a word", "rewe -13.99", []string{"REWE Markt Grünwald"}},
		{"thousands grouped, decimal comma", "1.234,56", []string{"Miete"}},
		{"thousands grouped, decimal point", "1,234.56", []string{"Miete"}},
		{"a whole amount", "2500", []string{"Gehalt November"}},
		{"an amount nobody spent", "13.98", nil},
		{"a number in the name", "17.", []string{"Straße des 17. Juni Parkhaus"}},
		{"two digits", "17", []string{"Straße des 17. Juni Parkhaus"}},
		{"two letters", "de", []string{"AMZN Mktp DE", "Straße des 17. Juni Parkhaus"}},
		{"two letters beside a word", "de amazon", []string{"AMZN Mktp DE"}},
		{"an underscore is itself", "p_1", []string{"Shop_1"}},
		{"a percent sign is itself", "shop%", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, _, err := ledger.List(ctx, d, models.FamilyViewer(u.FamilyID), ledger.Filter{Query: tc.query}, nil, 50)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r.Name)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%q found %q, want %q", tc.query, got, want)
			}
			totals, err := ledger.Totals(ctx, d, models.FamilyViewer(u.FamilyID), ledger.Filter{Query: tc.query})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(want); (n == 0) != (len(totals) == 0) || n > 0 && totals[0].Count != n {
				t.Errorf("%q: the totals count %+v, want %d", tc.query, totals, n)
			}
		})
	}
}

// TestSearchIsReadThroughItsIndexes checks the plans of searches among 200,000 transactions of
// two families, where without an index of the words every page and total would read the whole
// family: a word is found through entries_search_idx, a merchant's name through
// entries_merchant_idx, and an amount through the (family, amount) index.
func TestSearchIsReadThroughItsIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	var familyID uuid.UUID
	for range 2 {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Girokonto", "Depository", "")
		edeka := uuid.New()
		if _, err := d.NewRaw("INSERT INTO merchants (id, family_id, name) VALUES (?, ?, 'Edeka')", edeka, u.FamilyID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// Every 5,000th is Edeka's, under the card's text.
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes, merchant_id)
			SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-11-01' - (i % 1100), (i % 3000) / 100.0, 'EUR',
				'Kartenzahlung ' || md5(i::text), 'Beleg ' || (i % 1000), CASE WHEN i % 5000 = 0 THEN ?::uuid END
			FROM generate_series(1, 100000) AS i`, u.FamilyID, acct.ID, edeka).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-10-01' - i, 13.99, 'EUR', 'REWE Markt Grünwald'
			FROM generate_series(1, 6) AS i`, u.FamilyID, acct.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		familyID = u.FamilyID
	}
	if _, err := d.NewRaw("ANALYZE entries; ANALYZE merchants").Exec(ctx); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		query string
		want  int    // transactions found
		index string // read through this index
	}{
		{"rewe grunwald", 6, "entries_search_idx"},
		{"edeka", 20, "entries_merchant_idx"},
		{"-13.99", 33 + 6, "entries_transfer_match_idx"},
	} {
		wantSearchThrough(t, d, familyID, tc.query, tc.want, tc.index)
	}
}

// wantSearchThrough fails t unless a search of the family's transactions for query finds want
// of them (at most a page of 50), its page and its totals alike, each read through index and
// neither through a scan of the table nor of the family's transactions by date.
func wantSearchThrough(t *testing.T, d *db.DB, familyID uuid.UUID, query string, want int, index string) {
	t.Helper()
	ctx := context.Background()
	for _, run := range []struct {
		name, sql string // sql is in the query, and only in it
		do        func() (int, error)
	}{
		{"rows", `FROM "entries" AS "e"`, func() (int, error) {
			rows, _, err := ledger.Rows(ctx, d, models.FamilyViewer(familyID), ledger.Filter{Query: query}, nil, 50)
			return len(rows), err
		}},
		{"totals", "FROM entries AS e", func() (int, error) {
			totals, err := ledger.Totals(ctx, d, models.FamilyViewer(familyID), ledger.Filter{Query: query})
			if len(totals) == 0 {
				return 0, err
			}
			return totals[0].Count, err
		}},
	} {
		queries := testkit.RecordQueries(d, run.sql)
		n, err := run.do()
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s of %q: %d transactions, want %d", run.name, query, n, want)
		}
		plan, raw := testkit.Explain(t, d, queries.Last(t))
		indexed, whole := false, false
		plan.Walk(func(n testkit.PlanNode) {
			indexed = indexed || n.Index == index
			// A scan of the table, or of the family's transactions by date, filtered one by one.
			whole = whole || n.Relation == "entries" && (n.Type == "Seq Scan" || n.Index == "entries_family_date_idx")
		})
		if !indexed || whole {
			t.Errorf("%s of %q is not read through %s alone:\n%s", run.name, query, index, raw)
		}
	}
}

// TestGermanSearchIsReadThroughItsIndex checks that a word found in either German spelling is
// still read through entries_search_idx in a family of 500,000 transactions: the spelled-out
// pattern is a second scan of the same index, and only the rows it finds are folded again.
func TestGermanSearchIsReadThroughItsIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Girokonto", "Depository", "")
	// Card payments under the card's text; every 50,000th a café whose name the bank writes
	// with its umlaut, and every 50,000th a bakery whose name it writes out.
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes)
		SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-11-01' - (i % 3650), (i % 3000) / 100.0, 'EUR',
			CASE i % 50000 WHEN 0 THEN 'Café Müller München' WHEN 25000 THEN 'Baeckerei Mueller Gruenwald' ELSE 'Kartenzahlung ' || md5(i::text) END,
			'Beleg ' || (i % 1000)
		FROM generate_series(1, 500000) AS i`, u.FamilyID, acct.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-10-01' - i, 13.99, 'EUR', 'REWE Markt Grünwald'
		FROM generate_series(1, 6) AS i`, u.FamilyID, acct.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"gruenwald", 10 + 6},
		{"grünwald", 10 + 6},
		{"rewe gruenwald", 6},
		{"mueller gruenwald", 10},
		{"müller", 10 + 10},
	} {
		wantSearchThrough(t, d, u.FamilyID, tc.query, tc.want, "entries_search_idx")
	}
}
