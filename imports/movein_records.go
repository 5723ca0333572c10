package imports

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/budgets"
	"tally/imports/movein"
	"tally/models"
)

// A move-in (ActualImport, YnabImport) is published by the native pipeline: its budget is
// turned into the native import's records (NDJSON), which the import stores as its file, so
// that preflight, read-back, revert and the merging by name are the pipeline's, not written
// again. What the source holds that Tally's records cannot say is a notice, listed on the
// import before anything is written.

// MoveInKinds are the kinds a move-in's dry run counts, in the order the page lists them.
var MoveInKinds = []string{"accounts", "categories", "merchants", "transactions", "splits", "transfers",
	"budget_months", "series", "rules", "goals"}

// moveIn is a source's budget as native records.
type moveIn struct {
	out     *pieceWriter
	counts  map[string]int
	notices []movein.Notice
	b       *movein.Budget
	// accountTypes are the Tally account types of the budget's accounts, by source id.
	accountTypes map[string]models.AccountType
	payees       map[string]movein.Payee
	categories   map[string]movein.Category
	// tallyNames are the names the categories are kept under, by source id.
	tallyNames map[string]string
	goalList   []MoveInGoal
	// What the records need of the whole ledger, gathered before its transactions are
	// written and let go: each account's transactions (their count and sum, by source id) and
	// each schedule's (how many and the latest date).
	ledger    map[string]*ExpectedAccount
	scheduled map[string]scheduled
}

// scheduled is what a schedule's transactions say of it.
type scheduled struct {
	count int
	last  time.Time
}

// moveInRecords turns a read and settled budget into the native import's records, written to
// out a piece at a time; out's error is the first its store returned. It lets each of the
// budget's transactions go once its record is written, and leaves the budget with none: a
// large budget's transactions are most of what it holds, and they would otherwise be held
// beside all of their records.
func moveInRecords(b *movein.Budget, out *pieceWriter) *moveIn {
	m := &moveIn{out: out, counts: map[string]int{}, b: b, accountTypes: map[string]models.AccountType{},
		payees: map[string]movein.Payee{}, categories: map[string]movein.Category{}, tallyNames: map[string]string{},
		ledger: map[string]*ExpectedAccount{}, scheduled: map[string]scheduled{}}
	for _, k := range MoveInKinds {
		m.counts[k] = 0
	}
	for _, p := range b.Payees {
		m.payees[p.ID] = p
	}
	for _, c := range b.Categories {
		m.categories[c.ID] = c
	}
	m.tallyLedger()
	m.accounts()
	m.taxonomy()
	m.series()
	m.transactions()
	m.budgets()
	m.rules()
	m.goals()
	m.notices = append(slices.Clone(b.Notices), m.notices...)
	return m
}

// note adds a notice of the conversion (the reader's come first).
func (m *moveIn) note(what, entity, id, name, format string, args ...any) {
	m.notices = append(m.notices, movein.Notice{What: what, Entity: entity, ID: id, Name: name, Reason: fmt.Sprintf(format, args...)})
}

// add writes one record.
func (m *moveIn) add(typ string, data map[string]any) {
	line, _ := json.Marshal(map[string]any{"type": typ, "data": data})
	m.out.write(line)
}

// number is a decimal as an exact JSON number.
func number(d decimal.Decimal) json.Number { return json.Number(d.String()) }

func isoDate(t time.Time) string { return t.Format(time.DateOnly) }

// groupID is a group's id among the categories: Tally makes groups parent categories, and a
// group's id may be a category's too.
func groupID(id string) string { return "group:" + id }

// tallyLedger gathers what the records need of the whole ledger.
func (m *moveIn) tallyLedger() {
	for _, a := range m.b.Accounts {
		m.ledger[a.ID] = &ExpectedAccount{ID: a.ID, Name: a.Name}
	}
	for _, t := range m.b.Transactions {
		a := m.ledger[t.AccountID]
		if a == nil {
			continue // none in a budget that passes Check
		}
		a.Transactions++
		a.Sum = a.Sum.Add(t.Amount.Decimal())
		if t.ScheduleID != "" {
			s := m.scheduled[t.ScheduleID]
			s.count++
			if t.Date.After(s.last) {
				s.last = t.Date
			}
			m.scheduled[t.ScheduleID] = s
		}
	}
}

func (m *moveIn) accounts() {
	for _, a := range m.b.Accounts {
		typ, ok := models.AccountTypeByName(a.Kind)
		if !ok {
			typ, _ = models.AccountTypeByName("Depository")
		}
		m.accountTypes[a.ID] = typ
		// The balance is what the transactions make it (money out is positive in the ledger,
		// and raises what a liability owes); the opening balance is one of them.
		sum := m.ledger[a.ID].Sum
		balance := sum.Neg()
		if typ.Liability {
			balance = sum
		}
		m.ledger[a.ID].Balance = balance
		status := "active"
		if a.Closed {
			status = "disabled"
		}
		data := map[string]any{"id": a.ID, "name": a.Name, "accountable_type": typ.Name, "balance": number(balance),
			"status": status, "notes": a.Notes, "skip_opening_balance_import": true}
		if a.Subtype != "" {
			data["subtype"] = a.Subtype
		}
		if c := orDefault(a.Currency, m.b.Currency); c != "" {
			data["currency"] = c
		}
		if !a.OnBudget {
			m.note(movein.KeptAs, movein.EntityAccount, a.ID, a.Name, "it is off budget in %s; Tally tracks every account alike, and budgets by category", m.b.Source)
		}
		m.add("Account", data)
		m.counts["accounts"]++
	}
}

// taxonomy writes the groups as parent categories, the categories beneath them, and the
// payees that are not the budget's own accounts as merchants.
func (m *moveIn) taxonomy() {
	rollovers := m.rollovers()
	names := map[string]bool{}
	for _, g := range m.b.Groups {
		names[g.Name] = true
	}
	for _, c := range m.b.Categories {
		names[c.Name] = true
	}
	hiddenGroups := map[string]bool{}
	for _, g := range m.b.Groups {
		hiddenGroups[g.ID] = g.Hidden
		m.add("Category", map[string]any{"id": groupID(g.ID), "name": m.hiddenName(names, movein.EntityGroup, g.ID, g.Name, g.Hidden),
			"classification": classification(g.Income)})
		m.counts["categories"]++
	}
	for _, c := range m.b.Categories {
		m.tallyNames[c.ID] = m.hiddenName(names, movein.EntityCategory, c.ID, c.Name, c.Hidden || hiddenGroups[c.GroupID])
		data := map[string]any{"id": c.ID, "name": m.tallyNames[c.ID],
			"classification": classification(c.Income), "budget_rollover": orDefault(rollovers[c.ID], m.defaultRollover())}
		if c.GroupID != "" {
			data["parent_id"] = groupID(c.GroupID)
		}
		m.add("Category", data)
		m.counts["categories"]++
	}
	for _, p := range m.b.Payees {
		if p.TransferAccount != "" || p.Name == "" {
			continue // a transfer's payee is the transfer; a blank one is no merchant
		}
		m.add("Merchant", map[string]any{"id": p.ID, "name": p.Name})
		m.counts["merchants"]++
	}
}

// hiddenName is the name a hidden group or category is kept under: Tally has no hidden
// categories, so a hidden one is named so, unless the reader already named it or that name
// is taken.
func (m *moveIn) hiddenName(names map[string]bool, entity, id, name string, hidden bool) string {
	if !hidden || strings.HasSuffix(name, " (hidden)") {
		return name
	}
	marked := name + " (hidden)"
	if names[marked] {
		m.note(movein.KeptAs, entity, id, name, "it is hidden, and Tally has no hidden categories: kept as an active one")
		return name
	}
	names[marked] = true
	m.note(movein.Renamed, entity, id, name, "it is hidden, and Tally has no hidden categories: kept as %q", marked)
	return marked
}

func classification(income bool) string {
	if income {
		return "income"
	}
	return "expense"
}

// rollovers is each category's rollover. Tally's is the category's, a source's may be a
// month's: a category that carries an overspend in any month carries it in every month
// (both), else one that carries a surplus in any month does (surplus). Where the months
// differ, a notice says so.
func (m *moveIn) rollovers() map[string]string {
	rank := map[string]int{movein.RolloverOff: 0, movein.RolloverSurplus: 1, movein.RolloverBoth: 2}
	out := map[string]string{}
	mixed := map[string]bool{}
	for _, mo := range m.b.Months {
		for _, l := range mo.Lines {
			prev, seen := out[l.CategoryID]
			mixed[l.CategoryID] = mixed[l.CategoryID] || (seen && prev != l.Rollover)
			if !seen || rank[l.Rollover] > rank[prev] {
				out[l.CategoryID] = l.Rollover
			}
		}
	}
	for _, c := range m.b.Categories {
		if mixed[c.ID] {
			m.note(movein.KeptAs, movein.EntityCategory, c.ID, c.Name, "its rollover differs between months in %s, and Tally's is the category's: kept as %q for every month",
				m.b.Source, out[c.ID])
		}
	}
	return out
}

// defaultRollover is the rollover of a category no month budgets: an envelope budget carries
// every category's surplus (Actual's and YNAB's default), a tracking one carries nothing.
func (m *moveIn) defaultRollover() string {
	if m.b.Style == movein.Envelope {
		return movein.RolloverSurplus
	}
	return movein.RolloverOff
}

// name is what a transaction is called in Tally: its payee, else the bank's text, else its notes.
func (m *moveIn) name(t movein.Transaction) string {
	if p, ok := m.payees[t.PayeeID]; ok && p.Name != "" && p.TransferAccount == "" {
		return p.Name
	}
	switch {
	case t.ImportedPayee != "":
		return t.ImportedPayee
	case t.Opening:
		return "Opening balance"
	case t.TransferID != "":
		return "Transfer"
	case t.Notes != "":
		return clip(t.Notes, models.MaxName)
	}
	return "Transaction"
}

func clip(s string, n int) string {
	s, _ = models.Clip(s, n)
	return s
}

// merchant is a payee's id as a merchant, "" for a transfer's payee or none.
func (m *moveIn) merchant(id string) string {
	if p, ok := m.payees[id]; ok && p.TransferAccount == "" && p.Name != "" {
		return id
	}
	return ""
}

// kind is the transaction kind a category gives: one that moves money between the
// household's accounts (a credit card payment) is a card payment, not spending.
func (m *moveIn) kind(categoryID string) string {
	if m.categories[categoryID].MovesMoney {
		return models.KindCCPayment
	}
	return models.KindStandard
}

// transactions writes each transaction, then lets it go (but for the sides of its transfers,
// written after them).
func (m *moveIn) transactions() {
	cleared := 0
	var sides []transferSide
	for i := range m.b.Transactions {
		t := m.b.Transactions[i]
		m.b.Transactions[i] = movein.Transaction{}
		sides = appendSides(sides, t)
		data := map[string]any{"id": t.ID, "account_id": t.AccountID, "date": isoDate(t.Date), "amount": number(t.Amount.Decimal()),
			"name": m.name(t), "notes": t.Notes, "source": m.b.Source, "external_id": t.ID, "kind": m.kind(t.CategoryID)}
		if t.CategoryID != "" {
			data["category_id"] = t.CategoryID
		}
		if id := m.merchant(t.PayeeID); id != "" {
			data["merchant_id"] = id
		}
		if t.ImportedPayee != "" {
			data["original_name"] = t.ImportedPayee
		}
		if t.Cleared || t.Reconciled {
			cleared++
		}
		lines := make([]map[string]any, 0, len(t.Splits))
		for _, s := range t.Splits {
			line := map[string]any{"id": s.ID, "amount": number(s.Amount.Decimal()), "notes": s.Notes, "kind": m.kind(s.CategoryID),
				"name": orDefault(m.payees[orDefault(s.PayeeID, t.PayeeID)].Name, data["name"].(string))}
			if s.CategoryID != "" {
				line["category_id"] = s.CategoryID
			}
			if id := m.merchant(orDefault(s.PayeeID, t.PayeeID)); id != "" {
				line["merchant_id"] = id
			}
			lines = append(lines, line)
			m.counts["splits"]++
		}
		if len(lines) > 0 {
			data["split_lines"] = lines
		}
		m.add("Transaction", data)
		m.counts["transactions"]++
	}
	m.b.Transactions = nil
	m.transfers(sides)
	if cleared > 0 {
		m.note(movein.NotKept, movein.EntityTransaction, "", "", "%d transactions are marked cleared or reconciled in %s; Tally has no such mark, so it is not kept",
			cleared, m.b.Source)
	}
}

// transferSide is a transaction or split part that is a side of a transfer.
type transferSide struct {
	id, other string
	amount    movein.Amount
}

// appendSides appends the sides of transfers that t and its split parts are.
func appendSides(sides []transferSide, t movein.Transaction) []transferSide {
	if t.TransferID != "" {
		sides = append(sides, transferSide{t.ID, t.TransferID, t.Amount})
	}
	for _, s := range t.Splits {
		if s.TransferID != "" {
			sides = append(sides, transferSide{s.ID, s.TransferID, s.Amount})
		}
	}
	return sides
}

// transfers writes one Transfer for each pair of sides (transactions or split parts) that
// name each other: the side whose money goes out is the outflow.
func (m *moveIn) transfers(sides []transferSide) {
	for _, s := range sides {
		// Settle kept only the pairs that mirror each other, so each is written from one side.
		if s.amount.IsPositive() || (s.amount.IsZero() && s.id < s.other) {
			m.add("Transfer", map[string]any{"outflow_transaction_id": s.id, "inflow_transaction_id": s.other, "status": "confirmed"})
			m.counts["transfers"]++
		}
	}
}

// budgets writes each month as a budget of that month, with a line for each category.
func (m *moveIn) budgets() {
	for _, mo := range m.b.Months {
		id := "month:" + mo.Month.Format("2006-01")
		data := map[string]any{"id": id, "start_date": isoDate(mo.Month), "end_date": isoDate(mo.Month.AddDate(0, 1, -1))}
		if m.b.Currency != "" {
			data["currency"] = m.b.Currency
		}
		m.add("Budget", data)
		m.counts["budget_months"]++
		for _, l := range mo.Lines {
			m.add("BudgetCategory", map[string]any{"budget_id": id, "category_id": l.CategoryID, "budgeted_spending": number(l.Budgeted)})
		}
		if !mo.Held.IsZero() {
			m.note(movein.NotKept, movein.EntityMonth, "", mo.Month.Format("2006-01"),
				"%s of its income is held for the next month in %s; Tally's budgets have no such hold, so next month's money to assign differs by it", mo.Held, m.b.Source)
		}
	}
}

// MoveInGoal is a goal a move-in brings: its category's source id and the goal as Tally's
// budgets keep it (budgets.GoalMonthly or budgets.GoalBalance, By a month or "").
type MoveInGoal struct {
	CategoryID string          `json:"category_id"`
	Category   string          `json:"category"` // its name in Tally
	Kind       string          `json:"kind"`
	Amount     decimal.Decimal `json:"amount"`
	By         string          `json:"by,omitempty"` // YYYY-MM
	Source     string          `json:"source"`       // the source's statement of it
}

// goals turns the source's goals into Tally's: an amount each month (Actual's "#template N",
// YNAB's monthly funding, and its "needed for spending" each month), or a balance, by a month
// when one is set (Actual's "#template N by YYYY-MM" and "#goal N", YNAB's target balance with
// or without a date). Tally keeps one goal per category; what it cannot state is listed.
func (m *moveIn) goals() {
	has := map[string]string{}
	for _, g := range m.b.Goals {
		name := m.categories[g.CategoryID].Name
		was := orDefault(g.Text, g.Kind+" "+g.Amount.String())
		kind, ok := budgetGoalKinds[g.Kind]
		switch {
		case !ok || !g.Amount.IsPositive():
			m.note(movein.NotKept, movein.EntityGoal, g.CategoryID, name,
				"Tally's goals are an amount each month or a balance, by a month or not; it was %s", was)
			continue
		case has[g.CategoryID] != "":
			m.note(movein.NotKept, movein.EntityGoal, g.CategoryID, name,
				"Tally keeps one goal per category, and kept %s; it was %s", has[g.CategoryID], was)
			continue
		}
		goal := MoveInGoal{CategoryID: g.CategoryID, Category: m.tallyNames[g.CategoryID], Kind: kind, Amount: g.Amount, Source: was}
		if kind == budgets.GoalBalance && !g.By.IsZero() {
			goal.By = g.By.Format("2006-01")
		}
		if g.Kind == movein.GoalSpending {
			m.note(movein.KeptAs, movein.EntityGoal, g.CategoryID, name,
				"%s has %s ready to spend each month (%s): kept as a goal of %s each month", sourceName(m.b.Source), g.Amount, was, g.Amount)
		}
		has[g.CategoryID] = was
		m.goalList = append(m.goalList, goal)
		m.counts["goals"]++
	}
}

// budgetGoalKinds are the kinds of the source's goals that Tally's budgets keep, as theirs.
var budgetGoalKinds = map[string]string{movein.GoalMonthly: budgets.GoalMonthly, movein.GoalSpending: budgets.GoalMonthly,
	movein.GoalBalance: budgets.GoalBalance}
