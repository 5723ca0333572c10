// Package movein is the model of a whole budget that a household brings into Tally from
// another app. Each reader (imports/actual, imports/ynab) turns its app's export into a Budget;
// the import then turns a Budget into the native import's records (Account, Category with
// parent_id, Merchant, Transaction with split_lines, Transfer, Budget and BudgetCategory,
// RecurringTransaction, Rule), so verification, revert and idempotency stay the pipeline's.
//
// The model knows no format and no database. It keeps the source's ids, so that references
// between its parts are checked once, by the reader, and the import maps them to Tally's ids.
// What a reader could not carry, or carried in another form, it says in Notices.
//
// Money is decimal.Decimal in the currency's units (12.34, not 1234), as everywhere in Tally.
// Amounts of money that moves follow Tally's ledger sign: money out of the account is
// positive. Actual keeps hundredths and YNAB thousandths of a unit, and neither always says
// which currency (so which minor unit) a budget is in: a decimal holds both exactly, with no
// scale to choose and no overflow to guard, and it is what the native import's numbers become.
// The one exception is a transaction's and a split part's amount, an Amount: there are
// hundreds of thousands of them in a large budget.
package movein

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Sources a Budget may come from.
const (
	SourceActual = "actual"
	SourceYNAB   = "ynab"
)

// Budgeting styles. An envelope budget gives every unit of income a job and carries what a
// category leaves into the next month; a tracking budget compares spending with a plan.
const (
	Envelope = "envelope"
	Tracking = "tracking"
)

// Budget is the whole of one household's budget in another app.
type Budget struct {
	Source   string // SourceActual or SourceYNAB
	Name     string
	Currency string // the budget's ISO 4217 code when the source says, else ""
	Style    string // Envelope or Tracking

	Accounts     []Account
	Payees       []Payee
	Groups       []CategoryGroup
	Categories   []Category
	Transactions []Transaction
	Months       []Month // in month order
	Schedules    []Schedule
	Rules        []Rule
	Goals        []Goal
	Notices      []Notice
}

// Account is one account. Kind and Subtype are a hint in Tally's words (an accountable type of
// models.AccountTypes and one of its subtypes); both are "" when the source does not say.
type Account struct {
	ID       string
	Name     string
	OnBudget bool // its money is budgeted; off-budget accounts are only tracked
	Closed   bool
	Currency string // ISO 4217 code when the source says, else ""
	Kind     string // "Depository", "CreditCard", "Loan", "Investment", "OtherAsset", "OtherLiability" or ""
	Subtype  string // "checking", "savings", "credit_card", "mortgage", "auto", "student", "other" or ""
	Notes    string
}

// Payee is who a transaction is with. A transfer payee stands for one of the budget's own
// accounts: a transaction with it moves money to or from that account.
type Payee struct {
	ID              string
	Name            string
	TransferAccount string // the account's id for a transfer payee, else ""
}

// CategoryGroup groups categories; Tally makes it the categories' parent.
type CategoryGroup struct {
	ID      string
	Name    string
	Hidden  bool
	Income  bool
	Builtin bool // made by the source app, not the household (YNAB's internal group)
}

// Category is one category of a group.
type Category struct {
	ID      string
	GroupID string
	Name    string
	Hidden  bool
	Income  bool
	// MovesMoney marks a category whose transactions move money between the household's own
	// accounts rather than spend it: YNAB's credit card payment categories.
	MovesMoney bool
}

// Transaction is one transaction of an account. A split transaction has Splits, which carry
// the categories; its own CategoryID is then "".
type Transaction struct {
	ID            string
	AccountID     string
	Date          time.Time // a date, at midnight UTC
	Amount        Amount    // ledger sign: money out of the account is positive
	PayeeID       string    // "" when it has none
	CategoryID    string    // "" when it has none
	Notes         string
	ImportedID    string // the bank's id of it, when it came from a bank
	ImportedPayee string // the bank's text for the payee, as imported
	Cleared       bool
	Reconciled    bool
	Opening       bool   // the account's opening balance
	ScheduleID    string // the schedule it was entered for, if any
	// TransferID is the other side of a transfer between two of the budget's accounts: a
	// transaction's or a split part's id. Each side names the other.
	TransferID string
	Splits     []Split // the parts, whose amounts add up to Amount
}

// Amount is the amount of a transaction or a split part: Units of 10^Exp (Actual's
// hundredths are Exp -2, YNAB's thousandths -3). A decimal.Decimal points at a big.Int of its
// own, 40 bytes more for each of a large budget's 300,000 transactions and parts (17 MB of a
// 50 MB export's); an Amount holds its digits in place. Sums and comparisons go through
// Decimal, which cannot overflow.
type Amount struct {
	Units int64
	Exp   int32
}

// AmountOf is d as an Amount; ok is false when d's digits do not fit an int64.
func AmountOf(d decimal.Decimal) (a Amount, ok bool) {
	if !d.Coefficient().IsInt64() {
		return Amount{}, false
	}
	return Amount{Units: d.CoefficientInt64(), Exp: d.Exponent()}, true
}

// Decimal is a as a decimal.Decimal.
func (a Amount) Decimal() decimal.Decimal { return decimal.New(a.Units, a.Exp) }

// Equal reports whether a is d.
func (a Amount) Equal(d decimal.Decimal) bool { return a.Decimal().Equal(d) }

// IsZero, IsPositive and String are a's, as its Decimal's.
func (a Amount) IsZero() bool     { return a.Units == 0 }
func (a Amount) IsPositive() bool { return a.Units > 0 }
func (a Amount) String() string   { return a.Decimal().String() }

// Split is one part of a split transaction.
type Split struct {
	ID         string
	Amount     Amount // ledger sign, as the transaction's
	PayeeID    string // "" for the transaction's payee
	CategoryID string
	Notes      string
	TransferID string // the other side, when this part is a transfer
}

// Month is one month's budget.
type Month struct {
	Month time.Time // its first day, at midnight UTC
	Lines []Line
	// Held is income set aside in this month for the next one (Actual's "hold for next
	// month"); zero when none.
	Held decimal.Decimal
}

// Rollover settings: what a category's leftover does at the end of the month. They are the
// words of Tally's budgets (budgets.Rollovers), so the import copies them.
const (
	RolloverOff     = "off"     // nothing carries: each month starts afresh
	RolloverSurplus = "surplus" // a surplus carries; an overspend is taken from next month's money to assign
	RolloverBoth    = "both"    // a surplus and an overspend both stay in the category
)

// Line is one category's budget in a month.
type Line struct {
	CategoryID string
	Budgeted   decimal.Decimal // what was assigned to it, positive
	Rollover   string          // RolloverOff, RolloverSurplus or RolloverBoth
}

// Units a schedule repeats by.
const (
	UnitOnce  = "once" // a single date
	UnitDay   = "day"
	UnitWeek  = "week"
	UnitMonth = "month"
	UnitYear  = "year"
)

// Repeat is how often a schedule comes round: Times on each Every Units (twice a month is
// Times 2, Every 1, UnitMonth; every other week is Times 1, Every 2, UnitWeek).
type Repeat struct {
	Unit  string
	Every int
	Times int
	Until time.Time // the last date it may fall on; zero when open-ended
	Count int       // how many times it comes in all; 0 when open-ended
	// Source is the source's own statement of it ("everyOtherWeek", or Actual's recurrence
	// JSON), for a person to check what Unit, Every and Times could not say.
	Source string
}

// Schedule is a bill or income the household expects: Tally's recurring series.
type Schedule struct {
	ID         string
	Name       string
	AccountID  string
	PayeeID    string
	CategoryID string
	// Amount is what it is expected to be, in the ledger's sign; Min and Max bound an
	// approximate or ranged amount, and equal Amount for an exact one.
	Amount, Min, Max decimal.Decimal
	Repeat           Repeat
	Start            time.Time
	Next             time.Time // the next date it is due; zero when it has ended
	Active           bool      // false once completed
	Notes            string
}

// Rule is one of Actual's rules, as stored and as far as Tally's rules could state it.
type Rule struct {
	ID    string
	Stage string // "pre", "" or "post": Actual runs the pre rules first and the post rules last
	Match string // "all" or "any" of the conditions
	// Conditions and Actions have the source's ids resolved (a merged payee's id is the one it
	// was merged into) and amounts in the ledger's sign.
	Conditions []Condition
	Actions    []Action
	Source     string // the rule as the source stores it, for a person to read and redo
	// Expressible says whether Tally's rules can state every condition and action; Why names
	// the first that they cannot.
	Expressible bool
	Why         string
}

// Condition is one test of a rule: Field ("payee", "imported_payee", "notes", "account",
// "category", "amount", "date", ...), Op (the source's operator, "is", "contains", "oneOf",
// "gt", "isbetween", ...) and Value (a string, a list of them, a decimal.Decimal amount, a
// [2]decimal.Decimal range, a date, or what the source had).
type Condition struct {
	Field string
	Op    string
	Value any
}

// Action is what a rule does: Op "set" with a Field ("category", "payee", "notes", ...), or
// the source's other operations ("prepend-notes", "set-split-amount", ...).
type Action struct {
	Field string
	Op    string
	Value any
}

// Kinds of goal.
const (
	GoalMonthly  = "monthly"  // assign Amount each month
	GoalBalance  = "balance"  // have Amount in the category, by the month By when it is set
	GoalSpending = "spending" // have Amount ready to spend each period (YNAB's "needed for spending")
	GoalDebt     = "debt"     // pay Amount a month towards a debt
	GoalOther    = "other"    // a goal Tally cannot state: Text says what it was
)

// Goal is what a category aims at.
type Goal struct {
	CategoryID string
	Kind       string
	Amount     decimal.Decimal // zero when the source gives none
	By         time.Time       // the month it is due, at its first day; zero when none
	Text       string          // the source's statement of it ("#template 300", "TBD")
}

// What a notice says of an entity.
const (
	Renamed = "renamed"  // kept under another name, so that names stay unique
	NotKept = "not_kept" // left out of the move
	KeptAs  = "kept_as"  // kept, but in another form than the source's
)

// Entities a notice or an error may name.
const (
	EntityAccount     = "account"
	EntityPayee       = "payee"
	EntityGroup       = "category group"
	EntityCategory    = "category"
	EntityTransaction = "transaction"
	EntityMonth       = "budget month"
	EntitySchedule    = "schedule"
	EntityRule        = "rule"
	EntityGoal        = "goal"
)

// Notice says what a reader did with one thing of the source that it could not carry as is.
type Notice struct {
	What   string // Renamed, NotKept or KeptAs
	Entity string // one of the Entity constants
	ID     string // the source's id of it, "" when it has none
	Name   string // its name as the source has it, for a person
	Reason string // a sentence: why, and under which name when renamed
}

func (n Notice) String() string {
	name := n.Name
	if name == "" {
		name = n.ID
	}
	return fmt.Sprintf("%s %q: %s", n.Entity, name, n.Reason)
}

// Note adds a notice.
func (b *Budget) Note(what, entity, id, name, format string, args ...any) {
	b.Notices = append(b.Notices, Notice{What: what, Entity: entity, ID: id, Name: name, Reason: fmt.Sprintf(format, args...)})
}
