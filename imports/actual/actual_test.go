package actual

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// household is testdata/household.zip, an export made by Actual itself (testdata/make).
func household(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/household.zip")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t *testing.T, content []byte) *movein.Budget {
	t.Helper()
	b, err := Read(context.Background(), content)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := b.Check(); err != nil {
		t.Fatalf("the budget read does not hold together: %v", err)
	}
	return b
}

// figures is testdata/household.figures.json: what Actual itself shows for the export.
type figures struct {
	Months map[string]struct {
		ToBudget     int64 `json:"toBudget"`
		ForNextMonth int64 `json:"forNextMonth"`
		Categories   map[string]struct {
			Budgeted  int64 `json:"budgeted"`
			Spent     int64 `json:"spent"`
			Balance   int64 `json:"balance"`
			Carryover bool  `json:"carryover"`
		} `json:"categories"`
	} `json:"months"`
	Accounts map[string]int64 `json:"accounts"`
}

func loadFigures(t *testing.T) figures {
	t.Helper()
	b, err := os.ReadFile("testdata/household.figures.json")
	if err != nil {
		t.Fatal(err)
	}
	var f figures
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// cents is a decimal amount in Actual's hundredths and sign (money in is positive).
func cents(d decimal.Decimal) int64 { return d.Shift(2).Neg().IntPart() }

var d = decimal.RequireFromString

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// names indexes a budget's names by id and ids by name.
type names struct{ byName, byID map[string]string }

func index(b *movein.Budget) names {
	n := names{byName: map[string]string{}, byID: map[string]string{}}
	add := func(id, name string) { n.byName[name], n.byID[id] = id, name }
	for _, a := range b.Accounts {
		add(a.ID, a.Name)
	}
	for _, c := range b.Categories {
		add(c.ID, c.Name)
	}
	for _, p := range b.Payees {
		if p.TransferAccount == "" {
			add(p.ID, p.Name)
		}
	}
	return n
}

// The household's accounts, categories, transactions and budget read as Actual shows them:
// each account's balance, and each month's budgeted, spent and balance per category,
// recomputed from what was read with the rollover it says, are Actual's own figures.
func TestHouseholdReadsAsActualShowsIt(t *testing.T) {
	b := read(t, household(t))
	want := loadFigures(t)
	n := index(b)

	if b.Source != movein.SourceActual || b.Name != "Household" || b.Style != movein.Envelope || b.Currency != "" {
		t.Errorf("budget %q from %q, style %q, currency %q", b.Name, b.Source, b.Style, b.Currency)
	}
	if len(b.Accounts) != 3 || len(b.Transactions) != 19 || len(b.Groups) != 4 || len(b.Categories) != 9 {
		t.Errorf("%d accounts, %d transactions, %d groups, %d categories; want 3, 19 (the deleted one left out), 4, 9",
			len(b.Accounts), len(b.Transactions), len(b.Groups), len(b.Categories))
	}
	balances := map[string]decimal.Decimal{}
	for _, tx := range b.Transactions {
		balances[tx.AccountID] = balances[tx.AccountID].Add(tx.Amount.Decimal())
		if strings.Contains(tx.Notes, "entered twice") {
			t.Errorf("the deleted transaction %s was read", tx.ID)
		}
	}
	for _, a := range b.Accounts {
		if got := cents(balances[a.ID]); got != want.Accounts[a.Name] {
			t.Errorf("account %s: balance %d, Actual shows %d", a.Name, got, want.Accounts[a.Name])
		}
		if a.OnBudget != (a.Name != "Brokerage") || a.Closed {
			t.Errorf("account %s: on budget %v, closed %v", a.Name, a.OnBudget, a.Closed)
		}
	}

	figures := budgetFigures(b)
	for month, m := range want.Months {
		got := figures[month]
		for name, c := range m.Categories {
			if c.Budgeted == 0 && c.Spent == 0 && c.Balance == 0 {
				continue // income categories and unused ones
			}
			g := got.categories[n.byName[name]]
			if g != [3]int64{c.Budgeted, c.Spent, c.Balance} {
				t.Errorf("%s %s: budgeted, spent, balance %v, Actual shows %v", month, name, g, [3]int64{c.Budgeted, c.Spent, c.Balance})
			}
		}
		if got.toBudget != m.ToBudget || got.held != m.ForNextMonth {
			t.Errorf("%s: to budget %d, held %d; Actual shows %d, %d", month, got.toBudget, got.held, m.ToBudget, m.ForNextMonth)
		}
	}
}

// monthFigures are one month's figures in Actual's hundredths and sign.
type monthFigures struct {
	categories     map[string][3]int64 // budgeted, spent, balance
	toBudget, held int64
}

// budgetFigures computes Actual's envelope figures from a budget read: each category's
// balance is its budget less its spending plus what the month before left it (a surplus
// always, an overspend with RolloverBoth); an overspend that does not carry, and money
// held, come out of the next month's "to budget", which income on budget accounts fills.
func budgetFigures(b *movein.Budget) map[string]monthFigures {
	income := map[string]bool{}
	for _, c := range b.Categories {
		income[c.ID] = c.Income
	}
	onBudget := map[string]bool{}
	for _, a := range b.Accounts {
		onBudget[a.ID] = a.OnBudget
	}
	spent := map[string]map[string]int64{} // month → category → hundredths, Actual's sign
	in := map[string]int64{}
	add := func(month, category string, amount decimal.Decimal) {
		if income[category] {
			in[month] += cents(amount)
			return
		}
		if spent[month] == nil {
			spent[month] = map[string]int64{}
		}
		spent[month][category] += cents(amount)
	}
	for _, tx := range b.Transactions {
		if !onBudget[tx.AccountID] {
			continue
		}
		month := tx.Date.Format("2006-01")
		add(month, tx.CategoryID, tx.Amount.Decimal())
		for _, s := range tx.Splits {
			add(month, s.CategoryID, s.Amount.Decimal())
		}
	}
	out := map[string]monthFigures{}
	carry := map[string]int64{}
	toBudget, overspent, held := int64(0), int64(0), int64(0)
	for m := day("2026-07-01"); !m.After(day("2026-10-01")); m = m.AddDate(0, 1, 0) {
		month := m.Format("2006-01")
		f := monthFigures{categories: map[string][3]int64{}}
		toBudget += in[month] - overspent + held
		overspent, held = 0, 0
		lines := map[string]movein.Line{}
		for _, bm := range b.Months {
			if bm.Month.Equal(m) {
				for _, l := range bm.Lines {
					lines[l.CategoryID] = l
				}
				held = cents(bm.Held.Neg())
			}
		}
		for _, c := range b.Categories {
			if c.Income {
				continue
			}
			budgeted := cents(lines[c.ID].Budgeted.Neg())
			balance := budgeted + spent[month][c.ID] + carry[c.ID]
			toBudget -= budgeted
			f.categories[c.ID] = [3]int64{budgeted, spent[month][c.ID], balance}
			switch {
			case balance >= 0 || lines[c.ID].Rollover == movein.RolloverBoth:
				carry[c.ID] = balance
			default:
				carry[c.ID], overspent = 0, overspent-balance
			}
		}
		toBudget -= held
		f.toBudget, f.held = toBudget, held
		out[month] = f
	}
	return out
}

func TestHouseholdDetails(t *testing.T) {
	b := read(t, household(t))
	n := index(b)
	byNotes := map[string]movein.Transaction{}
	for _, tx := range b.Transactions {
		byNotes[tx.Notes] = tx
	}

	shop := byNotes["Weekly shop and a dinner"]
	if !shop.Amount.Equal(d("380")) || shop.CategoryID != "" || n.byID[shop.PayeeID] != "Supermarket" ||
		shop.ImportedID != "bank-0001" || shop.ImportedPayee != "SUPERMKT 0042 SPRINGFIELD" || !shop.Cleared || len(shop.Splits) != 2 {
		t.Fatalf("the split shop is %+v", shop)
	}
	for i, want := range []struct{ amount, category, notes string }{{"350", "Groceries", "Food"}, {"30", "Dining", "Takeaway"}} {
		s := shop.Splits[i]
		if !s.Amount.Equal(d(want.amount)) || n.byID[s.CategoryID] != want.category || s.Notes != want.notes || s.PayeeID != "" {
			t.Errorf("split part %d is %+v, want %+v", i, s, want)
		}
	}

	out, in := byNotes["Holiday fund"], movein.Transaction{}
	for _, tx := range b.Transactions {
		if tx.ID == out.TransferID {
			in = tx
		}
	}
	if n.byID[out.AccountID] != "Checking" || !out.Amount.Equal(d("500")) || n.byID[in.AccountID] != "Savings" ||
		!in.Amount.Equal(d("-500")) || in.TransferID != out.ID || in.Cleared {
		t.Errorf("the transfer's sides are %+v and %+v", out, in)
	}

	opening := map[string]string{}
	for _, tx := range b.Transactions {
		if tx.Opening {
			opening[n.byID[tx.AccountID]] = tx.Amount.String()
		}
		if tx.Reconciled && (n.byID[tx.PayeeID] != "Landlord" || !tx.Date.Equal(day("2026-08-02"))) {
			t.Errorf("transaction %+v is reconciled", tx)
		}
		if !tx.Cleared && tx.Date.Equal(day("2026-10-12")) == (tx.ID == in.ID) {
			t.Errorf("transaction %+v is not cleared", tx)
		}
	}
	if want := map[string]string{"Checking": "-2500", "Savings": "-5000", "Brokerage": "-12000"}; !equalMaps(opening, want) {
		t.Errorf("opening balances %v, want %v", opening, want)
	}

	hidden := map[string]bool{}
	for _, c := range b.Categories {
		hidden[c.Name] = c.Hidden
	}
	if !hidden["Old Gym"] || hidden["Dining"] {
		t.Errorf("hidden categories: %v", hidden)
	}
	var renamed []string
	for _, no := range b.Notices {
		if no.What == movein.Renamed {
			renamed = append(renamed, no.String())
		}
	}
	if want := []string{`category group "Income": an active category is called "Income" too, and Tally's category names are unique: kept as "Income (group)"`}; !equalSlices(renamed, want) {
		t.Errorf("renamings %q, want %q", renamed, want)
	}

	groceries := movein.Line{}
	for _, m := range b.Months {
		for _, l := range m.Lines {
			if m.Month.Equal(day("2026-09-01")) && n.byID[l.CategoryID] == "Groceries" {
				groceries = l
			}
			if n.byID[l.CategoryID] == "Dining" && l.Rollover != movein.RolloverSurplus {
				t.Errorf("Dining's rollover in %s is %s, want surplus", m.Month.Format("2006-01"), l.Rollover)
			}
		}
	}
	if !groceries.Budgeted.Equal(d("300")) || groceries.Rollover != movein.RolloverBoth {
		t.Errorf("Groceries in September: %+v", groceries)
	}
}

func TestHouseholdSchedulesRulesGoals(t *testing.T) {
	b := read(t, household(t))
	n := index(b)
	if len(b.Schedules) != 1 {
		t.Fatalf("%d schedules, want 1", len(b.Schedules))
	}
	s := b.Schedules[0]
	if s.Name != "Rent" || n.byID[s.AccountID] != "Checking" || n.byID[s.PayeeID] != "Landlord" || !s.Amount.Equal(d("1200")) ||
		!s.Min.Equal(s.Amount) || !s.Max.Equal(s.Amount) || !s.Active || !s.Start.Equal(day("2026-11-02")) || s.Next.Before(s.Start) ||
		s.Next.Day() != 2 || s.Repeat.Unit != movein.UnitMonth || s.Repeat.Every != 1 || s.Repeat.Times != 1 || s.Repeat.Count != 0 {
		t.Errorf("the schedule is %+v", s)
	}

	if len(b.Rules) != 2 {
		t.Fatalf("%d rules (the schedule's own left out), want 2: %+v", len(b.Rules), b.Rules)
	}
	shop, big := b.Rules[0], b.Rules[1]
	if shop.Stage == "post" {
		shop, big = big, shop
	}
	if !shop.Expressible || shop.Match != "all" || len(shop.Conditions) != 1 || shop.Conditions[0] != (movein.Condition{Field: "imported_payee", Op: "contains", Value: "SUPERMKT"}) ||
		len(shop.Actions) != 1 || shop.Actions[0].Field != "category" || n.byID[shop.Actions[0].Value.(string)] != "Groceries" ||
		!strings.Contains(shop.Source, `"imported_description"`) {
		t.Errorf("the shop rule is %+v", shop)
	}
	if big.Expressible || big.Why != "Tally's rules cannot test payee isNot" || big.Conditions[1].Op != "gt" ||
		!big.Conditions[1].Value.(decimal.Decimal).Equal(d("1000")) {
		t.Errorf("the big-amount rule is %+v", big)
	}
	found := false
	for _, no := range b.Notices {
		found = found || (no.What == movein.NotKept && no.Entity == movein.EntityRule && no.ID == big.ID)
	}
	if !found {
		t.Errorf("no notice says the big-amount rule cannot be kept: %v", b.Notices)
	}

	goals := map[string]movein.Goal{}
	for _, g := range b.Goals {
		goals[n.byID[g.CategoryID]] = g
	}
	if g := goals["Groceries"]; len(b.Goals) != 2 || g.Kind != movein.GoalMonthly || !g.Amount.Equal(d("300")) || g.Text != "#template 300" {
		t.Errorf("goals %+v", b.Goals)
	}
	if g := goals["Holiday"]; g.Kind != movein.GoalBalance || !g.Amount.Equal(d("1200")) || !g.By.Equal(day("2027-06-01")) {
		t.Errorf("Holiday's goal is %+v", g)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func equalSlices(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// altered is the household export with sql run on its database, zipped again as members
// (db.sqlite and metadata.json by default).
func altered(t *testing.T, folder string, sql ...string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(household(t)), int64(len(household(t))))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	if len(sql) > 0 {
		name := filepath.Join(t.TempDir(), "db.sqlite")
		if err := os.WriteFile(name, files["db.sqlite"], 0o600); err != nil {
			t.Fatal(err)
		}
		conn, err := sqlite3.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sql {
			if err := conn.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		conn.Close()
		if files["db.sqlite"], err = os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	return zipOf(t, folder, files)
}

func zipOf(t testing.TB, folder string, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, b := range files {
		f, err := w.Create(folder + name)
		if err == nil {
			_, err = f.Write(b)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The Checking account's and the shop's ids in the fixture, for the SQL below.
const (
	checkingID = "(SELECT id FROM accounts WHERE name = 'Checking')"
	shopID     = "(SELECT id FROM transactions WHERE notes = 'Weekly shop and a dinner')"
)

func TestRefusalsNameWhatIsAtFault(t *testing.T) {
	cases := []struct {
		name    string
		content func(t *testing.T) []byte
		entity  string
		want    string
	}{
		{"not a zip", func(t *testing.T) []byte { return []byte("date,amount\n2026-01-01,5\n") }, "file", "not a zip of an Actual export"},
		{"a zip without db.sqlite", func(t *testing.T) []byte { return zipOf(t, "", map[string][]byte{"notes.txt": []byte("hi")}) },
			"file", "the zip holds no db.sqlite"},
		{"a db.sqlite that is no database", func(t *testing.T) []byte {
			return zipOf(t, "", map[string][]byte{"db.sqlite": bytes.Repeat([]byte("not sqlite "), 100)})
		}, "file", "db.sqlite is not an SQLite database"},
		{"an SQLite database that is not Actual's", func(t *testing.T) []byte {
			return altered(t, "", "DROP TABLE category_mapping")
		}, "table", "db.sqlite has no table category_mapping"},
		{"a table without a column", func(t *testing.T) []byte {
			return altered(t, "", "DROP VIEW v_payees", "ALTER TABLE payees DROP COLUMN transfer_acct")
		}, "table", "table payees has no column transfer_acct"},
		{"a transaction in an account that is not there", func(t *testing.T) []byte {
			return altered(t, "", "UPDATE transactions SET id = 'tx-lost', acct = 'acct-gone' WHERE notes = 'Salary 2026-09'")
		}, movein.EntityTransaction, `transaction "tx-lost" names account "acct-gone", which is not in the export`},
		{"a transaction of no date", func(t *testing.T) []byte {
			return altered(t, "", "UPDATE transactions SET id = 'tx-odd', date = 20261345 WHERE notes = 'Salary 2026-09'")
		}, movein.EntityTransaction, `transaction "tx-odd" has date 20261345, which is no date`},
		{"an amount whose negation is no int64", func(t *testing.T) []byte {
			return altered(t, "", "UPDATE transactions SET id = 'tx-huge', amount = -9223372036854775808 WHERE notes = 'Salary 2026-09'")
		}, movein.EntityTransaction, `transaction "tx-huge" has amount -9223372036854775808, which is no amount of money`},
		{"too many transactions", func(t *testing.T) []byte {
			old := movein.MaxTransactions
			movein.MaxTransactions = 5
			t.Cleanup(func() { movein.MaxTransactions = old })
			return household(t)
		}, movein.EntityTransaction, "the budget holds more than 5 transactions and split parts; Tally moves in at most 5"},
		{"two databases", func(t *testing.T) []byte {
			return zipOf(t, "", map[string][]byte{"a/db.sqlite": {}, "b/db.sqlite": {}})
		}, "file", "the zip holds two files named db.sqlite"},
		{"metadata that is not JSON", func(t *testing.T) []byte {
			return zipOf(t, "", map[string][]byte{"db.sqlite": {}, "metadata.json": []byte("{")})
		}, "file", "metadata.json is not the JSON of an Actual export"},
		{"too many categories", func(t *testing.T) []byte {
			old := movein.MaxCategories
			movein.MaxCategories = 5
			t.Cleanup(func() { movein.MaxCategories = old })
			return household(t)
		}, movein.EntityCategory, "the budget holds more than 5 categories; Tally moves in at most 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(context.Background(), c.content(t))
			var me *movein.Error
			if !errors.As(err, &me) || me.Entity != c.entity || !strings.Contains(me.Msg, c.want) {
				t.Fatalf("Read = %v, want a %s error saying %q", err, c.entity, c.want)
			}
		})
	}
}

// A zip bomb is refused before it is unpacked whole: by its size, and by how many times its
// zipped size it unzips to.
func TestZipBombsAreRefused(t *testing.T) {
	zeros := bytes.Repeat([]byte{0}, 4<<20)
	_, err := Read(context.Background(), zipOf(t, "", map[string][]byte{"db.sqlite": zeros}))
	if err == nil || !strings.Contains(err.Error(), "db.sqlite unzips to more than") || !strings.Contains(err.Error(), "zip bomb") {
		t.Errorf("4 MB of zeros (about 1000 times their zipped size): %v", err)
	}

	old := maxDatabaseBytes
	maxDatabaseBytes = 1 << 20
	t.Cleanup(func() { maxDatabaseBytes = old })
	_, err = Read(context.Background(), household(t)) // 340 KB: within the bound
	if err != nil {
		t.Fatalf("the household within a 1 MB bound: %v", err)
	}
	maxDatabaseBytes = 100 << 10
	_, err = Read(context.Background(), household(t))
	if err == nil || !strings.Contains(err.Error(), "db.sqlite unzips to more than 100 KB") {
		t.Errorf("the household past a 100 KB bound: %v", err)
	}

	oldExport := MaxExportBytes
	MaxExportBytes = 10 << 10
	t.Cleanup(func() { MaxExportBytes = oldExport })
	_, err = Read(context.Background(), household(t))
	if err == nil || !strings.Contains(err.Error(), "Tally reads Actual exports of up to 10 KB") {
		t.Errorf("an export past the bound: %v", err)
	}
}

// The database leaves no file behind, whether it is read or refused.
func TestTemporaryDatabaseIsRemoved(t *testing.T) {
	noPayees := altered(t, "", "DROP TABLE payees")
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	read(t, household(t))
	_, err := Read(context.Background(), noPayees)
	if err == nil {
		t.Fatal("a database without payees was read")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Each variation of the household export reads as Actual would show it.
func TestVariations(t *testing.T) {
	cases := []struct {
		name   string
		folder string
		sql    []string
		check  func(t *testing.T, b *movein.Budget, n names)
	}{
		{name: "files in a folder, as some zip tools write them", folder: "My Budget/", check: func(t *testing.T, b *movein.Budget, n names) {
			if b.Name != "Household" || len(b.Transactions) != 19 {
				t.Errorf("budget %q with %d transactions", b.Name, len(b.Transactions))
			}
		}},
		{name: "currency codes present", sql: []string{
			"ALTER TABLE accounts ADD COLUMN currency_code TEXT",
			"UPDATE accounts SET currency_code = 'eur' WHERE name = 'Checking'",
			"INSERT INTO preferences (id, value) VALUES ('defaultCurrencyCode', 'EUR')",
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			for _, a := range b.Accounts {
				if want := map[bool]string{true: "EUR", false: ""}[a.Name == "Checking"]; a.Currency != want {
					t.Errorf("account %s: currency %q, want %q", a.Name, a.Currency, want)
				}
			}
			if b.Currency != "EUR" {
				t.Errorf("budget currency %q", b.Currency)
			}
		}},
		{name: "a deleted split takes its parts with it", sql: []string{"UPDATE transactions SET tombstone = 1 WHERE id = " + shopID},
			check: func(t *testing.T, b *movein.Budget, n names) {
				for _, tx := range b.Transactions {
					if tx.ImportedID == "bank-0001" || len(tx.Splits) > 0 {
						t.Errorf("transaction %+v of the deleted split was read", tx)
					}
				}
				if len(b.Transactions) != 18 || len(b.Notices) != 0 {
					t.Errorf("%d transactions (want 18), notices %v", len(b.Transactions), b.Notices)
				}
			}},
		{name: "split parts whose parent is not there", sql: []string{"DELETE FROM transactions WHERE id = " + shopID},
			check: func(t *testing.T, b *movein.Budget, n names) {
				var notes []string
				for _, no := range b.Notices {
					if no.Entity == movein.EntityTransaction && no.What == movein.NotKept {
						notes = append(notes, no.Reason)
					}
				}
				if len(notes) != 2 || !strings.HasPrefix(notes[0], "it is a part of split transaction") {
					t.Errorf("notices %q", notes)
				}
			}},
		{name: "a merged payee reads as the payee it was merged into", sql: []string{
			"UPDATE payee_mapping SET targetId = (SELECT id FROM payees WHERE name = 'Supermarket') WHERE id = (SELECT id FROM payees WHERE name = 'Bistro')",
			"UPDATE payees SET tombstone = 1 WHERE name = 'Bistro'",
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			for _, tx := range b.Transactions {
				if tx.Date.Equal(day("2026-08-20")) && n.byID[tx.PayeeID] != "Supermarket" {
					t.Errorf("the Bistro dinner's payee is %q", n.byID[tx.PayeeID])
				}
			}
			if _, ok := n.byName["Bistro"]; ok {
				t.Error("the merged payee was read")
			}
		}},
		{name: "a deleted category's transactions read as the category they were moved to", sql: []string{
			"UPDATE category_mapping SET transferId = (SELECT id FROM categories WHERE name = 'Groceries') WHERE id = (SELECT id FROM categories WHERE name = 'Dining')",
			"UPDATE categories SET tombstone = 1 WHERE name = 'Dining'",
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			for _, tx := range b.Transactions {
				if tx.Date.Equal(day("2026-08-20")) && n.byID[tx.CategoryID] != "Groceries" {
					t.Errorf("the Bistro dinner's category is %q", n.byID[tx.CategoryID])
				}
				if len(tx.Splits) == 2 && n.byID[tx.Splits[1].CategoryID] != "Groceries" {
					t.Errorf("the takeaway part's category is %q", n.byID[tx.Splits[1].CategoryID])
				}
			}
		}},
		{name: "a tracking budget reads reflect_budgets, where only the flag carries", sql: []string{
			"INSERT INTO preferences (id, value) VALUES ('budgetType', 'tracking')",
			"INSERT INTO reflect_budgets (id, month, category, amount, carryover) SELECT '202609-' || id, 202609, id, 45600, name = 'Rent' FROM categories WHERE name IN ('Rent', 'Dining')",
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			if b.Style != movein.Tracking || len(b.Months) != 1 || len(b.Months[0].Lines) != 2 {
				t.Fatalf("style %s, months %+v", b.Style, b.Months)
			}
			for _, l := range b.Months[0].Lines {
				want := map[bool]string{true: movein.RolloverBoth, false: movein.RolloverOff}[n.byID[l.CategoryID] == "Rent"]
				if !l.Budgeted.Equal(d("456")) || l.Rollover != want {
					t.Errorf("%s: %+v, want rollover %s", n.byID[l.CategoryID], l, want)
				}
			}
		}},
		{name: "a transfer whose other side is deleted", sql: []string{"UPDATE transactions SET tombstone = 1 WHERE notes = 'Holiday fund' AND acct != " + checkingID},
			check: func(t *testing.T, b *movein.Budget, n names) {
				for _, tx := range b.Transactions {
					if tx.Notes == "Holiday fund" && tx.TransferID != "" {
						t.Errorf("the transfer's remaining side still names %q", tx.TransferID)
					}
				}
				if len(b.Notices) != 1 || !strings.Contains(b.Notices[0].Reason, "is not in the export: it is kept as a transaction of its own") {
					t.Errorf("notices %v", b.Notices)
				}
			}},
		{name: "a deleted account's transactions go with it", sql: []string{"UPDATE accounts SET tombstone = 1 WHERE name = 'Brokerage'"},
			check: func(t *testing.T, b *movein.Budget, n names) {
				if len(b.Accounts) != 2 || len(b.Transactions) != 17 {
					t.Errorf("%d accounts and %d transactions, want 2 and 17", len(b.Accounts), len(b.Transactions))
				}
				if no := b.Notices[0]; no.Entity != movein.EntityAccount || no.Reason != "the account is deleted, and so are its 2 transactions" {
					t.Errorf("notice %+v", no)
				}
			}},
		{name: "split parts that do not add up keep the money whole", sql: []string{"UPDATE transactions SET amount = -34000 WHERE notes = 'Food'"},
			check: func(t *testing.T, b *movein.Budget, n names) {
				for _, tx := range b.Transactions {
					if len(tx.Splits) > 0 && (len(tx.Splits) != 3 || !tx.Splits[2].Amount.Equal(d("10")) || tx.Splits[2].CategoryID != "") {
						t.Errorf("the split's parts are %+v", tx.Splits)
					}
				}
				if !strings.Contains(b.Notices[0].Reason, "its split parts add up to 370 of its 380") {
					t.Errorf("notices %v", b.Notices)
				}
			}},
		{name: "a schedule of about an amount, every other week, six times", sql: []string{
			`UPDATE rules SET conditions = '[{"op":"isapprox","field":"amount","value":-120000},` +
				`{"op":"is","field":"date","value":{"frequency":"weekly","interval":2,"start":"2026-11-02","endMode":"after_n_occurrences","endOccurrences":6}}]',` +
				` actions = '[{"op":"link-schedule","value":"' || (SELECT id FROM schedules) || '"},` +
				`{"op":"set","field":"category","value":"' || (SELECT id FROM categories WHERE name = 'Rent') || '"}]'` +
				` WHERE id = (SELECT rule FROM schedules)`,
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			s := b.Schedules[0]
			if !s.Amount.Equal(d("1200")) || !s.Min.Equal(d("1110")) || !s.Max.Equal(d("1290")) || n.byID[s.CategoryID] != "Rent" ||
				s.PayeeID != "" || s.AccountID != "" || s.Repeat.Unit != movein.UnitWeek || s.Repeat.Every != 2 || s.Repeat.Count != 6 {
				t.Errorf("the schedule is %+v", s)
			}
		}},
		{name: "a schedule on one date", sql: []string{
			`UPDATE rules SET conditions = '[{"op":"is","field":"date","value":"2026-12-24"},{"op":"isbetween","field":"amount","value":{"num1":-5000,"num2":-3000}}]'` +
				` WHERE id = (SELECT rule FROM schedules)`,
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			s := b.Schedules[0]
			if s.Repeat.Unit != movein.UnitOnce || !s.Start.Equal(day("2026-12-24")) || !s.Amount.Equal(d("40")) ||
				!s.Min.Equal(d("30")) || !s.Max.Equal(d("50")) {
				t.Errorf("the schedule is %+v", s)
			}
		}},
		{name: "a rule on money out, any of its conditions", sql: []string{
			`INSERT INTO rules (id, stage, conditions, actions, tombstone, conditions_op) VALUES ('r-out', 'pre',` +
				` '[{"field":"amount","op":"gt","value":5000,"options":{"outflow":true}},{"field":"acct","op":"oneOf","value":["' || ` + checkingID + ` || '"]}]',` +
				` '[{"field":"description","op":"set","value":"' || (SELECT id FROM payees WHERE name = 'Landlord') || '"}]', 0, 'or')`,
		}, check: func(t *testing.T, b *movein.Budget, n names) {
			var r movein.Rule
			for _, x := range b.Rules {
				if x.ID == "r-out" {
					r = x
				}
			}
			if !r.Expressible || r.Match != "any" || r.Stage != "pre" || len(r.Conditions) != 2 || len(r.Actions) != 1 {
				t.Fatalf("the rule is %+v", r)
			}
			if c := r.Conditions[0]; c.Field != "amount_outflow" || c.Op != "gt" || !c.Value.(decimal.Decimal).Equal(d("50")) {
				t.Errorf("its amount condition is %+v", c)
			}
			if c := r.Conditions[1]; c.Field != "account" || c.Op != "oneOf" || n.byID[c.Value.([]string)[0]] != "Checking" {
				t.Errorf("its account condition is %+v", c)
			}
			if a := r.Actions[0]; a.Field != "payee" || n.byID[a.Value.(string)] != "Landlord" {
				t.Errorf("its action is %+v", a)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := read(t, altered(t, c.folder, c.sql...))
			var rest []movein.Notice
			for _, no := range b.Notices {
				if no.Entity != movein.EntityRule && no.Entity != movein.EntityGroup { // the household's own two
					rest = append(rest, no)
				}
			}
			b.Notices = rest
			c.check(t, b, index(b))
		})
	}
}
