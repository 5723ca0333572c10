package main

import (
	"fmt"
	"time"

	"tally/banksync/fakesimplefin"
)

// demoDays is how far back the demo's transactions go: the Bridge's usual history depth.
const demoDays = 90

// seedDemo adds the demo dataset, dated back from now. Rows post at 12:00 UTC, as on the
// Bridge, and their ids are made of the account, the date and the kind, so that a restart on
// the same day shows the client the same transactions.
func seedDemo(s *fakesimplefin.Server, now time.Time) {
	s.AddConnection(fakesimplefin.Connection{
		ID: "CON-A", Name: "First Example Bank", OrgID: "ORG-firstexample",
		OrgName: "First Example Bank", OrgURL: "https://www.firstexample.com", Domain: "firstexample.com",
	})
	s.AddConnection(fakesimplefin.Connection{
		ID: "CON-B", Name: "Example Brokerage", OrgID: "ORG-examplebrokerage",
		OrgName: "Example Brokerage", OrgURL: "https://www.examplebrokerage.com", Domain: "examplebrokerage.com",
	})

	checking := ledger{account: "1001", balance: 320000}
	card := ledger{account: "2002", balance: -40000}
	brokerage := ledger{account: "3003"}
	merchants := []struct{ desc, payee string }{
		{"AMZN Mktp US*2K4", "Amazon"}, {"SHELL OIL 5744", "Shell"}, {"TARGET 00012345", "Target"},
		{"TST* LUIGIS TRATTORIA", "Luigi's Trattoria"}, {"NETFLIX.COM", "Netflix"},
	}
	// Posted rows end yesterday: a row posted at today's noon would lie past "now" until noon.
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	for i := demoDays; i >= 1; i-- {
		day := today.AddDate(0, 0, -i)
		switch {
		case day.Day() == 1:
			checking.post(day, day, "rent", -150000, "ONLINE TRANSFER TO LANDLORD LLC", "Landlord LLC", "")
		case day.Day() == 8:
			checking.post(day, day, "utility", -(8000 + int64(i*311)%4000), "PG&E WEB ONLINE", "PG&E", "")
		case day.Day() == 15:
			brokerage.post(day, day, "dividend", 1234, "DIVIDEND RECEIVED VTI", "Dividend", "Dividend Payment - VTI")
		case day.Day() == 20:
			checking.post(day, day, "card-payment", -50000, "PAYMENT TO REWARDS VISA", "First Example Card Services", "")
			card.post(day, day, "payment", 50000, "PAYMENT THANK YOU", "Payment", "")
		}
		if i%14 == 3 {
			checking.post(day, day, "payroll", 210000, "ACME CORP PAYROLL", "Acme Corp", "DIRECT DEP")
		}
		if i%4 == 1 {
			checking.post(day, day.Add(-20*time.Hour), "groceries", -(3500 + int64(i*737)%6000), "WHOLEFDS #10234", "Whole Foods", "")
		}
		if i%2 == 0 {
			checking.post(day, day.Add(-4*time.Hour), "coffee", -648, "BLUE BOTTLE COFFEE", "Blue Bottle Coffee", "")
		}
		if i%3 == 0 {
			m := merchants[i/3%len(merchants)]
			card.post(day, day.Add(-16*time.Hour), "purchase", -(1500 + int64(i*953)%9000), m.desc, m.payee, "")
		}
	}
	checking.hold(now.Add(-2*time.Hour), "coffee", -648, "BLUE BOTTLE COFFEE", "Blue Bottle Coffee")
	checking.hold(now.Add(-20*time.Hour), "groceries", -6412, "WHOLEFDS #10234", "Whole Foods")
	card.hold(now.Add(-18*time.Hour), "dinner", -4200, "TST* LUIGIS TRATTORIA", "Luigi's Trattoria")

	asOf := now.Truncate(time.Hour)
	s.AddAccount(fakesimplefin.Account{
		ID: "ACT-1001", ConnID: "CON-A", Name: "Everyday Checking", Currency: "USD",
		Balance: money(checking.balance), AvailableBalance: money(checking.balance + checking.held),
		BalanceDate: asOf, Transactions: checking.txs,
	})
	s.AddAccount(fakesimplefin.Account{
		ID: "ACT-2002", ConnID: "CON-A", Name: "Rewards Visa", Currency: "USD",
		Balance: money(card.balance), AvailableBalance: money(500000 + card.balance + card.held), // a 5,000.00 limit
		BalanceDate: asOf, Transactions: card.txs,
	})
	s.AddAccount(fakesimplefin.Account{
		ID: "ACT-3003", ConnID: "CON-B", Name: "Individual Brokerage", Currency: "USD",
		Balance: "15234.50", AvailableBalance: "1234.50", BalanceDate: asOf, Transactions: brokerage.txs,
		Holdings: []fakesimplefin.Holding{
			{ID: "HOL-3003-01", Created: today.AddDate(0, 0, -demoDays), Currency: "USD", Symbol: "VTI",
				Description: "VANGUARD TOTAL STOCK MARKET ETF", Shares: "40", PurchasePrice: "240.00",
				CostBasis: "9600.00", MarketValue: "11800.00"},
			{ID: "HOL-3003-02", Created: today.AddDate(0, 0, -demoDays), Symbol: "VMFXX",
				Description: "VANGUARD FEDERAL MONEY MARKET FUND", Shares: "2200", PurchasePrice: "1.00",
				CostBasis: "2200.00", MarketValue: "2200.00"},
		},
	})
}

// ledger collects an account's demo transactions and keeps its balance in cents, so that the
// balances agree with the transactions.
type ledger struct {
	account       string
	txs           []fakesimplefin.Transaction
	balance, held int64 // posted, and pending, in cents
}

func (l *ledger) post(posted, transacted time.Time, kind string, cents int64, desc, payee, memo string) {
	l.txs = append(l.txs, fakesimplefin.Transaction{
		ID: l.id(posted, kind), Posted: posted, TransactedAt: transacted, Amount: money(cents),
		Description: desc, Payee: payee, Memo: memo,
	})
	l.balance += cents
}

func (l *ledger) hold(transacted time.Time, kind string, cents int64, desc, payee string) {
	l.txs = append(l.txs, fakesimplefin.Transaction{
		ID: l.id(transacted, kind+"-pending"), TransactedAt: transacted, Amount: money(cents),
		Description: desc, Payee: payee, Pending: true,
	})
	l.held += cents
}

func (l *ledger) id(t time.Time, kind string) string {
	return fmt.Sprintf("TRN-%s-%s-%s", l.account, t.UTC().Format("20060102"), kind)
}

// money formats cents as the protocol's numeric string: -1500.00.
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}
