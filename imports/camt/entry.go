package camt

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

// readEntry reads an Ntry into one entry, or one per transaction of a batch whose details add
// up to it. info is true for an entry of status INFO, which is left out.
func readEntry(n *bankfile.Node, intraday bool) (entries []bankfile.Entry, info bool, err error) {
	status := n.Value("Sts", "Cd")
	if status == "" {
		status = n.Value("Sts")
	}
	if strings.EqualFold(status, "INFO") {
		return nil, true, nil
	}
	amt := n.Child("Amt")
	if amt == nil {
		return nil, false, bankfile.Errorf(n.Line, "Ntry/Amt", "missing")
	}
	e := bankfile.Entry{Line: n.Line, Pending: intraday || strings.EqualFold(status, "PDNG"), Reversal: n.Value("RvslInd") == "true"}
	if e.Amount, err = parseAmount(amt, "Ntry/Amt"); err != nil {
		return nil, false, err
	}
	if e.Amount, err = signed(n, e.Amount, "Ntry/CdtDbtInd"); err != nil {
		return nil, false, err
	}
	e.Currency = strings.ToUpper(amt.Attr("Ccy"))
	if v := n.Child("ValDt"); v != nil {
		d, err := dateOf(v, "Ntry/ValDt")
		if err != nil {
			return nil, false, err
		}
		e.Value = &d
	}
	switch b := n.Child("BookgDt"); {
	case b != nil:
		if e.Booked, err = dateOf(b, "Ntry/BookgDt"); err != nil {
			return nil, false, err
		}
	case e.Value != nil:
		e.Booked = *e.Value
	default:
		return nil, false, bankfile.Errorf(n.Line, "Ntry/BookgDt", "the entry has neither a booking date nor a value date")
	}
	e.Code = n.Value("BkTxCd", "Prtry", "Cd")
	if e.Code == "" {
		if d := n.Path("BkTxCd", "Domn"); d != nil {
			e.Code = strings.Trim(d.Value("Cd")+"/"+d.Value("Fmly", "Cd")+"/"+d.Value("Fmly", "SubFmlyCd"), "/")
		}
	}
	switch {
	case n.Value("AcctSvcrRef") != "":
		e.ID, e.IDSource = n.Value("AcctSvcrRef"), "AcctSvcrRef"
	case n.Value("NtryRef") != "":
		e.ID, e.IDSource = n.Value("NtryRef"), "NtryRef"
	}
	var txs []*bankfile.Node
	for _, d := range n.All("NtryDtls") {
		txs = append(txs, d.All("TxDtls")...)
	}
	addtl := n.Value("AddtlNtryInf")
	if len(txs) > 1 {
		if split, ok, err := splitBatch(e, txs); err != nil {
			return nil, false, err
		} else if ok {
			return split, false, nil
		}
	}
	if len(txs) == 1 {
		if e.ID == "" {
			if id := txs[0].Value("Refs", "AcctSvcrRef"); id != "" {
				e.ID, e.IDSource = id, "TxDtls/AcctSvcrRef"
			} else if id := txs[0].Value("Refs", "TxId"); id != "" {
				e.ID, e.IDSource = id, "TxId"
			}
		}
		if err := details(&e, txs[0], n); err != nil {
			return nil, false, err
		}
	}
	switch {
	case e.Text == "" && addtl != "":
		e.Text = addtl
	case addtl != "" && addtl != e.Text:
		e.Details = append(e.Details, bankfile.Detail{Label: "additional info", Value: addtl})
	}
	if len(txs) > 1 {
		e.Details = append(e.Details, bankfile.Detail{Label: "batch", Value: fmt.Sprintf("%d transactions", len(txs))})
		if e.Text == "" {
			e.Text = fmt.Sprintf("Batch of %d transactions", len(txs))
		}
	}
	return []bankfile.Entry{e}, false, nil
}

// splitBatch makes one entry per TxDtls when each has an amount and they add up to the
// entry's; ok is false when they don't, and the entry stays whole.
func splitBatch(e bankfile.Entry, txs []*bankfile.Node) (out []bankfile.Entry, ok bool, err error) {
	total := decimal.Zero
	for i, tx := range txs {
		amt := tx.Child("Amt")
		if amt == nil {
			amt = tx.Path("AmtDtls", "TxAmt", "Amt")
		}
		if amt == nil {
			return nil, false, nil
		}
		v, err := parseAmount(amt, "TxDtls/Amt")
		if err != nil {
			return nil, false, err
		}
		if tx.Child("CdtDbtInd") != nil {
			if v, err = signed(tx, v, "TxDtls/CdtDbtInd"); err != nil {
				return nil, false, err
			}
		} else if e.Amount.IsNegative() {
			v = v.Neg()
		}
		part := e
		part.Amount, part.Line, part.Details = v, tx.Line, nil
		if c := strings.ToUpper(amt.Attr("Ccy")); c != "" {
			part.Currency = c
		}
		switch id := tx.Value("Refs", "AcctSvcrRef"); {
		case id != "":
			part.ID, part.IDSource = id, "TxDtls/AcctSvcrRef"
		case e.ID != "":
			part.ID, part.IDSource = fmt.Sprintf("%s/%d", e.ID, i+1), e.IDSource+"/n"
		}
		if err := details(&part, tx, nil); err != nil {
			return nil, false, err
		}
		total = total.Add(v)
		out = append(out, part)
	}
	if !total.Equal(e.Amount) {
		return nil, false, nil
	}
	return out, true, nil
}

// details fills an entry from a TxDtls: counterparty, text, references and the facts worth
// keeping. ntry, when given, is the entry around it (for the original amount).
func details(e *bankfile.Entry, tx, ntry *bankfile.Node) error {
	parties := tx.Child("RltdPties")
	first, second := "Dbtr", "Cdtr"
	if e.Amount.IsNegative() {
		first, second = "Cdtr", "Dbtr"
	}
	for _, p := range []string{first, "Ultmt" + first, second, "Ultmt" + second} {
		if name := partyName(parties.Child(p)); name != "" {
			e.Counterparty = name
			break
		}
	}
	for _, a := range []string{first + "Acct", second + "Acct"} {
		if acct := parties.Child(a); acct != nil {
			if e.CounterpartyAccount = acct.Value("Id", "IBAN"); e.CounterpartyAccount == "" {
				e.CounterpartyAccount = acct.Value("Id", "Othr", "Id")
			}
			break
		}
	}
	rmt := tx.Child("RmtInf")
	var ustrd, strd []string
	for _, u := range rmt.All("Ustrd") {
		if u.Text != "" {
			ustrd = append(ustrd, u.Text)
		}
	}
	for _, s := range rmt.All("Strd") {
		if r := s.Value("CdtrRefInf", "Ref"); r != "" {
			strd = append(strd, r)
		}
		for _, a := range s.All("AddtlRmtInf") {
			if a.Text != "" {
				ustrd = append(ustrd, a.Text)
			}
		}
	}
	switch {
	case len(ustrd) > 0:
		e.Text = strings.Join(ustrd, " ")
		if len(strd) > 0 {
			e.Details = append(e.Details, bankfile.Detail{Label: "structured reference", Value: strings.Join(strd, " ")})
		}
	case len(strd) > 0:
		e.Text = strings.Join(strd, " ")
	default:
		e.Text = tx.Value("AddtlTxInf")
	}
	refs := tx.Child("Refs")
	if e2e := refs.Value("EndToEndId"); e2e != "" {
		e.Reference = e2e
		e.Details = append(e.Details, bankfile.Detail{Label: "end-to-end id", Value: e2e})
	}
	mandate := refs.Value("MndtId")
	if mandate == "" {
		mandate = tx.Value("RltdPties", "MndtRltdInf", "MndtId")
	}
	if mandate != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "mandate", Value: mandate})
	}
	for _, p := range []string{"Cdtr", "UltmtCdtr"} {
		if id := tx.Value("RltdPties", p, "Id", "PrvtId", "Othr", "Id"); id != "" {
			e.Details = append(e.Details, bankfile.Detail{Label: "creditor id", Value: id})
			break
		}
		if id := tx.Value("RltdPties", p, "Pty", "Id", "PrvtId", "Othr", "Id"); id != "" {
			e.Details = append(e.Details, bankfile.Detail{Label: "creditor id", Value: id})
			break
		}
	}
	amts := tx.Child("AmtDtls")
	if amts == nil && ntry != nil {
		amts = ntry.Child("AmtDtls")
	}
	if instd := amts.Path("InstdAmt", "Amt"); instd != nil && instd.Attr("Ccy") != "" && !strings.EqualFold(instd.Attr("Ccy"), e.Currency) {
		e.Details = append(e.Details, bankfile.Detail{Label: "original amount", Value: instd.Text + " " + strings.ToUpper(instd.Attr("Ccy"))})
	}
	return nil
}

// partyName is a party's name: Nm in older versions, Pty/Nm in newer ones.
func partyName(p *bankfile.Node) string {
	if n := p.Value("Nm"); n != "" {
		return n
	}
	return p.Value("Pty", "Nm")
}

var amountRE = regexp.MustCompile(`^\d{1,18}(\.\d{0,5})?$`)

// parseAmount reads an unsigned camt amount: digits and a decimal point.
func parseAmount(n *bankfile.Node, element string) (decimal.Decimal, error) {
	if !amountRE.MatchString(n.Text) {
		hint := ""
		if strings.Contains(n.Text, ",") {
			hint = fmt.Sprintf(" (camt amounts use a decimal point: %s)", strings.Replace(n.Text, ",", ".", 1))
		}
		return decimal.Decimal{}, bankfile.Errorf(n.Line, element, "%q is not an amount%s", clip(n.Text), hint)
	}
	return decimal.RequireFromString(n.Text), nil
}

// signed applies the CdtDbtInd beside an amount: DBIT makes it negative.
func signed(n *bankfile.Node, v decimal.Decimal, element string) (decimal.Decimal, error) {
	ind := n.Child("CdtDbtInd")
	if ind == nil {
		return v, bankfile.Errorf(n.Line, element, "missing: the amount has no credit or debit mark")
	}
	switch ind.Text {
	case "CRDT":
		return v, nil
	case "DBIT":
		return v.Neg(), nil
	}
	return v, bankfile.Errorf(ind.Line, element, "%q is neither CRDT nor DBIT", clip(ind.Text))
}

// dateOf reads a date choice: Dt (YYYY-MM-DD) or DtTm (an ISO 8601 date and time). The day is
// taken as written, whatever the time zone.
func dateOf(n *bankfile.Node, element string) (time.Time, error) {
	if d := n.Child("Dt"); d != nil {
		return parseDate(d, element+"/Dt")
	}
	if d := n.Child("DtTm"); d != nil {
		return parseDate(d, element+"/DtTm")
	}
	if n.Text != "" { // FrDtTm and ToDtTm hold the value directly
		return parseDate(n, element)
	}
	return time.Time{}, bankfile.Errorf(n.Line, element, "the date is missing")
}

// optDate reads the child name of n as a date, nil when it is absent.
func optDate(n *bankfile.Node, name, element string) (*time.Time, error) {
	c := n.Child(name)
	if c == nil {
		return nil, nil
	}
	d, err := parseDate(c, element)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

var dateRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})([T ].*|[+-]\d{2}:\d{2}|Z)?$`)

func parseDate(n *bankfile.Node, element string) (time.Time, error) {
	m := dateRE.FindStringSubmatch(n.Text)
	if m == nil {
		return time.Time{}, bankfile.Errorf(n.Line, element, "%q is not a date (YYYY-MM-DD)", clip(n.Text))
	}
	t, err := time.Parse(time.DateOnly, m[1]+"-"+m[2]+"-"+m[3])
	if err != nil {
		return time.Time{}, bankfile.Errorf(n.Line, element, "%q is not a calendar date", clip(n.Text))
	}
	return t, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
