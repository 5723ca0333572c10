package ynab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
	"tally/internal/memtest"
)

// household is testdata/household.json, written after YNAB's published schema: the budget of
// GET /v1/budgets/{id} as {"data":{"budget":…}}.
func household(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/household.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t *testing.T, content []byte) *movein.Budget {
	t.Helper()
	b, err := Read(bytes.NewReader(content))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := b.Check(); err != nil {
		t.Fatalf("the budget read does not hold together: %v", err)
	}
	return b
}

var d = decimal.RequireFromString

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// id is the fixture's id number n.
func id(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }

// names maps ids to names.
func names(b *movein.Budget) map[string]string {
	n := map[string]string{}
	for _, a := range b.Accounts {
		n[a.ID] = a.Name
	}
	for _, c := range b.Categories {
		n[c.ID] = c.Name
	}
	for _, g := range b.Groups {
		n[g.ID] = g.Name
	}
	for _, p := range b.Payees {
		if p.TransferAccount == "" {
			n[p.ID] = p.Name
		}
	}
	return n
}

func TestHousehold(t *testing.T) {
	b := read(t, household(t))
	n := names(b)
	if b.Source != movein.SourceYNAB || b.Name != "Household" || b.Currency != "USD" || b.Style != movein.Envelope {
		t.Errorf("budget %q from %q in %q, style %q", b.Name, b.Source, b.Currency, b.Style)
	}
	if len(b.Accounts) != 4 || len(b.Groups) != 6 || len(b.Categories) != 8 || len(b.Transactions) != 13 || len(b.Payees) != 8 {
		t.Errorf("%d accounts, %d groups, %d categories, %d transactions, %d payees; want 4, 6, 8, 13 and 8 (the deleted, "+
			"the internal Uncategorized, the blank payee and the deleted account's transfer payee left out)", len(b.Accounts), len(b.Groups), len(b.Categories), len(b.Transactions), len(b.Payees))
	}

	balances := map[string]decimal.Decimal{}
	for _, tx := range b.Transactions {
		balances[n[tx.AccountID]] = balances[n[tx.AccountID]].Sub(tx.Amount.Decimal()) // the ledger's money out is positive
	}
	for account, want := range map[string]string{"Checking": "5564.57", "Savings": "5050", "Visa": "255", "Brokerage": "12000"} {
		if !balances[account].Equal(d(want)) {
			t.Errorf("%s's balance is %s, want %s", account, balances[account], want)
		}
	}
	kinds := map[string]string{}
	for _, a := range b.Accounts {
		kinds[a.Name] = fmt.Sprintf("%s/%s on:%v", a.Kind, a.Subtype, a.OnBudget)
	}
	if want := map[string]string{"Checking": "Depository/checking on:true", "Savings": "Depository/savings on:true",
		"Visa": "CreditCard/credit_card on:true", "Brokerage": "OtherAsset/ on:false"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("accounts %v, want %v", kinds, want)
	}

	byID := map[string]movein.Transaction{}
	for _, tx := range b.Transactions {
		byID[tx.ID] = tx
	}
	split := byID[id(105)]
	if !split.Amount.Equal(d("150")) || split.CategoryID != "" || len(split.Splits) != 2 || n[split.PayeeID] != "Grocer" {
		t.Fatalf("the split is %+v", split)
	}
	food, save := split.Splits[0], split.Splits[1]
	if !food.Amount.Equal(d("100")) || n[food.CategoryID] != "Groceries" || food.Notes != "food" || food.TransferID != "" {
		t.Errorf("the food part is %+v", food)
	}
	if other := byID[id(106)]; !save.Amount.Equal(d("50")) || save.TransferID != other.ID || other.TransferID != save.ID ||
		n[other.AccountID] != "Savings" || !other.Amount.Equal(d("-50")) {
		t.Errorf("the split transfer's sides are %+v and %+v", save, other)
	}
	if out, in := byID[id(107)], byID[id(108)]; out.TransferID != in.ID || in.TransferID != out.ID || !out.Amount.Equal(d("300")) {
		t.Errorf("the card payment's sides are %+v and %+v", out, in)
	}
	if blank := byID[id(104)]; blank.PayeeID != "" || !blank.Amount.Equal(d("85.43")) || blank.Cleared || n[blank.CategoryID] != "Groceries" {
		t.Errorf("the blank payee's transaction is %+v", blank)
	}
	if rent := byID[id(103)]; !rent.Cleared || !rent.Reconciled || rent.ImportedID != "YNAB:-1200000:2026-08-02:1" {
		t.Errorf("the rent is %+v", rent)
	}
	opening := 0
	for _, tx := range b.Transactions {
		if tx.Opening {
			opening++
		}
		if strings.Contains(tx.Notes, "entered twice") {
			t.Error("the deleted transaction was read")
		}
	}
	if opening != 3 || n[byID[id(100)].CategoryID] != "Ready to Assign" {
		t.Errorf("%d opening balances, the first in %q", opening, n[byID[id(100)].CategoryID])
	}
}

func TestHouseholdCategoriesMonthsGoals(t *testing.T) {
	b := read(t, household(t))
	n := names(b)
	cats := map[string]movein.Category{}
	for _, c := range b.Categories {
		cats[c.Name] = c
	}
	if rta := cats["Ready to Assign"]; !rta.Income || n[rta.GroupID] != "Income (group)" {
		t.Errorf("Ready to Assign is %+v in %q", rta, n[rta.GroupID])
	}
	if bonus := cats["Bonus"]; bonus.Income || n[bonus.GroupID] != "Income" {
		t.Errorf("the household's Bonus is %+v in %q: their group keeps its name", bonus, n[bonus.GroupID])
	}
	if visa := cats["Visa"]; !visa.MovesMoney || n[visa.GroupID] != "Credit Card Payments" {
		t.Errorf("the Visa payment category is %+v", visa)
	}
	if hidden := cats["Dining (hidden)"]; !hidden.Hidden || cats["Dining"].Hidden {
		t.Errorf("the Dinings are %+v and %+v", cats["Dining"], hidden)
	}
	var notices []string
	for _, no := range b.Notices {
		notices = append(notices, no.What+" "+no.String())
	}
	want := []string{
		`not_kept payee "` + id(18) + `": it has no name; its transactions are kept without a payee`,
		`not_kept category "Uncategorized": it is one of YNAB's own categories: its transactions are kept without a category`,
		`kept_as category "Visa": it is YNAB's payment category of a credit card: the money it holds moves to the card, it is not spent`,
		`kept_as schedule "Grocer": its split into 2 parts is kept as one amount without a category`,
		`renamed category "Dining": an active category is called "Dining" too, and Tally's category names are unique: kept as "Dining (hidden)"`,
		`renamed category group "Income": a group is called "Income" too, and Tally's category names are unique: kept as "Income (group)"`,
	}
	if !reflect.DeepEqual(notices, want) {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(notices, "\n"), strings.Join(want, "\n"))
	}

	if len(b.Months) != 2 || !b.Months[0].Month.Equal(day("2026-08-01")) || len(b.Months[0].Lines) != 5 || len(b.Months[1].Lines) != 4 {
		t.Fatalf("months %+v", b.Months)
	}
	for _, l := range b.Months[0].Lines {
		want := map[string]string{"Rent": "1200", "Groceries": "400", "Dining": "100", "Vacation": "250", "Visa": "45"}[n[l.CategoryID]]
		if !l.Budgeted.Equal(d(want)) || l.Rollover != movein.RolloverSurplus {
			t.Errorf("August's %s: %+v, want %s with a surplus rollover", n[l.CategoryID], l, want)
		}
	}

	goals := map[string]movein.Goal{}
	for _, g := range b.Goals {
		goals[n[g.CategoryID]] = g
	}
	if g := goals["Rent"]; len(b.Goals) != 3 || g.Kind != movein.GoalMonthly || !g.Amount.Equal(d("1200")) || g.Text != "MF" {
		t.Errorf("goals %+v", b.Goals)
	}
	if g := goals["Groceries"]; g.Kind != movein.GoalSpending || !g.Amount.Equal(d("400")) {
		t.Errorf("Groceries' goal is %+v", g)
	}
	if g := goals["Vacation"]; g.Kind != movein.GoalBalance || !g.Amount.Equal(d("1500")) || !g.By.Equal(day("2027-06-01")) {
		t.Errorf("Vacation's goal is %+v", g)
	}
}

func TestHouseholdSchedules(t *testing.T) {
	b := read(t, household(t))
	n := names(b)
	got := map[string]string{}
	for _, s := range b.Schedules {
		got[s.Repeat.Source] = fmt.Sprintf("%d×%d %s", s.Repeat.Times, s.Repeat.Every, s.Repeat.Unit)
	}
	want := map[string]string{"never": "1×1 once", "daily": "1×1 day", "weekly": "1×1 week", "everyOtherWeek": "1×2 week",
		"twiceAMonth": "2×1 month", "every4Weeks": "1×4 week", "monthly": "1×1 month", "everyOtherMonth": "1×2 month",
		"every3Months": "1×3 month", "every4Months": "1×4 month", "twiceAYear": "1×6 month", "yearly": "1×1 year", "everyOtherYear": "1×2 year"}
	if len(b.Schedules) != 14 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d schedules (want 14, the deleted left out); repeats %v, want %v", len(b.Schedules), got, want)
	}
	rent := b.Schedules[0]
	if rent.Name != "Landlord" || n[rent.AccountID] != "Checking" || n[rent.PayeeID] != "Landlord" || n[rent.CategoryID] != "Rent" ||
		!rent.Amount.Equal(d("1200")) || !rent.Start.Equal(day("2026-08-01")) || !rent.Next.Equal(day("2026-12-01")) || !rent.Active {
		t.Errorf("the rent schedule is %+v", rent)
	}
}

// wrap rewraps the household's budget object.
func wrap(t *testing.T, f func(budget json.RawMessage) any) []byte {
	var doc struct {
		Data struct {
			Budget json.RawMessage `json:"budget"`
		} `json:"data"`
	}
	if err := json.Unmarshal(household(t), &doc); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(f(doc.Data.Budget))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The current API's {"data":{"plan":…}} and a bare budget read as {"data":{"budget":…}} does.
func TestWrappings(t *testing.T) {
	want := read(t, household(t))
	for name, content := range map[string][]byte{
		"plan": wrap(t, func(b json.RawMessage) any {
			return map[string]any{"data": map[string]any{"plan": b, "server_knowledge": 9}}
		}),
		"bare": wrap(t, func(b json.RawMessage) any { return b }),
	} {
		if got := read(t, content); !reflect.DeepEqual(got, want) {
			t.Errorf("the %s budget reads otherwise", name)
		}
	}
}

// Of two transactions that could be a split transfer's other side, the one with its memo is.
func TestSplitTransferPairedByMemo(t *testing.T) {
	content := []byte(`{"accounts": [{"id": "a", "name": "Checking", "on_budget": true}, {"id": "b", "name": "Savings", "on_budget": true}],
		"transactions": [
			{"id": "t1", "date": "2026-08-09", "amount": 20000, "account_id": "b", "memo": "other"},
			{"id": "t2", "date": "2026-08-09", "amount": 20000, "account_id": "b", "memo": "rainy day"},
			{"id": "t3", "date": "2026-08-09", "amount": -30000, "account_id": "a", "subtransactions": [
				{"id": "s1", "amount": -10000},
				{"id": "s2", "amount": -20000, "memo": "rainy day", "transfer_account_id": "b"}]},
			{"id": "t4", "date": "2026-08-10", "amount": -5000, "account_id": "a", "subtransactions": [
				{"id": "s3", "amount": -5000, "transfer_account_id": "b"}]}]}`)
	b := read(t, content)
	links := map[string]string{}
	for _, tx := range b.Transactions {
		links[tx.ID] = tx.TransferID
		for _, s := range tx.Splits {
			links[s.ID] = s.TransferID
		}
	}
	if want := map[string]string{"t1": "", "t2": "s2", "t3": "", "s1": "", "s2": "t2", "t4": "", "s3": ""}; !reflect.DeepEqual(links, want) {
		t.Errorf("links %v, want %v", links, want)
	}
	if len(b.Notices) != 1 || b.Notices[0].ID != "s3" || !strings.Contains(b.Notices[0].Reason, `transfer to account "b", which has no transaction of its date and amount`) {
		t.Errorf("notices %v", b.Notices)
	}
}

func TestRefusalsNameWhatIsAtFault(t *testing.T) {
	cases := []struct {
		name, content, entity, want string
	}{
		{"not JSON", "date,amount\n", "file", "the file is not the JSON of a YNAB budget"},
		{"not an object", `[1, 2]`, "file", "it does not start with an object"},
		{"cut short", `{"data": {"budget": {"accounts": [{"id": "a"`, "file", "the file ends too soon"},
		{"an amount that is text", `{"transactions": [{"id": "t0"}, {"id": "t1", "amount": "12.50"}]}`, "file",
			"transactions[1] at byte 63 cannot be read: its amount is a JSON string where YNAB writes a whole number of milliunits"},
		{"accounts that are not a list", `{"accounts": {"id": "a"}}`, "file", "accounts is not an array"},
		{"a transaction in an account that is not there", `{"accounts": [{"id": "a"}], "transactions": [{"id": "t9", "date": "2026-01-01", "account_id": "gone"}]}`,
			movein.EntityTransaction, `transaction "t9" names account "gone", which is not in the file`},
		{"a transaction of no date", `{"accounts": [{"id": "a"}], "transactions": [{"id": "t9", "date": "2026-13-01", "account_id": "a"}]}`,
			movein.EntityTransaction, `transaction "t9" has date "2026-13-01", which is no date`},
		{"an amount whose negation is no int64", `{"accounts": [{"id": "a"}], "transactions": [{"id": "t9", "date": "2026-01-01", "account_id": "a", "amount": -9223372036854775808}]}`,
			movein.EntityTransaction, `transaction "t9" has amount -9223372036854775808, which is no amount of money`},
		{"a split part whose negation is no int64", `{"accounts": [{"id": "a"}], "transactions": [{"id": "t9", "date": "2026-01-01", "account_id": "a", "subtransactions": [{"id": "s9", "amount": -9223372036854775808}]}]}`,
			movein.EntityTransaction, `split part "s9" has amount -9223372036854775808, which is no amount of money`},
		{"a month of no first day", `{"months": [{"month": "2026-08-15"}]}`, movein.EntityMonth, `months[0] is for "2026-08-15", which is no month's first day`},
		{"more after the budget", `{"name": "x"} {"name": "y"}`, "file", "the file goes on after the budget's JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.content))
			var me *movein.Error
			if !errors.As(err, &me) || me.Entity != c.entity || !strings.Contains(me.Msg, c.want) {
				t.Fatalf("Read = %v, want a %s error saying %q", err, c.entity, c.want)
			}
		})
	}
}

// generated is a budget JSON of n elements of one array, made as it is read: the file is
// never held whole.
func generated(array, element string, n int) io.Reader {
	head := strings.NewReader(`{"data": {"budget": {"name": "Big", "` + array + `": [`)
	tail := strings.NewReader(`]}}}`)
	i := 0
	body := readerFunc(func(p []byte) (int, error) {
		if i == n {
			return 0, io.EOF
		}
		s := fmt.Sprintf(element, i)
		if i > 0 {
			s = "," + s
		}
		i++
		return copy(p, s), nil
	})
	return io.MultiReader(head, body, tail)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// A budget of a million categories is refused at the first past the bound, naming the kind
// and the bound, having held little; so are a million transactions past theirs (lowered here,
// so that what the reader holds is that bound's worth). A large array the reader does not
// read is passed over without being held.
func TestLargeFilesCostLittle(t *testing.T) {
	cases := []struct {
		name, array, element, want string
	}{
		{"a million categories", "categories", `{"id": "c%d", "category_group_id": "g", "name": "Category", "hidden": false}`,
			"the budget holds more than 10000 categories; Tally moves in at most 10000"},
		{"a million transactions", "transactions", `{"id": "t%d", "date": "2026-01-01", "amount": -1000, "account_id": "a"}`,
			"the budget holds more than 20000 transactions and split parts; Tally moves in at most 20000"},
		{"a million payee locations", "payee_locations", `{"id": "l%d", "payee_id": "p", "latitude": "51.5", "longitude": "-0.1"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := 1_000_000
			if c.array == "payee_locations" {
				n = 200_000 // skipping is a token at a time: slower, and no bound to meet
			}
			old := movein.MaxTransactions
			movein.MaxTransactions = 20_000
			defer func() { movein.MaxTransactions = old }()
			var err error
			u := memtest.Measure(func() { _, err = Read(generated(c.array, c.element, n)) })
			peak, live := u.MB()
			t.Logf("peak heap %.1f MB, live %.1f MB", peak, live)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
			} else {
				var me *movein.Error
				if !errors.As(err, &me) || me.Msg != c.want {
					t.Fatalf("Read = %v, want %q", err, c.want)
				}
			}
			if live > 16 {
				t.Errorf("the reader held %.1f MB, want under 16 MB", live)
			}
		})
	}
}

// A goal whose amount comes round every month is one of Tally's kinds; one of a week, a year
// or every few months is read as a goal Tally cannot state, saying so.
func TestGoalCadence(t *testing.T) {
	ptr := func(n int) *int { return &n }
	for _, tc := range []struct {
		name      string
		r         category
		kind, say string
	}{
		{"a NEED before goals had a cadence", category{GoalType: "NEED", GoalTarget: 400000}, movein.GoalSpending, "NEED"},
		{"a NEED each month", category{GoalType: "NEED", GoalTarget: 400000, GoalCadence: ptr(1), GoalEvery: ptr(1)}, movein.GoalSpending, "NEED"},
		{"a NEED each week", category{GoalType: "NEED", GoalTarget: 50000, GoalCadence: ptr(2), GoalEvery: ptr(1)}, movein.GoalOther, "NEED of 50 every 1 of cadence 2"},
		{"an MF every other month", category{GoalType: "MF", GoalTarget: 80000, GoalCadence: ptr(1), GoalEvery: ptr(2)}, movein.GoalOther, "MF of 80 every 2 of cadence 1"},
		{"a TBD keeps its month whatever the cadence", category{GoalType: "TBD", GoalTarget: 1500000, GoalMonth: "2027-06-01", GoalCadence: ptr(13)}, movein.GoalBalance, "TBD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, ok := goal(tc.r)
			if !ok || g.Kind != tc.kind || g.Text != tc.say {
				t.Errorf("goal %+v, want %s %q", g, tc.kind, tc.say)
			}
		})
	}
}
