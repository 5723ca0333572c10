package fakesimplefin

import "time"

// SampleNow is the moment of the sample dataset: 2026-03-15T12:00:00Z.
var SampleNow = time.Unix(1773576000, 0).UTC()

// LoadSample adds the reference's sample dataset (sure-simplefin.md §4.6, §4.7): two
// connections (CON-A First Example Bank, CON-B Example Brokerage), three accounts (ACT-1001
// checking, ACT-2002 credit card, ACT-3003 brokerage with two holdings) and ten transactions,
// two of them pending (TRN-1001-05, TRN-2002-03). The reference lists what each filter keeps
// of it, so tests can compare with that; set the clock to SampleNow for its "now".
func (s *Server) LoadSample() {
	at := func(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
	s.AddConnection(Connection{
		ID: "CON-A", Name: "First Example Bank", OrgID: "ORG-firstexample",
		OrgName: "First Example Bank", OrgURL: "https://www.firstexample.com", Domain: "firstexample.com",
	})
	s.AddConnection(Connection{
		ID: "CON-B", Name: "Example Brokerage", OrgID: "ORG-examplebrokerage",
		OrgName: "Example Brokerage", OrgURL: "https://www.examplebrokerage.com", Domain: "examplebrokerage.com",
	})
	s.AddAccount(Account{
		ID: "ACT-1001", ConnID: "CON-A", Name: "Everyday Checking", Currency: "USD",
		Balance: "2450.17", AvailableBalance: "2443.69", BalanceDate: at(1773554400),
		Extra: map[string]any{"account-open-date": 1577880000},
		Transactions: []Transaction{
			{ID: "TRN-1001-01", Posted: at(1772366400), TransactedAt: at(1772366400), Amount: "2100.00",
				Description: "ACME CORP PAYROLL", Payee: "Acme Corp", Memo: "DIRECT DEP"},
			{ID: "TRN-1001-02", Posted: at(1772452800), TransactedAt: at(1772452800), Amount: "-1500.00",
				Description: "ONLINE TRANSFER TO LANDLORD LLC", Payee: "Landlord LLC"},
			{ID: "TRN-1001-03", Posted: at(1773144000), TransactedAt: at(1773057600), Amount: "-87.23",
				Description: "WHOLEFDS #10234", Payee: "Whole Foods"},
			{ID: "TRN-1001-04", Posted: at(1773316800), TransactedAt: at(1773316800), Amount: "-500.00",
				Description: "PAYMENT TO REWARDS VISA", Payee: "First Example Card Services"},
			{ID: "TRN-1001-05", TransactedAt: at(1773505200), Amount: "-6.48",
				Description: "BLUE BOTTLE COFFEE", Payee: "Blue Bottle Coffee", Pending: true},
		},
	})
	s.AddAccount(Account{
		ID: "ACT-2002", ConnID: "CON-A", Name: "Rewards Visa", Currency: "USD",
		Balance: "-1273.51", AvailableBalance: "3726.49", BalanceDate: at(1773554400),
		Transactions: []Transaction{
			{ID: "TRN-2002-01", Posted: at(1772712000), TransactedAt: at(1772625600), Amount: "-63.99",
				Description: "AMZN Mktp US*2K4", Payee: "Amazon"},
			// Posted in the evening, not at noon: dates must come from transacted_at for cards.
			{ID: "TRN-2002-02", Posted: at(1773258300), TransactedAt: at(1773258300), Amount: "-45.10",
				Description: "SHELL OIL 5744", Payee: "Shell"},
			{ID: "TRN-2002-03", TransactedAt: at(1773258300), Amount: "-42.00",
				Description: "TST* LUIGIS TRATTORIA", Payee: "Luigi's Trattoria", Pending: true},
			{ID: "TRN-2002-04", Posted: at(1773403200), TransactedAt: at(1773403200), Amount: "500.00",
				Description: "PAYMENT THANK YOU", Payee: "Payment"},
		},
	})
	s.AddAccount(Account{
		ID: "ACT-3003", ConnID: "CON-B", Name: "Individual Brokerage", Currency: "USD",
		Balance: "15234.50", AvailableBalance: "1234.50", BalanceDate: at(1773554400),
		Transactions: []Transaction{
			{ID: "TRN-3003-01", Posted: at(1772193600), TransactedAt: at(1772193600), Amount: "12.34",
				Description: "DIVIDEND RECEIVED VTI", Payee: "Dividend", Memo: "Dividend Payment - VTI"},
		},
		Holdings: []Holding{
			{ID: "HOL-3003-01", Created: at(1766847780), Currency: "USD", Symbol: "VTI",
				Description: "VANGUARD TOTAL STOCK MARKET ETF", Shares: "40", PurchasePrice: "240.00",
				CostBasis: "9600.00", MarketValue: "11800.00"},
			{ID: "HOL-3003-02", Created: at(1766847780), Currency: "", Symbol: "VMFXX",
				Description: "VANGUARD FEDERAL MONEY MARKET FUND", Shares: "2200", PurchasePrice: "1.00",
				CostBasis: "2200.00", MarketValue: "2200.00"},
		},
	})
}
