package ofx

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

func secID(n *bankfile.Node) bankfile.Security {
	return bankfile.Security{ID: n.Value("UNIQUEID"), IDType: strings.ToUpper(n.Value("UNIQUEIDTYPE"))}
}

// security resolves an aggregate's SECID through the file's SECLIST.
func (r reader) security(n *bankfile.Node) bankfile.Security {
	id := secID(n.Child("SECID"))
	if s, ok := r.securities[id.IDType+":"+id.ID]; ok {
		return s
	}
	return id
}

// investments reads an INVSTMTRS: trades from buys and sells, entries from cash movements
// (income, bank transactions, expenses), holdings from the position list. Transactions Tally
// does not model (transfers of securities, splits, journal moves, option closures) are
// counted in a note.
func (r reader) investments(rs *bankfile.Node, p *pending) (*bankfile.Statement, error) {
	from := rs.Child("INVACCTFROM")
	if from == nil || from.Value("ACCTID") == "" {
		return nil, bankfile.Errorf(rs.Line, "INVSTMTRS/INVACCTFROM", "the statement does not name its account")
	}
	st := &bankfile.Statement{Currency: strings.ToUpper(rs.Value("CURDEF")), Line: rs.Line,
		Account: bankfile.Account{Number: from.Value("ACCTID"), BankID: from.Value("BROKERID"), Kind: bankfile.KindInvestment}}
	st.Account.Currency = st.Currency
	asOf, err := optDate(rs, "DTASOF")
	if err != nil {
		return nil, err
	}
	if list := rs.Child("INVTRANLIST"); list != nil {
		if st.From, err = optDate(list, "DTSTART"); err != nil {
			return nil, err
		}
		if st.To, err = optDate(list, "DTEND"); err != nil {
			return nil, err
		}
	}
	if p.listErr != nil {
		return nil, p.listErr
	}
	if p.posErr != nil {
		return nil, p.posErr
	}
	st.Entries, st.Trades, st.Holdings = p.Entries, p.Trades, p.Holdings
	if bal := rs.Child("INVBAL"); bal != nil && bal.Child("AVAILCASH") != nil && asOf != nil {
		cash, err := amount(bal, "AVAILCASH")
		if err != nil {
			return nil, err
		}
		st.Balances = append(st.Balances, bankfile.Balance{Kind: bankfile.BalanceAvailable, Amount: cash, Date: *asOf, Currency: st.Currency})
	}
	kinds := make([]string, 0, len(p.skipped))
	for k := range p.skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		st.Notes = append(st.Notes, fmt.Sprintf("%d %s transaction(s) were not read: Tally does not record them yet.", p.skipped[k], k))
	}
	return st, nil
}

func (r reader) investmentTransaction(st *bankfile.Statement, t *bankfile.Node, skipped map[string]int) error {
	switch t.Name {
	case "DTSTART", "DTEND":
		return nil
	case "BUYDEBT", "BUYMF", "BUYOPT", "BUYOTHER", "BUYSTOCK":
		return r.trade(st, t, t.Child("INVBUY"), false)
	case "SELLDEBT", "SELLMF", "SELLOPT", "SELLOTHER", "SELLSTOCK":
		return r.trade(st, t, t.Child("INVSELL"), true)
	case "INVBANKTRAN":
		stmt := t.Child("STMTTRN")
		if stmt == nil {
			return bankfile.Errorf(t.Line, "INVBANKTRAN/STMTTRN", "missing")
		}
		e, err := r.entry(stmt, st.Currency)
		if err != nil {
			return err
		}
		st.Entries = append(st.Entries, e)
		return nil
	case "INCOME", "REINVEST", "INVEXPENSE", "MARGININTEREST", "RETOFCAP":
		return r.cashTransaction(st, t)
	}
	skipped[t.Name]++
	return nil
}

// invTran reads the INVTRAN every investment transaction carries: its id, date and memo.
func invTran(t *bankfile.Node) (id string, e bankfile.Entry, err error) {
	it := t.Child("INVTRAN")
	if it == nil {
		return "", e, bankfile.Errorf(t.Line, t.Name+"/INVTRAN", "missing")
	}
	e.Line = t.Line
	if e.Booked, err = date(it, "DTTRADE"); err != nil {
		return "", e, err
	}
	return it.Value("FITID"), e, nil
}

// trade reads a buy or a sell. The quantity is signed by the direction whatever sign the file
// gives UNITS, and so is the cash amount.
func (r reader) trade(st *bankfile.Statement, t, inv *bankfile.Node, sell bool) error {
	if inv == nil {
		return bankfile.Errorf(t.Line, t.Name, "the transaction has no INVBUY or INVSELL")
	}
	id, base, err := invTran(inv)
	if err != nil {
		return err
	}
	units, err := amount(inv, "UNITS")
	if err != nil {
		return err
	}
	price, err := optAmount(inv, "UNITPRICE")
	if err != nil {
		return err
	}
	fees := decimal.Zero
	for _, f := range []string{"COMMISSION", "FEES", "TAXES", "LOAD"} {
		v, err := optAmount(inv, f)
		if err != nil {
			return err
		}
		fees = fees.Add(v)
	}
	total, err := optAmount(inv, "TOTAL")
	if err != nil {
		return err
	}
	units = units.Abs()
	gross := units.Mul(price)
	if total.IsZero() {
		if sell {
			total = gross.Sub(fees)
		} else {
			total = gross.Add(fees)
		}
	}
	tr := bankfile.Trade{ID: id, Date: base.Booked, Security: r.security(inv), Quantity: units, Price: price,
		Amount: total.Abs().Neg(), Fees: fees, Currency: currencyOf(inv, st.Currency), Memo: inv.Path("INVTRAN").Value("MEMO"), Line: t.Line}
	if sell {
		tr.Quantity, tr.Amount = units.Neg(), total.Abs()
	}
	st.Trades = append(st.Trades, tr)
	return nil
}

// cashTransaction reads income (dividends, interest, capital gains), reinvested income,
// expenses, margin interest and returns of capital as entries of the investment account. A
// reinvestment is the income and the purchase it paid for: an entry and a trade.
func (r reader) cashTransaction(st *bankfile.Statement, t *bankfile.Node) error {
	id, e, err := invTran(t)
	if err != nil {
		return err
	}
	total, err := amount(t, "TOTAL")
	if err != nil {
		return err
	}
	sec := r.security(t)
	e.ID, e.IDSource = id, "FITID"
	e.Text = t.Path("INVTRAN").Value("MEMO")
	e.Counterparty = sec.Name
	if e.Counterparty == "" {
		e.Counterparty = sec.Ticker
	}
	e.Code = t.Name
	if it := t.Value("INCOMETYPE"); it != "" {
		e.Code += "/" + strings.ToUpper(it)
	}
	if c := currencyOf(t, st.Currency); c != st.Currency {
		e.Currency = c
	}
	switch t.Name {
	case "INCOME", "RETOFCAP":
		e.Amount = total.Abs()
	case "INVEXPENSE", "MARGININTEREST":
		e.Amount = total.Abs().Neg()
	case "REINVEST":
		units, err := amount(t, "UNITS")
		if err != nil {
			return err
		}
		price, err := optAmount(t, "UNITPRICE")
		if err != nil {
			return err
		}
		e.Amount = total.Abs()
		if e.ID != "" {
			e.ID += "/income"
		}
		st.Trades = append(st.Trades, bankfile.Trade{ID: id, Date: e.Booked, Security: sec, Quantity: units.Abs(), Price: price,
			Amount: total.Abs().Neg(), Currency: currencyOf(t, st.Currency), Memo: "reinvested " + strings.ToLower(t.Value("INCOMETYPE")), Line: t.Line})
	}
	st.Entries = append(st.Entries, e)
	return nil
}

// holding reads an INVPOS. A short position has a negative quantity.
func (r reader) holding(pos *bankfile.Node, asOf *time.Time, currency string) (bankfile.Holding, error) {
	h := bankfile.Holding{Security: r.security(pos), Currency: currencyOf(pos, currency)}
	var err error
	if h.Quantity, err = amount(pos, "UNITS"); err != nil {
		return h, err
	}
	if strings.EqualFold(pos.Value("POSTYPE"), "SHORT") {
		h.Quantity = h.Quantity.Abs().Neg()
	}
	if h.Price, err = optAmount(pos, "UNITPRICE"); err != nil {
		return h, err
	}
	if h.Value, err = optAmount(pos, "MKTVAL"); err != nil {
		return h, err
	}
	d, err := optDate(pos, "DTPRICEASOF")
	if err != nil {
		return h, err
	}
	if d == nil {
		d = asOf
	}
	if d == nil {
		return h, bankfile.Errorf(pos.Line, "INVPOS/DTPRICEASOF", "the position has no date, nor has its statement (DTASOF)")
	}
	h.Date = *d
	return h, nil
}

// currencyOf is a transaction's CURRENCY, else the statement's.
func currencyOf(n *bankfile.Node, def string) string {
	if c := n.Value("CURRENCY", "CURSYM"); c != "" {
		return strings.ToUpper(c)
	}
	return def
}
