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
	Name      string // the accountable type, as stored: "Depository"
	Label     string // as a person reads it: "Cash and bank"
	Liability bool   // what the family owes rather than owns
	// Valued accounts change value without transactions (a market, an appraisal): each
	// valuation is their value from its day on. Every other account's history is walked from
	// its one anchor, and the balances its bank states are checkpoints (balancePoints).
	Valued   bool
	Subtypes []string // the subtypes offered for it, if any
}

// AccountTypes lists the account types in the order pages show them.
var AccountTypes = []AccountType{
	{Name: "Depository", Label: "Cash and bank", Subtypes: []string{"checking", "savings", "hsa", "cd", "money_market"}},
	{Name: "Investment", Label: "Investments", Valued: true, Subtypes: []string{"brokerage", "pension", "retirement", "401k", "roth_401k", "403b", "tsp", "529_plan", "hsa", "mutual_fund", "ira", "roth_ira", "angel"}},
	{Name: "Crypto", Label: "Crypto", Valued: true},
	{Name: "Property", Label: "Property", Valued: true, Subtypes: []string{"single_family_home", "multi_family_home", "condominium", "townhouse", "investment_property", "second_home"}},
	{Name: "Vehicle", Label: "Vehicles", Valued: true},
	{Name: "OtherAsset", Label: "Other assets", Valued: true},
	{Name: "CreditCard", Label: "Credit cards", Liability: true, Subtypes: []string{"credit_card"}},
	{Name: "Loan", Label: "Loans", Liability: true, Subtypes: []string{"mortgage", "student", "auto", "other"}},
	{Name: "OtherLiability", Label: "Other liabilities", Liability: true},
}

// subtypeLabels names the subtypes of AccountTypes as a person reads them.
var subtypeLabels = map[string]string{
	"checking": "Checking", "savings": "Savings", "hsa": "Health savings account (HSA)", "cd": "Certificate of deposit (CD)",
	"money_market": "Money market", "brokerage": "Brokerage", "pension": "Pension", "retirement": "Retirement",
	"401k": "401(k)", "roth_401k": "Roth 401(k)", "403b": "403(b)", "tsp": "Thrift Savings Plan (TSP)", "529_plan": "529 plan",
	"mutual_fund": "Mutual fund", "ira": "IRA", "roth_ira": "Roth IRA", "angel": "Angel investment",
	"single_family_home": "Single-family home", "multi_family_home": "Multi-family home", "condominium": "Condominium",
	"townhouse": "Townhouse", "investment_property": "Investment property", "second_home": "Second home",
	"credit_card": "Credit card", "mortgage": "Mortgage", "student": "Student loan", "auto": "Car loan", "other": "Other loan",
}

// SubtypeLabel is subtype as a person reads it ("401k" is "401(k)"); an unknown one is itself.
func SubtypeLabel(subtype string) string {
	if l, ok := subtypeLabels[subtype]; ok {
		return l
	}
	return subtype
}

// ValuedTypes lists the names of the Valued account types.
func ValuedTypes() []string {
	var names []string
	for _, t := range AccountTypes {
		if t.Valued {
			names = append(names, t.Name)
		}
	}
	return names
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
	// OwnerID is the member who owns the account; Private keeps it to them and to the
	// members it is shared with (account_shares). See Viewer.
	OwnerID   *uuid.UUID `bun:"owner_id,type:uuid"`
	Private   bool       `bun:"private"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time  `bun:"updated_at,nullzero,default:now()"`
	// UpdatedBy and UpdatedVia are who made the last change (Actor).
	UpdatedBy  *uuid.UUID `bun:"updated_by,type:uuid"`
	UpdatedVia *string    `bun:"updated_via"`
}

// LastChange is who made the account's last change; nobody known for one an import or a
// bank connection made.
func (a *Account) LastChange() Actor { return RecordedActor(a.UpdatedBy, a.UpdatedVia) }

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
	// Balance is what the account holds (or owes) when it is created, its anchor; nil when
	// not known, and the history then starts from zero at the first entry. Editing the
	// balance later is ChangeAccount's Balance.
	Balance *decimal.Decimal
	// BalanceDate is the day Balance is known for; today (UTC) when zero. A balance of today
	// is the balance at this moment: the day's entries added later move it.
	BalanceDate time.Time
	// OwnerID is the member who creates the account, its owner; nil for one an import or a
	// bank sync makes, which is the family's. Either way a new account is shared.
	OwnerID *uuid.UUID
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
	CheckText(&v, "name", "Name", in.Name, MaxName)
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

// CreateAccount creates a manual account in the family. A known balance becomes the account's
// anchor, dated BalanceDate: its history is walked from it, backwards through the transactions
// dated before it and forwards through the rest.
func CreateAccount(ctx context.Context, db bun.IDB, familyID uuid.UUID, in AccountInput) (*Account, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	balance := decimal.Zero
	if in.Balance != nil {
		balance = *in.Balance
	}
	a := &Account{
		ID: newID(), FamilyID: familyID, Name: in.Name, AccountableType: in.AccountableType,
		Subtype: in.Subtype, Currency: in.Currency, Balance: balance, CashBalance: balance,
		Status: AccountActive, LockedAttributes: map[string]any{}, OwnerID: in.OwnerID,
	}
	actor := ActorOf(ctx)
	a.UpdatedBy, a.UpdatedVia = actor.UserID, actor.ViaOrNil()
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(a).Exec(ctx); err != nil {
			return err
		}
		if in.Balance == nil {
			return nil
		}
		date := in.BalanceDate
		if date.IsZero() {
			date = time.Now().UTC()
		}
		_, err := insertValuation(ctx, tx, a, Valuation{Date: date, Amount: balance, Name: OpeningBalanceName,
			Kind: ValuationOpeningAnchor, AsOf: true})
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// SetAccountStatus closes (disabled) or reopens (active) a family account the viewer sees.
func SetAccountStatus(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID, status string) error {
	actor := ActorOf(ctx)
	q := db.NewUpdate().Model((*Account)(nil)).Set("status = ?", status).Set("updated_at = now()").
		Set(SetActorSQL, actor.UserID, actor.ViaOrNil()).
		Where("a.id = ? AND a.family_id = ?", id, v.FamilyID)
	v.VisibleAccounts(q.QueryBuilder(), "a.id")
	res, err := q.Exec(ctx)
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
	Name *string
	// AccountableType changes the account's type (the account form offers it; the API does not).
	AccountableType *string
	Subtype         *string
	Status          *string // active or disabled (closed)
	// Balance is what the account holds (or owes) now, on Today: its new anchor (SetBalance).
	Balance *decimal.Decimal
	Today   time.Time
	// Private and SharedWith change who sees the account (Sharing), as By, its owner
	// (MayShare), says. SharedWith replaces the members it is shared with; left nil, a
	// private account keeps them.
	Private    *bool
	SharedWith *[]uuid.UUID
	By         *User
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

// ChangeAccount applies the changes to the family's account, one the viewer sees, with the
// account form's rules, reporting every problem at once.
func ChangeAccount(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID, ch AccountChanges) (*Account, error) {
	a := new(Account)
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := lockVisibleAccount(ctx, tx, v, id, a); err != nil {
			return err
		}
		if ch.Private != nil || ch.SharedWith != nil {
			if err := changeSharing(ctx, tx, ch, a); err != nil {
				return err
			}
		}
		in := AccountInput{Name: a.Name, AccountableType: a.AccountableType, Subtype: a.Subtype}
		if ch.Name != nil {
			in.Name = *ch.Name
		}
		if ch.AccountableType != nil {
			in.AccountableType = *ch.AccountableType
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
		if ch.Balance != nil && !ch.Balance.Equal(a.Balance) {
			if _, err := setBalance(ctx, tx, a, *ch.Balance, ch.Today); err != nil {
				return err
			}
		}
		actor := ActorOf(ctx)
		return tx.NewUpdate().Model(a).Set("name = ?", in.Name).Set("accountable_type = ?", in.AccountableType).Set("subtype = ?", in.Subtype).Set("status = ?", status).
			Set("updated_at = now()").Set(SetActorSQL, actor.UserID, actor.ViaOrNil()).WherePK().Returning("*").Scan(ctx)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// changeSharing applies the changes' Private and SharedWith to a, locked in tx: what they
// leave out stays as it is.
func changeSharing(ctx context.Context, tx bun.Tx, ch AccountChanges, a *Account) error {
	s := Sharing{Private: a.Private}
	if ch.Private != nil {
		s.Private = *ch.Private
	}
	switch {
	case ch.SharedWith != nil:
		s.SharedWith = *ch.SharedWith
	case s.Private:
		shares, err := AccountShares(ctx, tx, []uuid.UUID{a.ID})
		if err != nil {
			return err
		}
		s.SharedWith = shares[a.ID]
	}
	return share(ctx, tx, ch.By, a, s)
}

// AccountDeletion is what deleting an account removes with it.
type AccountDeletion struct {
	Transactions int // its transactions (split parts not counted)
	Entries      int // every entry: transactions, their split parts, trades and valuations
}

// DeleteAccount deletes, for the user by, their family's account with everything that hangs
// on it: entries (and so trades, valuations, split parts and transfers), holdings, balances,
// identifiers and import profiles. Only an admin may (MayDeleteAccounts; anyone else is
// Forbidden), and only one the viewer v sees. confirm must be the account's exact name; otherwise the deletion is refused on
// confirm, saying what would go, which is the one confirmation rule of the API and the page.
// An account that an import is publishing into or reverting is refused (Conflict). The other
// sides of its transfers count as spending or income again, and import mappings to it are
// cleared, so a pending import asks for an account again.
func DeleteAccount(ctx context.Context, db bun.IDB, by *User, v Viewer, id uuid.UUID, confirm string) (*AccountDeletion, error) {
	if !by.MayDeleteAccounts() {
		return nil, apperr.New(apperr.Forbidden, "Only an admin of the family can delete its accounts: close the account instead, which keeps its history")
	}
	familyID := by.FamilyID
	var del AccountDeletion
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a := new(Account)
		// Locked: a publish writing entries into it waits (their foreign key), or it waits for one.
		if err := lockVisibleAccount(ctx, tx, v, id, a); err != nil {
			return err
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

// AccountByID returns the family's account with id, if the viewer may see it: one they may
// not is not found, as another family's is.
func AccountByID(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) (*Account, error) {
	a := new(Account)
	q := db.NewSelect().Model(a).Where("a.id = ? AND a.family_id = ?", id, v.FamilyID)
	v.VisibleAccounts(q.QueryBuilder(), "a.id")
	return a, notFound(q.Scan(ctx), "account")
}

// AccountsForFamily lists the family's accounts the viewer may see, by type and name. Closed
// accounts come last.
func AccountsForFamily(ctx context.Context, db bun.IDB, v Viewer) ([]Account, error) {
	var accts []Account
	q := db.NewSelect().Model(&accts).Where("a.family_id = ?", v.FamilyID).
		OrderExpr("a.status = 'disabled', a.accountable_type, lower(a.name), a.id")
	v.VisibleAccounts(q.QueryBuilder(), "a.id")
	return accts, q.Scan(ctx)
}

// Valuation kinds (valuations.kind). The two anchor kinds are Sure's names for a balance an
// account's history is walked from; Tally walks from the one written last, whichever it is.
const (
	ValuationOpeningAnchor = "opening_anchor"
	ValuationCurrentAnchor = "current_anchor"
	// ValuationValue is a value from its day on, on a Valued account (Sure's
	// "reconciliation"); on any other account it is only compared, as a checkpoint is.
	ValuationValue      = "reconciliation"
	ValuationCheckpoint = "checkpoint" // a balance a bank stated: compared, never a reset
)

// OpeningBalanceName is the name of the balance an account is created with, as stored; the
// pages say it in their reader's language.
const OpeningBalanceName = "Balance when the account was created"

// Valuation is a balance of an account to write: an anchor, a value or a checkpoint.
type Valuation struct {
	Date   time.Time
	Amount decimal.Decimal // in the account's terms: what an asset holds, what a liability owes
	Name   string
	Kind   string
	// AsOf makes it the balance at this moment rather than at its day's end: the day's
	// entries added later move it.
	AsOf   bool
	Source *string // who stated it: a format, a provider, reconciliation; nil when typed
}

func insertValuation(ctx context.Context, db bun.IDB, a *Account, v Valuation) (*Entry, error) {
	actor := ActorOf(ctx) // a reconciliation's "trust the bank", a balance typed: the member's
	e := &Entry{
		ID: newID(), FamilyID: a.FamilyID, AccountID: a.ID, Kind: EntryValuation, Date: v.Date,
		Amount: v.Amount, Currency: a.Currency, Name: v.Name, TransactionKind: KindStandard, Source: v.Source,
		UpdatedBy: actor.UserID, UpdatedVia: actor.ViaOrNil(),
	}
	if _, err := db.NewInsert().Model(e).Exec(ctx); err != nil {
		return nil, err
	}
	_, err := db.NewRaw("INSERT INTO valuations (entry_id, kind, as_of) VALUES (?, ?, CASE WHEN ? THEN now() END)", e.ID, v.Kind, v.AsOf).Exec(ctx)
	return e, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RecomputeBalances sets the balance of the given manual accounts from their ledger: the walk
// of balancePoints taken past the last entry, so every transaction counts, future-dated ones
// too. Accounts fed by a provider (source set) keep the balance the provider reports.
func RecomputeBalances(ctx context.Context, db bun.IDB, accountIDs []uuid.UUID) error {
	if len(accountIDs) == 0 {
		return nil
	}
	var accts []Account
	if err := db.NewSelect().Model(&accts).Where("id IN (?) AND source IS NULL", bun.In(accountIDs)).Scan(ctx); err != nil {
		return err
	}
	if len(accts) == 0 {
		return nil
	}
	_, err := db.NewRaw(balancePoints+`
		UPDATE accounts t SET balance = x.balance, cash_balance = x.balance, updated_at = now()
		FROM (
			SELECT a.account, coalesce(
				(SELECT off FROM offsets o WHERE o.account = a.account ORDER BY o.date DESC LIMIT 1), 0)
				+ a.sign * `+flowSQL("a.account", "'-infinity'", "'infinity'", "false")+` AS balance
			FROM accts a
		) x
		WHERE t.id = x.account AND (t.balance, t.cash_balance) IS DISTINCT FROM (x.balance, x.balance)`,
		newBalanceArgs(accts, time.Time{}, time.Time{})).Exec(ctx)
	return err
}
