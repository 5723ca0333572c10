// Package ynab reads a YNAB budget, the JSON of YNAB's API (GET /v1/budgets/{id}, wrapped as
// {"data":{"budget":…}}, {"data":{"plan":…}} or saved bare), into a movein.Budget.
//
// YNAB's amounts are milliunits (1000 is 1.00). Its internal categories are mapped: "Inflow:
// Ready to Assign" (formerly "To be Budgeted") is the income category, in an income group of
// its own; the "Credit Card Payments" group's categories move money to the cards. A
// sub-transaction that is a transfer names no transaction on the other side, so the two are
// paired by date, amount and memo. Every positive balance carries into the next month, and an
// overspend is taken from the next month's money to assign: Tally's "surplus" rollover.
package ynab

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// Names YNAB gives its own groups, categories and payees.
const (
	internalGroup      = "Internal Master Category"
	cardGroup          = "Credit Card Payments"
	startingPayee      = "Starting Balance"
	readyToAssign      = "Inflow: Ready to Assign"
	toBeBudgeted       = "To be Budgeted"
	builtinIncomeGroup = "Income"
)

// Read reads a budget from r, whose size the caller bounds. Its error is a *movein.Error
// naming what in the file is at fault.
func Read(r io.Reader) (*movein.Budget, error) {
	s := &stream{dec: json.NewDecoder(r), counts: map[string]int{}}
	if err := s.read(); err != nil {
		return nil, err
	}
	a := &assembler{raw: &s.raw, b: &movein.Budget{Source: movein.SourceYNAB, Name: strings.TrimSpace(s.raw.name),
		Currency: currency(s.raw.currency.IsoCode), Style: movein.Envelope}}
	for _, step := range []func() error{a.accounts, a.payees, a.categories, a.transactions, a.months, a.schedules} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	a.b.Settle()
	return a.b, nil
}

// assembler turns what the stream read into the budget, resolving ids.
type assembler struct {
	raw *raw
	b   *movein.Budget

	accountByID     map[string]*movein.Account
	deletedAccounts map[string]bool
	payeeByID       map[string]*movein.Payee
	startingPayees  map[string]bool
	categoryByID    map[string]*movein.Category
}

// amount is milliunits in the ledger's sign (YNAB's money in is positive); entry is the
// same as a transaction's or split part's Amount, and false for the one int64 whose negation
// is none.
func amount(milli int64) decimal.Decimal { return decimal.New(milli, -3).Neg() }

func entry(milli int64) (movein.Amount, bool) {
	return movein.Amount{Units: -milli, Exp: -3}, milli != math.MinInt64
}

// currency is an ISO 4217 code, or "" for anything else.
func currency(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 3 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return ""
	}
	return s
}

// date reads YYYY-MM-DD.
func date(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// kinds are Tally's kinds of YNAB's account types.
var kinds = map[string][2]string{
	"checking": {"Depository", "checking"}, "savings": {"Depository", "savings"}, "cash": {"Depository", ""},
	"creditCard": {"CreditCard", "credit_card"}, "lineOfCredit": {"CreditCard", "credit_card"},
	"otherAsset": {"OtherAsset", ""}, "otherLiability": {"OtherLiability", ""},
	"mortgage": {"Loan", "mortgage"}, "autoLoan": {"Loan", "auto"}, "studentLoan": {"Loan", "student"},
	"personalLoan": {"Loan", "other"}, "medicalDebt": {"Loan", "other"}, "otherDebt": {"Loan", "other"},
	"investmentAccount": {"Investment", ""},
}

func (a *assembler) accounts() error {
	a.accountByID, a.deletedAccounts = map[string]*movein.Account{}, map[string]bool{}
	for _, r := range a.raw.accounts {
		if r.Deleted {
			a.deletedAccounts[r.ID] = true
			continue
		}
		kind := kinds[r.Type]
		a.b.Accounts = append(a.b.Accounts, movein.Account{ID: r.ID, Name: strings.TrimSpace(r.Name), OnBudget: r.OnBudget,
			Closed: r.Closed, Currency: a.b.Currency, Kind: kind[0], Subtype: kind[1], Notes: r.Note})
	}
	for i := range a.b.Accounts {
		a.accountByID[a.b.Accounts[i].ID] = &a.b.Accounts[i]
	}
	return nil
}

func (a *assembler) payees() error {
	a.payeeByID, a.startingPayees = map[string]*movein.Payee{}, map[string]bool{}
	for _, r := range a.raw.payees {
		p := movein.Payee{ID: r.ID, Name: strings.TrimSpace(r.Name), TransferAccount: r.TransferAccount}
		switch {
		case r.Deleted:
			continue
		case p.TransferAccount != "":
			acct, ok := a.accountByID[p.TransferAccount]
			if !ok {
				continue // the transfer payee of a deleted account
			}
			p.Name = acct.Name // YNAB writes "Transfer : Savings"; the payee is the account
		case p.Name == startingPayee:
			a.startingPayees[p.ID] = true
		case p.Name == "":
			a.b.Note(movein.NotKept, movein.EntityPayee, p.ID, "", "it has no name; its transactions are kept without a payee")
			continue
		}
		a.b.Payees = append(a.b.Payees, p)
	}
	for i := range a.b.Payees {
		a.payeeByID[a.b.Payees[i].ID] = &a.b.Payees[i]
	}
	return nil
}

// payee is a payee's id when the budget keeps it, else "".
func (a *assembler) payee(id string) string {
	if a.payeeByID[id] != nil {
		return id
	}
	return ""
}

// category is a category's id when the budget keeps it, else "".
func (a *assembler) category(id string) string {
	if a.categoryByID[id] != nil {
		return id
	}
	return ""
}
