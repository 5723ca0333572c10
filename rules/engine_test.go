package rules

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

var (
	groceries = uuid.MustParse("00000000-0000-0000-0000-00000000c001")
	transport = uuid.MustParse("00000000-0000-0000-0000-00000000c002")
	amazon    = uuid.MustParse("00000000-0000-0000-0000-00000000a001")
	weekly    = uuid.MustParse("00000000-0000-0000-0000-00000000f001")
	online    = uuid.MustParse("00000000-0000-0000-0000-00000000f002")
	checking  = uuid.MustParse("00000000-0000-0000-0000-0000000000a1")
	card      = uuid.MustParse("00000000-0000-0000-0000-0000000000a2")
)

func txn(name, amount string) *Txn {
	return &Txn{ID: uuid.New(), AccountID: checking, Date: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC),
		Amount: decimal.RequireFromString(amount), Currency: "EUR", Name: name}
}

func cond(typ, op string, v any) Condition { return Condition{Type: typ, Operator: op, Value: v} }

func setCategory(id uuid.UUID) Action {
	return Action{Type: "set_transaction_category", Value: id.String()}
}

// TestConditions checks each condition type and operator against a transaction that matches
// and one that does not.
func TestConditions(t *testing.T) {
	groceriesID := groceries.String()
	cases := []struct {
		name    string
		c       Condition
		yes, no *Txn
	}{
		{"name contains, any case", cond("transaction_name", "like", "rewe"), txn("REWE Markt 123", "12"), txn("Aldi", "12")},
		{"name like with Sure's wildcards", cond("transaction_name", "like", "%amzn%mktp%"), txn("AMZN Mktp US*2K4", "5"), txn("MKTP AMZN", "5")},
		{"name starts with", cond("transaction_name", "starts_with", "Card "), txn("CARD payment", "5"), txn("A card payment", "5")},
		{"name equals", cond("transaction_name", "=", "netflix"), txn("Netflix", "9.99"), txn("Netflix.com", "9.99")},
		{"name matches a regular expression", cond("transaction_name", "matches", `^uber\s*\*?trip`), txn("UBER *TRIP 8XK", "14"), txn("Uber Eats", "14")},
		{"notes contain", cond("transaction_notes", "like", "refund"), func() *Txn { x := txn("Shop", "-5"); x.Notes = "Partial REFUND"; return x }(), txn("Shop", "-5")},
		{"amount equal, either sign", cond("transaction_amount", "=", 12.5), txn("A", "-12.50"), txn("A", "12.51")},
		{"amount greater", cond("transaction_amount", ">", "100"), txn("A", "100.01"), txn("A", "100")},
		{"amount at least", cond("transaction_amount", ">=", "100"), txn("A", "100"), txn("A", "99.9999")},
		{"amount less", cond("transaction_amount", "<", 10), txn("A", "9.99"), txn("A", "10")},
		{"amount at most", cond("transaction_amount", "<=", 10), txn("A", "10"), txn("A", "10.0001")},
		{"amount between", cond("transaction_amount", "between", []any{"5", "10"}), txn("A", "7"), txn("A", "10.01")},
		{"inflow", cond("transaction_type", "=", "inflow"), txn("Salary", "-2500"), txn("Rent", "900")},
		{"Sure's expense is an outflow", cond("transaction_type", "=", "expense"), txn("Rent", "900"), txn("Salary", "-2500")},
		{"account", cond("transaction_account", "=", checking.String()), txn("A", "1"), func() *Txn { x := txn("A", "1"); x.AccountID = card; return x }()},
		{"date from", cond("transaction_date", ">=", "2026-03-14"), txn("A", "1"), func() *Txn { x := txn("A", "1"); x.Date = x.Date.AddDate(0, 0, -1); return x }()},
		{"date until", cond("transaction_date", "<=", "2026-03-13"), func() *Txn { x := txn("A", "1"); x.Date = x.Date.AddDate(0, 0, -1); return x }(), txn("A", "1")},
		{"date range", cond("transaction_date", "between", []any{"2026-03-01", "2026-03-31"}), txn("A", "1"), func() *Txn { x := txn("A", "1"); x.Date = x.Date.AddDate(0, 1, 0); return x }()},
		{"currency", cond("transaction_currency", "=", "eur"), txn("A", "1"), func() *Txn { x := txn("A", "1"); x.Currency = "USD"; return x }()},
		{"merchant", cond("transaction_merchant", "=", amazon.String()), func() *Txn { x := txn("A", "1"); x.MerchantID = &amazon; return x }(), txn("A", "1")},
		{"no merchant", cond("transaction_merchant", "is_null", nil), txn("A", "1"), func() *Txn { x := txn("A", "1"); x.MerchantID = &amazon; return x }()},
		{"has no category", cond("transaction_category", "is_null", nil), txn("A", "1"), func() *Txn { x := txn("A", "1"); x.CategoryID = &transport; return x }()},
		{"category", cond("transaction_category", "=", groceriesID), func() *Txn { x := txn("A", "1"); x.CategoryID = &groceries; return x }(), txn("A", "1")},
		{"compound or", Condition{Type: "compound", Operator: "or", Sub: []Condition{cond("transaction_name", "like", "rewe"), cond("transaction_name", "like", "aldi")}},
			txn("ALDI SUED", "3"), txn("Lidl", "3")},
		{"compound and", Condition{Type: "compound", Operator: "and", Sub: []Condition{cond("transaction_name", "like", "shell"), cond("transaction_amount", ">", 30)}},
			txn("Shell 0123", "45"), txn("Shell 0123", "4.50")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Rule{Active: true, Conditions: []Condition{tc.c}, Actions: []Action{setCategory(groceries)}}
			if ok, err := Matches(r, tc.yes); err != nil || !ok {
				t.Errorf("does not match %q %s (err %v)", tc.yes.Name, tc.yes.Amount, err)
			}
			if ok, err := Matches(r, tc.no); err != nil || ok {
				t.Errorf("matches %q %s (err %v)", tc.no.Name, tc.no.Amount, err)
			}
		})
	}
}

// TestActions checks what each action sets.
func TestActions(t *testing.T) {
	r := Rule{Active: true, Conditions: []Condition{cond("transaction_name", "like", "amzn")}, Actions: []Action{
		setCategory(groceries),
		{Type: "set_transaction_merchant", Value: amazon.String()},
		{Type: "set_transaction_tags", Value: []any{weekly.String(), online.String()}},
		{Type: "set_transaction_name", Value: "Amazon"},
		{Type: "exclude_transaction"},
	}}
	set, err := Compile([]Rule{r})
	if err != nil {
		t.Fatal(err)
	}
	x := txn("AMZN MKTP US*2K4", "23.99")
	x.TagIDs = []uuid.UUID{weekly}
	if !set.Apply(x) {
		t.Fatal("nothing changed")
	}
	if *x.CategoryID != groceries || *x.MerchantID != amazon || x.Name != "Amazon" || !x.Excluded {
		t.Errorf("after the rule: category %v merchant %v name %q excluded %v", x.CategoryID, x.MerchantID, x.Name, x.Excluded)
	}
	if x.OriginalName == nil || *x.OriginalName != "AMZN MKTP US*2K4" {
		t.Errorf("the source's name is not kept: %v", x.OriginalName)
	}
	if len(x.TagIDs) != 2 || x.TagIDs[0] != weekly || x.TagIDs[1] != online {
		t.Errorf("tags %v, want weekly then online, each once", x.TagIDs)
	}
	// Running again changes nothing: the rule's name no longer contains amzn, and the rest is set.
	if set.Apply(x) {
		t.Error("a second run changed the transaction again")
	}
}

// TestOrderContinueAndLocks checks that the first matching rule wins each field, that a
// match stops the run unless the rule says to continue, and that hand-set fields stay.
func TestOrderContinueAndLocks(t *testing.T) {
	first := Rule{Name: "shops are groceries", Active: true, Conditions: []Condition{cond("transaction_name", "like", "shop")},
		Actions: []Action{setCategory(groceries)}}
	second := Rule{Name: "bus shop is transport", Active: true, Conditions: []Condition{cond("transaction_name", "like", "bus")},
		Actions: []Action{setCategory(transport), {Type: "set_transaction_tags", Value: weekly.String()}}}
	inactive := Rule{Name: "off", Active: false, Conditions: nil, Actions: []Action{{Type: "set_transaction_name", Value: "Never"}}}

	set, _ := Compile([]Rule{inactive, first, second})
	x := txn("Bus shop", "2")
	set.Apply(x)
	if *x.CategoryID != groceries || len(x.TagIDs) != 0 || x.Name != "Bus shop" {
		t.Errorf("stopping: category %v tags %v name %q; want groceries alone", x.CategoryID, x.TagIDs, x.Name)
	}

	first.Continue = true
	set, _ = Compile([]Rule{first, second})
	x = txn("Bus shop", "2")
	set.Apply(x)
	if *x.CategoryID != groceries || len(x.TagIDs) != 1 {
		t.Errorf("continuing: category %v tags %v; want groceries kept and the second rule's tag added", x.CategoryID, x.TagIDs)
	}

	x = txn("Bus shop", "2")
	x.CategoryID, x.Locked = &transport, []string{FieldCategory}
	set.Apply(x)
	if *x.CategoryID != transport {
		t.Errorf("a category set by hand was changed to %v", x.CategoryID)
	}

	effective := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	second.EffectiveDate = &effective
	set, _ = Compile([]Rule{second})
	if x := txn("bus", "1"); set.Apply(x) {
		t.Error("a rule changed a transaction dated before its effective date")
	}

	anyOf := Rule{Active: true, Match: "any", Conditions: []Condition{cond("transaction_name", "like", "rewe"), cond("transaction_amount", ">", 100)},
		Actions: []Action{setCategory(groceries)}}
	for name, want := range map[string]bool{"rewe 5": true, "big 500": true, "small 5": false} {
		parts := strings.Fields(name)
		if ok, _ := Matches(anyOf, txn(parts[0], parts[1])); ok != want {
			t.Errorf("any-of rule on %q: %v, want %v", name, ok, want)
		}
	}
}

// TestInvalidRulesNameTheirFault checks the errors a rule that cannot run gives.
func TestInvalidRulesNameTheirFault(t *testing.T) {
	ok := []Action{setCategory(groceries)}
	cases := []struct {
		rule Rule
		want string
	}{
		{Rule{Active: true}, "actions: a rule needs at least one action"},
		{Rule{Active: true, Actions: []Action{{Type: "auto_categorize"}}}, `actions[0]: "auto_categorize" is not an action Tally runs`},
		{Rule{Active: true, Actions: ok, Conditions: []Condition{cond("transaction_name", "~", "x")}}, `conditions[0]: operator "~" is not one of like, starts_with, =, matches`},
		{Rule{Active: true, Actions: ok, Conditions: []Condition{cond("transaction_name", "matches", "(")}}, "conditions[0]: not a regular expression"},
		{Rule{Active: true, Actions: ok, Conditions: []Condition{{Type: "compound", Operator: "or", Sub: []Condition{cond("transaction_amount", "between", []any{"9", "1"})}}}}, "conditions[0].sub_conditions[0]: the low amount is above the high one"},
		{Rule{Active: true, Actions: ok, Conditions: []Condition{cond("transaction_amount", "=", "1.00001")}}, "more than four decimals"},
		{Rule{Active: true, Actions: []Action{{Type: "set_transaction_category", Value: "Groceries"}}}, "actions[0]: Groceries is not an id"},
		{Rule{Active: true, Match: "most", Actions: ok}, `match: "most" is not all or any`},
	}
	for _, tc := range cases {
		err := Validate(tc.rule)
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.rule, err, tc.want)
		}
	}
}
