package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// AccountType describes one of the nine kinds of account a family can hold.
type AccountType struct {
	Name      string   // the accountable type, as stored: "Depository"
	Label     string   // as a person reads it: "Cash and bank"
	Liability bool     // what the family owes rather than owns
	Subtypes  []string // the subtypes offered for it, if any
}

// AccountTypes lists the account types in the order pages show them.
var AccountTypes = []AccountType{
	{Name: "Depository", Label: "Cash and bank", Subtypes: []string{"checking", "savings", "hsa", "cd", "money_market"}},
	{Name: "Investment", Label: "Investments", Subtypes: []string{"brokerage", "pension", "retirement", "401k", "roth_401k", "403b", "tsp", "529_plan", "hsa", "mutual_fund", "ira", "roth_ira", "angel"}},
	{Name: "Crypto", Label: "Crypto"},
	{Name: "Property", Label: "Property", Subtypes: []string{"single_family_home", "multi_family_home", "condominium", "townhouse", "investment_property", "second_home"}},
	{Name: "Vehicle", Label: "Vehicles"},
	{Name: "OtherAsset", Label: "Other assets"},
	{Name: "CreditCard", Label: "Credit cards", Liability: true, Subtypes: []string{"credit_card"}},
	{Name: "Loan", Label: "Loans", Liability: true, Subtypes: []string{"mortgage", "student", "auto", "other"}},
	{Name: "OtherLiability", Label: "Other liabilities", Liability: true},
}

// AccountTypeByName returns the account type called name (case-sensitive, as stored).
func AccountTypeByName(name string) (AccountType, bool) {
	for _, t := range AccountTypes {
		if t.Name == name {
			return t, true
		}
	}
	return AccountType{}, false
}

// Account statuses.
const (
	AccountActive   = "active"
	AccountDisabled = "disabled" // closed: kept for history, hidden from totals
	AccountDraft    = "draft"
)

// Account is a place where a family holds or owes money.
type Account struct {
	bun.BaseModel `bun:"table:accounts,alias:a"`

	ID                uuid.UUID       `bun:"id,pk,type:uuid"`
	FamilyID          uuid.UUID       `bun:"family_id,type:uuid"`
	Name              string          `bun:"name"`
	AccountableType   string          `bun:"accountable_type"`
	Subtype           string          `bun:"subtype"`
	Currency          string          `bun:"currency"`
	Balance           decimal.Decimal `bun:"balance,type:numeric(19,4)"`
	CashBalance       decimal.Decimal `bun:"cash_balance,type:numeric(19,4)"`
	Status            string          `bun:"status"`
	InstitutionName   string          `bun:"institution_name"`
	InstitutionDomain string          `bun:"institution_domain"`
	Notes             string          `bun:"notes"`
	LockedAttributes  map[string]any  `bun:"locked_attributes,type:jsonb"`
	ImportID          *uuid.UUID      `bun:"import_id,type:uuid"`
	ExternalID        *string         `bun:"external_id"`
	Source            *string         `bun:"source"`
	CreatedAt         time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt         time.Time       `bun:"updated_at,nullzero,default:now()"`
}

// Type returns the account's type description.
func (a *Account) Type() AccountType {
	t, _ := AccountTypeByName(a.AccountableType)
	return t
}

// Classification is "liability" for what the family owes and "asset" otherwise.
func (a *Account) Classification() string {
	if a.Type().Liability {
		return "liability"
	}
	return "asset"
}

// AccountInput is what a person enters to create or edit a manual account.
type AccountInput struct {
	Name            string
	AccountableType string
	Subtype         string
	Currency        string
	// OpeningBalance is used on create only; editing the balance is a valuation.
	OpeningBalance decimal.Decimal
	OpeningDate    time.Time
}

// Validate normalises the input and reports every problem with it. Creating also checks the
// currency, which cannot change afterwards.
func (in *AccountInput) Validate(creating bool) error {
	in.Name = strings.TrimSpace(in.Name)
	in.Currency = strings.ToUpper(strings.TrimSpace(in.Currency))
	var v apperr.Validation
	if in.Name == "" {
		v.Add("name", "Name can't be blank")
	}
	t, ok := AccountTypeByName(in.AccountableType)
	if !ok {
		v.Add("accountable_type", "Type must be one of the listed account types")
	} else if in.Subtype != "" && !contains(t.Subtypes, in.Subtype) {
		v.Add("subtype", "Subtype is not valid for this type")
	}
	if creating && !ValidCurrency(in.Currency) {
		v.Add("currency", "Currency must be a three-letter ISO code such as USD")
	}
	return v.Err()
}

// CreateAccount creates a manual account in the family. A non-zero opening balance is recorded
// as an opening-anchor valuation on OpeningDate (today when zero), so the account's history
// explains its balance.
func CreateAccount(ctx context.Context, db bun.IDB, familyID uuid.UUID, in AccountInput) (*Account, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	a := &Account{
		ID: newID(), FamilyID: familyID, Name: in.Name, AccountableType: in.AccountableType,
		Subtype: in.Subtype, Currency: in.Currency, Balance: in.OpeningBalance, CashBalance: in.OpeningBalance,
		Status: AccountActive, LockedAttributes: map[string]any{},
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(a).Exec(ctx); err != nil {
			return err
		}
		if in.OpeningBalance.IsZero() {
			return nil
		}
		date := in.OpeningDate
		if date.IsZero() {
			date = time.Now().UTC()
		}
		return insertValuation(ctx, tx, a, date, in.OpeningBalance, "Opening balance", "opening_anchor")
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// UpdateAccount changes a family account's name, type and subtype.
func UpdateAccount(ctx context.Context, db bun.IDB, familyID, id uuid.UUID, in AccountInput) (*Account, error) {
	if err := in.Validate(false); err != nil {
		return nil, err
	}
	a := new(Account)
	err := db.NewUpdate().Model(a).
		Set("name = ?", in.Name).Set("accountable_type = ?", in.AccountableType).Set("subtype = ?", in.Subtype).
		Set("updated_at = now()").
		Where("id = ? AND family_id = ?", id, familyID).Returning("*").Scan(ctx)
	return a, notFound(err, "account")
}

// SetAccountStatus closes (disabled) or reopens (active) a family account.
func SetAccountStatus(ctx context.Context, db bun.IDB, familyID, id uuid.UUID, status string) error {
	res, err := db.NewUpdate().Model((*Account)(nil)).Set("status = ?", status).Set("updated_at = now()").
		Where("id = ? AND family_id = ?", id, familyID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, "account not found")
	}
	return nil
}

// AccountChanges are the fields of an account a client changes: nil leaves a field as it is.
type AccountChanges struct {
	Name    *string
	Subtype *string
	Status  *string // active or disabled (closed)
}

// Validate reports the problems of the changes that need no account: a status other than
// active or disabled. Name and subtype are checked as the account's form checks them, against
// its type, by ChangeAccount.
func (ch *AccountChanges) Validate() error {
	var v apperr.Validation
	if ch.Status != nil && *ch.Status != AccountActive && *ch.Status != AccountDisabled {
		v.Add("status", "Status must be active or disabled")
	}
	return v.Err()
}

// ChangeAccount applies the changes to the family's account, with the account form's rules,
// reporting every problem at once.
func ChangeAccount(ctx context.Context, db bun.IDB, familyID, id uuid.UUID, ch AccountChanges) (*Account, error) {
	a := new(Account)
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().Model(a).Where("id = ? AND family_id = ?", id, familyID).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "account")
		}
		in := AccountInput{Name: a.Name, AccountableType: a.AccountableType, Subtype: a.Subtype}
		if ch.Name != nil {
			in.Name = *ch.Name
		}
		if ch.Subtype != nil {
			in.Subtype = strings.TrimSpace(*ch.Subtype)
		}
		var v apperr.Validation
		v.Merge(ch.Validate())
		v.Merge(in.Validate(false))
		if err := v.Err(); err != nil {
			return err
		}
		status := a.Status
		if ch.Status != nil {
			status = *ch.Status
		}
		return tx.NewUpdate().Model(a).Set("name = ?", in.Name).Set("subtype = ?", in.Subtype).Set("status = ?", status).
			Set("updated_at = now()").WherePK().Returning("*").Scan(ctx)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// AccountDeletion is what deleting an account removes with it.
type AccountDeletion struct {
	Transactions int // its transactions (split parts not counted)
	Entries      int // every entry: transactions, their split parts, trades and valuations
}

// DeleteAccount deletes the family's account with everything that hangs on it: entries (and
// so trades, valuations, split parts and transfers), holdings, balances, identifiers and
// import profiles. confirm must be the account's exact name; otherwise the deletion is refused
// on confirm, saying what would go, which is the one confirmation rule of the API and the
// page. An account that an import is publishing into or reverting is refused (Conflict). The
// other sides of its transfers count as spending or income again, and import mappings to it
// are cleared, so a pending import asks for an account again.
func DeleteAccount(ctx context.Context, db bun.IDB, familyID, id uuid.UUID, confirm string) (*AccountDeletion, error) {
	var del AccountDeletion
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a := new(Account)
		// Locked: a publish writing entries into it waits (their foreign key), or it waits for one.
		if err := tx.NewSelect().Model(a).Where("id = ? AND family_id = ?", id, familyID).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "account")
		}
		if err := tx.NewRaw(`SELECT count(*) FILTER (WHERE kind = 'transaction' AND parent_id IS NULL), count(*)
			FROM entries WHERE account_id = ?`, id).Scan(ctx, &del.Transactions, &del.Entries); err != nil {
			return err
		}
		if strings.TrimSpace(confirm) != a.Name {
			var v apperr.Validation
			v.Add("confirm", fmt.Sprintf("Deleting “%s” deletes its %d %s (%d %s in all) and cannot be undone: confirm with the account's exact name",
				a.Name, del.Transactions, plural(del.Transactions, "transaction", "transactions"), del.Entries, plural(del.Entries, "entry", "entries")))
			return v.Err()
		}
		var busy []string
		if err := tx.NewRaw(`SELECT i.id::text FROM imports i
			WHERE i.family_id = ? AND i.status IN ('importing', 'reverting') AND (i.account_id = ?
				OR EXISTS (SELECT 1 FROM import_mappings m WHERE m.import_id = i.id AND m.kind = 'account' AND m.target_id = ?)
				OR EXISTS (SELECT 1 FROM entries e WHERE e.import_id = i.id AND e.account_id = ?))`,
			familyID, id, id, id).Scan(ctx, &busy); err != nil && !isNoRows(err) {
			return err
		}
		if len(busy) > 0 {
			return apperr.Errorf(apperr.Conflict, "An import into this account is being published or reverted (%s): delete the account once it is done",
				strings.Join(busy, ", "))
		}
		// The other sides of its transfers, in other accounts, count as spending or income again.
		if _, err := tx.NewRaw(`UPDATE entries o SET transaction_kind = 'standard', updated_at = now()
			FROM transfers t JOIN entries e ON e.id IN (t.inflow_entry_id, t.outflow_entry_id)
			WHERE t.family_id = ? AND e.account_id = ? AND o.id IN (t.inflow_entry_id, t.outflow_entry_id) AND o.account_id <> ?`,
			familyID, id, id).Exec(ctx); err != nil {
			return err
		}
		if err := forgetMappings(ctx, tx, familyID, "account", id, nil); err != nil {
			return err
		}
		_, err := tx.NewDelete().Model(a).WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &del, nil
}

// AccountByID returns the family's account with id.
func AccountByID(ctx context.Context, db bun.IDB, familyID, id uuid.UUID) (*Account, error) {
	a := new(Account)
	err := db.NewSelect().Model(a).Where("id = ? AND family_id = ?", id, familyID).Scan(ctx)
	return a, notFound(err, "account")
}

// AccountsForFamily lists the family's accounts by type and name. Closed accounts come last.
func AccountsForFamily(ctx context.Context, db bun.IDB, familyID uuid.UUID) ([]Account, error) {
	var accts []Account
	err := db.NewSelect().Model(&accts).Where("family_id = ?", familyID).
		OrderExpr("status = 'disabled', accountable_type, lower(name), id").Scan(ctx)
	return accts, err
}

func insertValuation(ctx context.Context, db bun.IDB, a *Account, date time.Time, amount decimal.Decimal, name, kind string) error {
	e := &Entry{
		ID: newID(), FamilyID: a.FamilyID, AccountID: a.ID, Kind: EntryValuation, Date: date,
		Amount: amount, Currency: a.Currency, Name: name, TransactionKind: "standard",
	}
	if _, err := db.NewInsert().Model(e).Exec(ctx); err != nil {
		return err
	}
	_, err := db.NewRaw("INSERT INTO valuations (entry_id, kind) VALUES (?, ?)", e.ID, kind).Exec(ctx)
	return err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RecomputeBalances sets the balance of the given manual accounts from their ledger: the
// latest valuation, plus the transactions dated after it (all of them when there is none).
// An outflow lowers an asset and raises what a liability owes. Accounts fed by a provider
// (source set) keep the balance the provider reports.
func RecomputeBalances(ctx context.Context, db bun.IDB, accountIDs []uuid.UUID) error {
	if len(accountIDs) == 0 {
		return nil
	}
	_, err := db.NewRaw(`
		UPDATE accounts a SET balance = x.balance, cash_balance = x.balance, updated_at = now()
		FROM (
			SELECT a.id,
				coalesce(v.amount, 0) + CASE WHEN a.accountable_type IN ('CreditCard', 'Loan', 'OtherLiability') THEN 1 ELSE -1 END *
					coalesce((SELECT sum(e.amount) FROM entries e
						WHERE e.account_id = a.id AND e.kind = 'transaction' AND e.parent_id IS NULL
							AND (v.date IS NULL OR e.date > v.date)), 0) AS balance
			FROM accounts a
			LEFT JOIN LATERAL (
				SELECT date, amount FROM entries
				WHERE account_id = a.id AND kind = 'valuation' ORDER BY date DESC, created_at DESC LIMIT 1
			) v ON true
			WHERE a.id IN (?)
		) x
		WHERE a.id = x.id AND a.source IS NULL`, bun.In(accountIDs)).Exec(ctx)
	return err
}
