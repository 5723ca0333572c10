package ofx

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

// securities reads SECLIST: each security's id, ticker and name, keyed by "TYPE:ID".
func securities(ofx *node) map[string]bankfile.Security {
	out := map[string]bankfile.Security{}
	ofx.each("SECINFO", func(n *node) {
		id := secID(n.child("SECID"))
		id.Ticker = strings.ToUpper(n.text("TICKER"))
		id.Name = n.text("SECNAME")
		out[id.IDType+":"+id.ID] = id
	})
	return out
}

func secID(n *node) bankfile.Security {
	return bankfile.Security{ID: n.text("UNIQUEID"), IDType: strings.ToUpper(n.text("UNIQUEIDTYPE"))}
}

// security resolves an aggregate's SECID through the file's SECLIST.
func (r reader) security(n *node) bankfile.Security {
	id := secID(n.child("SECID"))
	if s, ok := r.securities[id.IDType+":"+id.ID]; ok {
		return s
	}
	return id
}

// investments reads an INVSTMTRS: trades from buys and sells, entries from cash movements
// (income, bank transactions, expenses), holdings from the position list. Transactions Tally
// does not model (transfers of securities, splits, journal moves, option closures) are
// counted in a note.
func (r reader) investments(rs *node) (*bankfile.Statement, error) {
	from := rs.child("INVACCTFROM")
	if from == nil || from.text("ACCTID") == "" {
		return nil, bankfile.Errorf(rs.line, "INVSTMTRS/INVACCTFROM", "the statement does not name its account")
	}
	st := &bankfile.Statement{Currency: strings.ToUpper(rs.text("CURDEF")), Line: rs.line,
		Account: bankfile.Account{Number: from.text("ACCTID"), BankID: from.text("BROKERID"), Kind: bankfile.KindInvestment}}
	st.Account.Currency = st.Currency
	asOf, err := optDate(rs, "DTASOF")
	if err != nil {
		return nil, err
	}
	skipped := map[string]int{}
	if list := rs.child("INVTRANLIST"); list != nil {
		if st.From, err = optDate(list, "DTSTART"); err != nil {
			return nil, err
		}
		if st.To, err = optDate(list, "DTEND"); err != nil {
			return nil, err
		}
		for _, t := range list.children {
			if err := r.investmentTransaction(st, t, skipped); err != nil {
				return nil, err
			}
		}
	}
	if list := rs.child("INVPOSLIST"); list != nil {
		for _, p := range list.children {
			pos := p.child("INVPOS")
			if pos == nil {
				continue
			}
			h, err := r.holding(pos, asOf, st.Currency)
			if err != nil {
				return nil, err
			}
			st.Holdings = append(st.Holdings, h)
		}
	}
	if bal := rs.child("INVBAL"); bal != nil && bal.child("AVAILCASH") != nil && asOf != nil {
		cash, err := amount(bal, "AVAILCASH")
		if err != nil {
			return nil, err
		}
		st.Balances = append(st.Balances, bankfile.Balance{Kind: bankfile.BalanceAvailable, Amount: cash, Date: *asOf, Currency: st.Currency})
	}
	kinds := make([]string, 0, len(skipped))
	for k := range skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		st.Notes = append(st.Notes, fmt.Sprintf("%d %s transaction(s) were not read: Tally does not record them yet.", skipped[k], k))
	}
	return st, nil
}

func (r reader) investmentTransaction(st *bankfile.Statement, t *node, skipped map[string]int) error {
	switch t.name {
	case "DTSTART", "DTEND":
		return nil
	case "BUYDEBT", "BUYMF", "BUYOPT", "BUYOTHER", "BUYSTOCK":
		return r.trade(st, t, t.child("INVBUY"), false)
	case "SELLDEBT", "SELLMF", "SELLOPT", "SELLOTHER", "SELLSTOCK":
		return r.trade(st, t, t.child("INVSELL"), true)
	case "INVBANKTRAN":
		stmt := t.child("STMTTRN")
		if stmt == nil {
			return bankfile.Errorf(t.line, "INVBANKTRAN/STMTTRN", "missing")
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
	skipped[t.name]++
	return nil
}

// invTran reads the INVTRAN every investment transaction carries: its id, date and memo.
func invTran(t *node) (id string, e bankfile.Entry, err error) {
	it := t.child("INVTRAN")
	if it == nil {
		return "", e, bankfile.Errorf(t.line, t.name+"/INVTRAN", "missing")
	}
	e.Line = t.line
	if e.Booked, err = date(it, "DTTRADE"); err != nil {
		return "", e, err
	}
	return it.text("FITID"), e, nil
}

// trade reads a buy or a sell. The quantity is signed by the direction whatever sign the file
// gives UNITS, and so is the cash amount.
func (r reader) trade(st *bankfile.Statement, t, inv *node, sell bool) error {
	if inv == nil {
		return bankfile.Errorf(t.line, t.name, "the transaction has no INVBUY or INVSELL")
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
		Amount: total.Abs().Neg(), Fees: fees, Currency: currencyOf(inv, st.Currency), Memo: inv.path("INVTRAN").text("MEMO"), Line: t.line}
	if sell {
		tr.Quantity, tr.Amount = units.Neg(), total.Abs()
	}
	st.Trades = append(st.Trades, tr)
	return nil
}

// cashTransaction reads income (dividends, interest, capital gains), reinvested income,
// expenses, margin interest and returns of capital as entries of the investment account. A
// reinvestment is the income and the purchase it paid for: an entry and a trade.
func (r reader) cashTransaction(st *bankfile.Statement, t *node) error {
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
	e.Text = t.path("INVTRAN").text("MEMO")
	e.Counterparty = sec.Name
	if e.Counterparty == "" {
		e.Counterparty = sec.Ticker
	}
	e.Code = t.name
	if it := t.text("INCOMETYPE"); it != "" {
		e.Code += "/" + strings.ToUpper(it)
	}
	if c := currencyOf(t, st.Currency); c != st.Currency {
		e.Currency = c
	}
	switch t.name {
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
			Amount: total.Abs().Neg(), Currency: currencyOf(t, st.Currency), Memo: "reinvested " + strings.ToLower(t.text("INCOMETYPE")), Line: t.line})
	}
	st.Entries = append(st.Entries, e)
	return nil
}

// holding reads an INVPOS. A short position has a negative quantity.
func (r reader) holding(pos *node, asOf *time.Time, currency string) (bankfile.Holding, error) {
	h := bankfile.Holding{Security: r.security(pos), Currency: currencyOf(pos, currency)}
	var err error
	if h.Quantity, err = amount(pos, "UNITS"); err != nil {
		return h, err
	}
	if strings.EqualFold(pos.text("POSTYPE"), "SHORT") {
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
		return h, bankfile.Errorf(pos.line, "INVPOS/DTPRICEASOF", "the position has no date, nor has its statement (DTASOF)")
	}
	h.Date = *d
	return h, nil
}

// currencyOf is a transaction's CURRENCY, else the statement's.
func currencyOf(n *node, def string) string {
	if c := n.text("CURRENCY", "CURSYM"); c != "" {
		return strings.ToUpper(c)
	}
	return def
}
