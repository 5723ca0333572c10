// Package actualtest writes Actual Budget exports of any size, for the benchmarks and the
// memory tests of the move-in: a budget generated from a seed (Generate), written into the
// database of the household fixture (imports/actual/testdata/household.zip) emptied of its
// rows, so that every table, index and view is the one Actual writes, and zipped with its
// metadata.json as Actual's "Export data" does (Zip).
package actualtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/ncruces/go-sqlite3"
)

// Shape is the size of a generated budget.
type Shape struct {
	Seed uint64
	// Accounts are the budget's accounts, the last third of them off budget.
	Accounts int
	// Categories are spread over groups of ten, the first two (income and the starting
	// balances) in an income group.
	Categories int
	Payees     int
	// Transactions is how many transactions the ledger holds, the opening balances, each side
	// of a transfer and each split (not its parts) counted once.
	Transactions int
	// Months are the budget's months, ending with the last month of the transactions; every
	// expense category is budgeted in each.
	Months int
}

// TenYears is the budget of issue 41's speed requirement: ten years of a household's budget.
var TenYears = Shape{Seed: 41, Accounts: 6, Categories: 80, Payees: 400, Transactions: 100_000, Months: 120}

// Budget is a generated budget, in Actual's terms: amounts are integer cents, money in positive.
type Budget struct {
	Accounts     []Account
	Groups       []Group
	Categories   []Category
	Payees       []Payee
	Transactions []Transaction
	Months       []Month
}

type Account struct {
	ID, Name  string
	OffBudget bool
	// Payee is the account's transfer payee, which names it on the other side of a transfer.
	Payee string
}

type Group struct {
	ID, Name string
	Income   bool
}

type Category struct {
	ID, Name, Group string
	Income          bool
	// Carryover is Actual's flag to carry an overspend into the next month, in every month.
	Carryover bool
}

type Payee struct{ ID, Name string }

// Transaction is a transaction; a split one has parts, a transfer names its other side.
type Transaction struct {
	ID, Account, Payee, Category, Notes string
	Date                                time.Time
	Cents                               int64
	Opening                             bool
	Transfer                            string
	Parts                               []Part
}

// Part is a part of a split transaction.
type Part struct {
	ID, Category string
	Cents        int64
}

// Month is a budget month: what each expense category is given.
type Month struct {
	Month time.Time
	Lines []Line
}

type Line struct {
	Category string
	Cents    int64
}

// Generate makes a budget of the shape, the same for the same shape. One transaction in ten is
// split in two or three parts, one in twenty is a side of a transfer (in pairs, one in four of
// them with an off-budget account), one in eight is income, and the rest are spending, spread
// evenly over the months.
func Generate(s Shape) *Budget {
	g := &generator{rng: rand.New(rand.NewPCG(s.Seed, s.Seed^0x41)), b: &Budget{}}
	g.taxonomy(s)
	last := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	first := last.AddDate(0, 1-s.Months, 0)
	g.ledger(s, first, last.AddDate(0, 1, -1))
	g.budgets(first, s.Months)
	return g.b
}

type generator struct {
	rng *rand.Rand
	b   *Budget
	// income and opening are the income category and the starting balances'; expenses are
	// the others.
	income, opening string
	expenses        []string
	startingPayee   string
}

// id is a random UUID from the generator's source, as Actual's ids are.
func (g *generator) id() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return uuid.UUID(b).String()
}

func (g *generator) taxonomy(s Shape) {
	b := g.b
	for i := range s.Accounts {
		b.Accounts = append(b.Accounts, Account{ID: g.id(), Name: fmt.Sprintf("Account %d", i+1),
			OffBudget: i >= s.Accounts-s.Accounts/3, Payee: g.id()})
	}
	income := Group{ID: g.id(), Name: "Income", Income: true}
	b.Groups = append(b.Groups, income)
	for i := range s.Categories {
		switch i {
		case 0:
			g.income = g.id()
			b.Categories = append(b.Categories, Category{ID: g.income, Name: "Salary", Group: income.ID, Income: true})
		case 1:
			g.opening = g.id()
			b.Categories = append(b.Categories, Category{ID: g.opening, Name: "Starting Balances", Group: income.ID, Income: true})
		default:
			if (i-2)%10 == 0 {
				b.Groups = append(b.Groups, Group{ID: g.id(), Name: fmt.Sprintf("Group %d", len(b.Groups))})
			}
			c := Category{ID: g.id(), Name: fmt.Sprintf("Category %d", i-1), Group: b.Groups[len(b.Groups)-1].ID, Carryover: i%10 == 5}
			g.expenses = append(g.expenses, c.ID)
			b.Categories = append(b.Categories, c)
		}
	}
	g.startingPayee = g.id()
	b.Payees = append(b.Payees, Payee{ID: g.startingPayee, Name: "Starting Balance"})
	for i := range s.Payees {
		b.Payees = append(b.Payees, Payee{ID: g.id(), Name: fmt.Sprintf("Payee %d", i+1)})
	}
}

// ledger writes the opening balances on the first day, then the rest in date order.
func (g *generator) ledger(s Shape, first, last time.Time) {
	b := g.b
	for _, a := range b.Accounts {
		t := Transaction{ID: g.id(), Account: a.ID, Payee: g.startingPayee, Date: first, Cents: 100_000 + g.rng.Int64N(1_000_000), Opening: true}
		if !a.OffBudget {
			t.Category = g.opening
		}
		b.Transactions = append(b.Transactions, t)
	}
	days := int(last.Sub(first).Hours()/24) + 1
	onBudget := len(b.Accounts) - len(b.Accounts)/3
	for i := len(b.Accounts); i < s.Transactions; i++ {
		date := first.AddDate(0, 0, i*days/s.Transactions)
		account := b.Accounts[g.rng.IntN(onBudget)]
		payee := b.Payees[1+g.rng.IntN(len(b.Payees)-1)].ID
		t := Transaction{ID: g.id(), Account: account.ID, Payee: payee, Date: date}
		switch {
		case i%20 == 0 && i+1 < s.Transactions:
			other := b.Accounts[(g.rng.IntN(len(b.Accounts)-1)+1+indexOf(b.Accounts, account.ID))%len(b.Accounts)]
			t.Cents, t.Payee, t.Notes = -(1_000 + g.rng.Int64N(100_000)), other.Payee, "Transfer"
			in := Transaction{ID: g.id(), Account: other.ID, Payee: account.Payee, Date: date, Cents: -t.Cents, Notes: "Transfer", Transfer: t.ID}
			t.Transfer = in.ID
			b.Transactions = append(b.Transactions, t, in)
			i++
			continue
		case i%10 == 5:
			for range 2 + g.rng.IntN(2) {
				p := Part{ID: g.id(), Category: g.expense(), Cents: -(100 + g.rng.Int64N(20_000))}
				t.Parts = append(t.Parts, p)
				t.Cents += p.Cents
			}
			t.Notes = "Split"
		case i%8 == 3:
			t.Category, t.Cents = g.income, 10_000+g.rng.Int64N(300_000)
		default:
			t.Category, t.Cents = g.expense(), -(100 + g.rng.Int64N(30_000))
			if g.rng.IntN(4) == 0 {
				t.Notes = fmt.Sprintf("Note %d", i)
			}
		}
		b.Transactions = append(b.Transactions, t)
	}
}

func (g *generator) expense() string { return g.expenses[g.rng.IntN(len(g.expenses))] }

func indexOf(accounts []Account, id string) int {
	for i, a := range accounts {
		if a.ID == id {
			return i
		}
	}
	return -1
}

func (g *generator) budgets(first time.Time, months int) {
	for m := range months {
		mo := Month{Month: first.AddDate(0, m, 0)}
		for _, c := range g.expenses {
			mo.Lines = append(mo.Lines, Line{Category: c, Cents: 1_000 + 100*g.rng.Int64N(2_000)})
		}
		g.b.Months = append(g.b.Months, mo)
	}
}

// fixture is the household export whose database the generated budgets are written into.
// It is found from the test's working directory (its package's folder), up to the module's
// root: tests are built with -trimpath, so the source file's own path is not at hand.
func fixture(tb testing.TB) []byte {
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("actualtest: no go.mod above the test's working directory")
		}
		dir = parent
	}
	content, err := os.ReadFile(filepath.Join(dir, "imports", "actual", "testdata", "household.zip"))
	if err != nil {
		tb.Fatal(err)
	}
	return content
}

// Zip writes the budget as an Actual export.
func (b *Budget) Zip(tb testing.TB) []byte {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "db.sqlite")
	if err := os.WriteFile(name, member(tb, fixture(tb), "db.sqlite"), 0o600); err != nil {
		tb.Fatal(err)
	}
	conn, err := sqlite3.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	w := &writer{tb: tb, conn: conn}
	w.exec("BEGIN")
	// The fixture's rows go, its schema stays; so do its preferences (an envelope budget).
	for _, t := range []string{"accounts", "payees", "payee_mapping", "category_groups", "categories", "category_mapping",
		"transactions", "zero_budgets", "zero_budget_months", "reflect_budgets", "notes", "rules", "schedules",
		"schedules_next_date", "schedules_json_paths", "sqlite_stat1", "sqlite_stat4"} {
		w.exec("DELETE FROM " + t)
	}
	b.write(w)
	w.exec("COMMIT")
	w.exec("VACUUM")
	if err := conn.Close(); err != nil {
		tb.Fatal(err)
	}
	db, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range []struct {
		name    string
		content []byte
	}{{"db.sqlite", db}, {"metadata.json", []byte(`{"id":"Generated-4141414","budgetName":"Ten years","resetClock":true}`)}} {
		fw, err := z.Create(f.name)
		if err == nil {
			_, err = fw.Write(f.content)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func (b *Budget) write(w *writer) {
	for i, a := range b.Accounts {
		w.insert("accounts (id, name, offbudget, closed, tombstone, sort_order) VALUES (?, ?, ?, 0, 0, ?)", a.ID, a.Name, a.OffBudget, float64(i+1)*16384)
		w.insert("payees (id, name, tombstone, transfer_acct) VALUES (?, '', 0, ?)", a.Payee, a.ID)
		w.insert("payee_mapping (id, targetId) VALUES (?, ?)", a.Payee, a.Payee)
	}
	for _, p := range b.Payees {
		w.insert("payees (id, name, tombstone) VALUES (?, ?, 0)", p.ID, p.Name)
		w.insert("payee_mapping (id, targetId) VALUES (?, ?)", p.ID, p.ID)
	}
	for i, g := range b.Groups {
		w.insert("category_groups (id, name, is_income, sort_order, tombstone, hidden) VALUES (?, ?, ?, ?, 0, 0)", g.ID, g.Name, g.Income, float64(i+1)*16384)
	}
	for i, c := range b.Categories {
		w.insert("categories (id, name, is_income, cat_group, sort_order, tombstone, hidden) VALUES (?, ?, ?, ?, ?, 0, 0)",
			c.ID, c.Name, c.Income, c.Group, float64(i+1)*16384)
		w.insert("category_mapping (id, transferId) VALUES (?, ?)", c.ID, c.ID)
	}
	const tx = `transactions (id, isParent, isChild, acct, category, amount, description, notes, date, starting_balance_flag,
		transferred_id, sort_order, tombstone, cleared, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?)`
	for i, t := range b.Transactions {
		date := int64(t.Date.Year()*10000 + int(t.Date.Month())*100 + t.Date.Day())
		w.insert(tx, t.ID, len(t.Parts) > 0, false, t.Account, t.Category, t.Cents, t.Payee, t.Notes, date, t.Opening, t.Transfer, float64(i), "")
		for k, p := range t.Parts {
			w.insert(tx, p.ID, false, true, t.Account, p.Category, p.Cents, t.Payee, "", date, false, "", float64(-k), t.ID)
		}
	}
	carryover := map[string]bool{}
	for _, c := range b.Categories {
		carryover[c.ID] = c.Carryover
	}
	for _, m := range b.Months {
		month := int64(m.Month.Year()*100 + int(m.Month.Month()))
		for _, l := range m.Lines {
			w.insert("zero_budgets (id, month, category, amount, carryover) VALUES (?, ?, ?, ?, ?)",
				fmt.Sprintf("%d-%s", month, l.Category), month, l.Category, l.Cents, carryover[l.Category])
		}
	}
}

// writer inserts rows through prepared statements, one of each SQL text.
type writer struct {
	tb    testing.TB
	conn  *sqlite3.Conn
	stmts map[string]*sqlite3.Stmt
}

func (w *writer) exec(sql string) {
	if sql == "COMMIT" {
		for _, s := range w.stmts {
			s.Close()
		}
		w.stmts = nil
	}
	if err := w.conn.Exec(sql); err != nil {
		w.tb.Fatalf("%s: %v", sql, err)
	}
}

// insert inserts a row; "" is NULL, as Actual leaves what it does not know.
func (w *writer) insert(sql string, args ...any) {
	s := w.stmts[sql]
	if s == nil {
		var err error
		if s, _, err = w.conn.Prepare("INSERT INTO " + sql); err != nil {
			w.tb.Fatalf("%s: %v", sql, err)
		}
		if w.stmts == nil {
			w.stmts = map[string]*sqlite3.Stmt{}
		}
		w.stmts[sql] = s
	}
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case string:
			if v == "" {
				err = s.BindNull(i + 1)
			} else {
				err = s.BindText(i+1, v)
			}
		case bool:
			err = s.BindBool(i+1, v)
		case int64:
			err = s.BindInt64(i+1, v)
		case float64:
			err = s.BindFloat(i+1, v)
		default:
			w.tb.Fatalf("%s: argument %d is a %T", sql, i+1, a)
		}
		if err != nil {
			w.tb.Fatal(err)
		}
	}
	if err := s.Exec(); err != nil {
		w.tb.Fatalf("%s: %v", sql, err)
	}
}

// member is a file of a zip.
func member(tb testing.TB, content []byte, name string) []byte {
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range zr.File {
		if filepath.Base(f.Name) == name {
			rc, err := f.Open()
			if err != nil {
				tb.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				tb.Fatal(err)
			}
			return b
		}
	}
	tb.Fatalf("the fixture has no %s", name)
	return nil
}
