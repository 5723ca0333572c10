package movein

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/budgets"
)

// The rollover words are Tally's budgets' own, so the import copies them.
func TestRolloversAreTallys(t *testing.T) {
	if got := []string{RolloverOff, RolloverSurplus, RolloverBoth}; !slices.Equal(got, budgets.Rollovers) {
		t.Fatalf("movein rollovers %v, budgets.Rollovers %v", got, budgets.Rollovers)
	}
}

func TestUniqueNames(t *testing.T) {
	b := &Budget{
		Groups: []CategoryGroup{
			{ID: "g-everyday", Name: "Everyday"},
			{ID: "g-bills", Name: "Bills"},
			{ID: "g-income", Name: "Income", Income: true},
			{ID: "g-old", Name: "Old stuff", Hidden: true},
			{ID: "g-ynab", Name: "Income", Income: true, Builtin: true},
			{ID: "g-blank", Name: "  "},
		},
		Categories: []Category{
			{ID: "c-hidden-dining", GroupID: "g-everyday", Name: "Dining", Hidden: true},
			{ID: "c-dining", GroupID: "g-everyday", Name: "Dining"},
			{ID: "c-misc-1", GroupID: "g-everyday", Name: "Misc"},
			{ID: "c-misc-2", GroupID: "g-bills", Name: "Misc"},
			{ID: "c-income", GroupID: "g-income", Name: "Income", Income: true},
			{ID: "c-old-dining", GroupID: "g-old", Name: "Dining"},
			{ID: "c-rta", GroupID: "g-ynab", Name: "Ready to Assign", Income: true},
		},
	}
	b.UniqueNames()
	want := map[string]string{
		"c-dining": "Dining", "c-hidden-dining": "Dining (hidden)", "c-old-dining": "Dining (hidden) 2",
		"c-misc-1": "Misc", "c-misc-2": "Misc (Bills)", "c-income": "Income", "c-rta": "Ready to Assign",
		"g-everyday": "Everyday", "g-bills": "Bills", "g-income": "Income (group)", "g-old": "Old stuff",
		"g-ynab": "Income (group) 2", "g-blank": "Unnamed category group",
	}
	got := map[string]string{}
	for _, c := range b.Categories {
		got[c.ID] = c.Name
	}
	for _, g := range b.Groups {
		got[g.ID] = g.Name
	}
	for id, name := range want {
		if got[id] != name {
			t.Errorf("%s is called %q, want %q", id, got[id], name)
		}
	}
	renamed := map[string]Notice{}
	for _, n := range b.Notices {
		if n.What != Renamed {
			t.Errorf("notice %v is not a renaming", n)
		}
		renamed[n.ID] = n
	}
	if len(renamed) != 6 {
		t.Errorf("%d renamings, want 6: %v", len(b.Notices), b.Notices)
	}
	n := renamed["c-hidden-dining"]
	if n.Entity != EntityCategory || n.Name != "Dining" ||
		n.Reason != `an active category is called "Dining" too, and Tally's category names are unique: kept as "Dining (hidden)"` {
		t.Errorf("the hidden Dining's notice is %+v", n)
	}
	if n := renamed["g-income"]; n.Entity != EntityGroup || !strings.Contains(n.Reason, `kept as "Income (group)"`) {
		t.Errorf("the Income group's notice is %+v", n)
	}
	if err := b.Check(); err != nil {
		t.Errorf("Check after UniqueNames: %v", err)
	}
}

func TestCheck(t *testing.T) {
	d := decimal.RequireFromString
	valid := func() *Budget {
		return &Budget{
			Accounts:   []Account{{ID: "a1", Name: "Checking"}, {ID: "a2", Name: "Savings"}},
			Groups:     []CategoryGroup{{ID: "g1", Name: "Everyday"}},
			Categories: []Category{{ID: "c1", GroupID: "g1", Name: "Food"}},
			Payees:     []Payee{{ID: "p1", Name: "Shop"}, {ID: "p2", TransferAccount: "a2", Name: "Savings"}},
			Transactions: []Transaction{
				{ID: "t1", AccountID: "a1", Amount: amount("10"), PayeeID: "p1", Splits: []Split{
					{ID: "s1", Amount: amount("7.5"), CategoryID: "c1"}, {ID: "s2", Amount: amount("2.5"), TransferID: "t2"}}},
				{ID: "t2", AccountID: "a2", Amount: amount("-2.5"), TransferID: "s2"},
			},
			Months: []Month{{Month: day("2026-08-01"), Lines: []Line{{CategoryID: "c1", Budgeted: d("100"), Rollover: RolloverBoth}}}},
		}
	}
	if err := valid().Check(); err != nil {
		t.Fatalf("a budget that holds together: %v", err)
	}
	cases := []struct {
		name  string
		spoil func(b *Budget)
		want  string
	}{
		{"an unknown account", func(b *Budget) { b.Transactions[1].AccountID = "a9" }, `transaction "t2" has account "a9"`},
		{"split parts that do not add up", func(b *Budget) { b.Transactions[0].Splits[0].Amount = amount("7.49") },
			`transaction "t1" is 10 but its split parts add up to 9.99`},
		{"a transfer not named back", func(b *Budget) { b.Transactions[1].TransferID = "t1" }, `transaction "s2": the other side of its transfer, "t2", does not name it back`},
		{"a transfer of unequal sides", func(b *Budget) { b.Transactions[1].Amount = amount("-2.6") }, `"s2": the other side of its transfer, "t2", is of -2.6, not -2.5`},
		{"an id used twice", func(b *Budget) { b.Transactions[1].ID = "s1" }, `transaction id "s1" is used twice`},
		{"a rollover of no kind", func(b *Budget) { b.Months[0].Lines[0].Rollover = "sometimes" }, `rollover "sometimes"`},
		{"a group and a category of one name", func(b *Budget) { b.Groups[0].Name = "Food" }, `are both called "Food"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := valid()
			c.spoil(b)
			if err := b.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check = %v, want %q", err, c.want)
			}
		})
	}
}

// PairTransfers unlinks the sides of a transfer that do not hold together, saying so, and
// leaves a budget that Check passes.
func TestPairTransfers(t *testing.T) {
	b := &Budget{
		Accounts: []Account{{ID: "a1"}, {ID: "a2"}},
		Transactions: []Transaction{
			{ID: "t1", AccountID: "a1", Amount: amount("5"), TransferID: "t2"},
			{ID: "t2", AccountID: "a2", Amount: amount("-5"), TransferID: "t1"},
			{ID: "t3", AccountID: "a1", Amount: amount("7"), TransferID: "t4"},
			{ID: "t4", AccountID: "a2", Amount: amount("-6"), TransferID: "t3"},
			{ID: "t5", AccountID: "a1", Amount: amount("1"), TransferID: "gone"},
		},
	}
	b.PairTransfers()
	links := ""
	for _, tx := range b.Transactions {
		links += tx.ID + ">" + tx.TransferID + " "
	}
	if links != "t1>t2 t2>t1 t3> t4> t5> " {
		t.Errorf("links after pairing: %s", links)
	}
	var reasons []string
	for _, n := range b.Notices {
		reasons = append(reasons, n.ID+": "+n.Reason)
	}
	want := []string{
		`t3: the other side of its transfer, "t4", is of -6, not -7: it is kept as a transaction of its own`,
		`t4: the other side of its transfer, "t3", is of 7, not 6: it is kept as a transaction of its own`,
		`t5: the other side of its transfer, "gone", is not in the export: it is kept as a transaction of its own`,
	}
	if !slices.Equal(reasons, want) {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(reasons, "\n"), strings.Join(want, "\n"))
	}
	if err := b.Check(); err != nil {
		t.Errorf("Check after pairing: %v", err)
	}
}

func TestCountNamesTheKindAndTheBound(t *testing.T) {
	if err := Count(EntityCategory, MaxCategories); err != nil {
		t.Fatalf("the bound itself is refused: %v", err)
	}
	err := Count(EntityCategory, MaxCategories+1)
	var me *Error
	if !errors.As(err, &me) || me.Entity != EntityCategory ||
		me.Msg != "the budget holds more than 10000 categories; Tally moves in at most 10000" {
		t.Fatalf("Count past the bound = %#v", err)
	}
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Settle leaves out what repeats an id, keeps a split's money whole under an id of its own,
// and leaves a budget that Check passes.
func TestSettle(t *testing.T) {
	d := decimal.RequireFromString
	b := &Budget{
		Accounts: []Account{{ID: "a1", Name: "Checking"}, {ID: "a1", Name: "Checking again"}, {Name: "No id"}},
		Transactions: []Transaction{
			{ID: "t1/rest", AccountID: "a1", Amount: amount("1")},
			{ID: "t1", AccountID: "a1", Amount: amount("10"), Splits: []Split{{ID: "s1", Amount: amount("4")}, {ID: "t1/rest", Amount: amount("5")}}},
			{ID: "s1", AccountID: "a1", Amount: amount("2")},
		},
	}
	b.Settle()
	if err := b.Check(); err != nil {
		t.Fatalf("Check after Settle: %v", err)
	}
	if len(b.Accounts) != 1 || b.Accounts[0].Name != "Checking" || len(b.Transactions) != 2 {
		t.Errorf("accounts %+v, transactions %+v", b.Accounts, b.Transactions)
	}
	split := b.Transactions[1]
	if len(split.Splits) != 2 || split.Splits[1].ID != "t1/rest2" || !split.Splits[1].Amount.Equal(d("6")) || split.Splits[0].ID != "s1" {
		t.Errorf("the split's parts are %+v", split.Splits)
	}
	var reasons []string
	for _, n := range b.Notices {
		reasons = append(reasons, n.String())
	}
	want := []string{
		`account "Checking again": its id is another account's too: the first one is kept`,
		`account "No id": it has no id, so nothing can name it`,
		`transaction "t1/rest": its id is another transaction's too: the first one is kept`,
		`transaction "s1": its id is another transaction's too: the first one is kept`,
		`transaction "t1": its split parts add up to 4 of its 10: the difference is kept as a part without a category`,
	}
	if !slices.Equal(reasons, want) {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(reasons, "\n"), strings.Join(want, "\n"))
	}
}

// amount is s as a transaction's or split part's Amount.
func amount(s string) Amount {
	a, ok := AmountOf(decimal.RequireFromString(s))
	if !ok {
		panic(s)
	}
	return a
}
