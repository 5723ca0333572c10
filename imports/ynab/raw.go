package ynab

// The budget as YNAB's API writes it (GET /v1/budgets/{id}), field by field as far as a move
// read it. Amounts are milliunits: 1000 is 1.00. Dates are YYYY-MM-DD.

type raw struct {
	name     string
	currency struct {
		IsoCode string `json:"iso_code"`
	}
	accounts        []account
	payees          []payee
	groups          []group
	categories      []category
	months          []month
	transactions    []transaction
	subtransactions []subtransaction
	scheduled       []scheduled
	scheduledSubs   []scheduledSub
}

type account struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	OnBudget bool   `json:"on_budget"`
	Closed   bool   `json:"closed"`
	Note     string `json:"note"`
	Deleted  bool   `json:"deleted"`
}

type payee struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	TransferAccount string `json:"transfer_account_id"`
	Deleted         bool   `json:"deleted"`
}

type group struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Hidden  bool   `json:"hidden"`
	Deleted bool   `json:"deleted"`
}

type category struct {
	ID         string `json:"id"`
	GroupID    string `json:"category_group_id"`
	Name       string `json:"name"`
	Hidden     bool   `json:"hidden"`
	Deleted    bool   `json:"deleted"`
	GoalType   string `json:"goal_type"` // TB, TBD, MF, NEED, DEBT
	GoalTarget int64  `json:"goal_target"`
	GoalMonth  string `json:"goal_target_month"`
	// GoalCadence is how often a NEED or MF goal's amount comes round: 0 or 1 (or absent)
	// monthly, 2 weekly, 13 yearly; every GoalEvery of them (0 or absent is 1).
	GoalCadence *int `json:"goal_cadence"`
	GoalEvery   *int `json:"goal_cadence_frequency"`
}

type month struct {
	Month      string `json:"month"`
	Deleted    bool   `json:"deleted"`
	Categories []monthCategory
}

type monthCategory struct {
	ID       string `json:"id"`
	Budgeted int64  `json:"budgeted"`
	Deleted  bool   `json:"deleted"`
}

type transaction struct {
	ID                  string           `json:"id"`
	Date                string           `json:"date"`
	Amount              int64            `json:"amount"`
	Memo                string           `json:"memo"`
	Cleared             string           `json:"cleared"` // cleared, uncleared or reconciled
	AccountID           string           `json:"account_id"`
	PayeeID             string           `json:"payee_id"`
	CategoryID          string           `json:"category_id"`
	TransferAccount     string           `json:"transfer_account_id"`
	TransferTransaction string           `json:"transfer_transaction_id"`
	ImportID            string           `json:"import_id"`
	ImportPayeeName     string           `json:"import_payee_name_original"`
	Deleted             bool             `json:"deleted"`
	Subtransactions     []subtransaction `json:"subtransactions"` // when the file nests them
}

type subtransaction struct {
	ID                  string `json:"id"`
	TransactionID       string `json:"transaction_id"`
	Amount              int64  `json:"amount"`
	Memo                string `json:"memo"`
	PayeeID             string `json:"payee_id"`
	CategoryID          string `json:"category_id"`
	TransferAccount     string `json:"transfer_account_id"`
	TransferTransaction string `json:"transfer_transaction_id"`
	Deleted             bool   `json:"deleted"`
}

type scheduled struct {
	ID              string `json:"id"`
	DateFirst       string `json:"date_first"`
	DateNext        string `json:"date_next"`
	Frequency       string `json:"frequency"`
	Amount          int64  `json:"amount"`
	Memo            string `json:"memo"`
	AccountID       string `json:"account_id"`
	PayeeID         string `json:"payee_id"`
	CategoryID      string `json:"category_id"`
	TransferAccount string `json:"transfer_account_id"`
	Deleted         bool   `json:"deleted"`
}

type scheduledSub struct {
	ID          string `json:"id"`
	ScheduledID string `json:"scheduled_transaction_id"`
	Deleted     bool   `json:"deleted"`
}
