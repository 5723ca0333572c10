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
	status := n.Value("Sts", "Cd") // newer versions
	if status == "" {
		status = n.Value("Sts") // older versions: the code as text
	}
	if strings.EqualFold(status, "INFO") {
		return nil, true, nil
	}
	amt := n.Child("Amt")
	if amt == nil {
		return nil, false, bankfile.Errorf(n.Line, "Ntry/Amt", "the entry has no amount")
	}
	e := bankfile.Entry{
		Line:     n.Line,
		Pending:  intraday || strings.EqualFold(status, "PDNG"),
		Reversal: isTrue(n.Value("RvslInd")),
		Currency: strings.ToUpper(amt.Attr("Ccy")),
	}
	if e.Amount, err = parseAmount(amt, "Ntry/Amt"); err != nil {
		return nil, false, err
	}
	// The mark is the direction of this booking, a reversal's too: a reversed debit is a CRDT.
	if e.Amount, err = signed(n, e.Amount, "Ntry/CdtDbtInd"); err != nil {
		return nil, false, err
	}
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
	e.Code = bankCode(n.Child("BkTxCd"))
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
	switch len(txs) {
	case 0:
	case 1:
		if e.ID == "" {
			if id := txs[0].Value("Refs", "AcctSvcrRef"); id != "" {
				e.ID, e.IDSource = id, "TxDtls/AcctSvcrRef"
			} else if id := txs[0].Value("Refs", "TxId"); id != "" {
				e.ID, e.IDSource = id, "TxId"
			}
		}
		describe(&e, txs[0], n.Child("AmtDtls"))
	default:
		parts, ok, err := splitBatch(e, n, txs)
		if err != nil {
			return nil, false, err
		}
		if ok {
			for i := range parts {
				addInfo(&parts[i], addtl)
			}
			return parts, false, nil
		}
	}
	addInfo(&e, addtl)
	if len(txs) > 1 {
		e.Details = append(e.Details, bankfile.Detail{Label: "batch", Value: fmt.Sprintf("%d transactions", len(txs))})
		if e.Text == "" {
			e.Text = fmt.Sprintf("Batch of %d transactions", len(txs))
		}
	}
	return []bankfile.Entry{e}, false, nil
}

// bankCode is the bank's transaction code: the proprietary one (a German GVC such as
// NTRF+166) when there is one, else the ISO domain as "PMNT/RCDT/ESCT".
func bankCode(c *bankfile.Node) string {
	if p := c.Value("Prtry", "Cd"); p != "" {
		return p
	}
	d := c.Child("Domn")
	if d == nil {
		return ""
	}
	return strings.Trim(d.Value("Cd")+"/"+d.Value("Fmly", "Cd")+"/"+d.Value("Fmly", "SubFmlyCd"), "/")
}

// splitBatch makes one entry per TxDtls when each has an amount, in the entry's currency, and
// they add up to the entry's amount; ok is false otherwise, and the entry stays whole.
func splitBatch(e bankfile.Entry, ntry *bankfile.Node, txs []*bankfile.Node) (parts []bankfile.Entry, ok bool, err error) {
	sum := decimal.Zero
	for i, tx := range txs {
		amt := tx.Child("Amt") // newer versions
		if amt == nil {
			amt = tx.Path("AmtDtls", "TxAmt", "Amt") // older ones
		}
		if amt == nil {
			return nil, false, nil
		}
		if c := strings.ToUpper(amt.Attr("Ccy")); c != "" && e.Currency != "" && c != e.Currency {
			return nil, false, nil
		}
		v, err := parseAmount(amt, "TxDtls/Amt")
		if err != nil {
			return nil, false, err
		}
		// A transaction without its own mark takes the entry's.
		marked := tx
		if tx.Child("CdtDbtInd") == nil {
			marked = ntry
		}
		if v, err = signed(marked, v, "TxDtls/CdtDbtInd"); err != nil {
			return nil, false, err
		}
		sum = sum.Add(v)

		p := e
		p.Amount, p.Line, p.Details = v, tx.Line, nil
		switch id := tx.Value("Refs", "AcctSvcrRef"); {
		case id != "":
			p.ID, p.IDSource = id, "TxDtls/AcctSvcrRef"
		case e.ID != "":
			p.ID, p.IDSource = fmt.Sprintf("%s/%d", e.ID, i+1), e.IDSource+"/n"
		}
		describe(&p, tx, nil)
		parts = append(parts, p)
	}
	if !sum.Equal(e.Amount) {
		return nil, false, nil
	}
	return parts, true, nil
}

// describe fills an entry from a TxDtls: counterparty, text, references and the facts worth
// keeping. ntryAmts is the entry's own AmtDtls, for a TxDtls without one.
func describe(e *bankfile.Entry, tx, ntryAmts *bankfile.Node) {
	parties := tx.Child("RltdPties")
	// The counterparty is the creditor of money going out and the debtor of money coming in;
	// a reversal undoes a booking the other way, so its counterparty is on the other side.
	side, other := "Dbtr", "Cdtr"
	if e.Amount.IsNegative() != e.Reversal {
		side, other = other, side
	}
	acctSide := side
	for _, p := range []string{side, "Ultmt" + side, other, "Ultmt" + other} {
		if name := partyName(parties.Child(p)); name != "" {
			e.Counterparty = name
			acctSide = strings.TrimPrefix(p, "Ultmt")
			break
		}
	}
	e.CounterpartyAccount = accountID(parties.Child(acctSide + "Acct"))

	rmt := tx.Child("RmtInf")
	var ustrd, strd []string
	for _, u := range rmt.All("Ustrd") {
		if u.Text != "" {
			ustrd = append(ustrd, u.Text)
		}
	}
	for _, s := range rmt.All("Strd") {
		for _, c := range s.All("CdtrRefInf") {
			if r := c.Value("Ref"); r != "" {
				strd = append(strd, r)
			}
		}
		for _, a := range s.All("AddtlRmtInf") {
			if a.Text != "" {
				ustrd = append(ustrd, a.Text)
			}
		}
	}
	e2e := tx.Value("Refs", "EndToEndId")
	e.Reference = e2e
	switch {
	case len(ustrd) > 0:
		e.Text = strings.Join(ustrd, " ")
		if len(strd) > 0 {
			// The creditor's reference says more to the holder than the payer's own id.
			e.Reference = strings.Join(strd, " ")
		}
	case len(strd) > 0:
		e.Text = strings.Join(strd, " ")
	default:
		e.Text = tx.Value("AddtlTxInf")
	}

	if e2e != "" && e2e != e.Reference {
		e.Details = append(e.Details, bankfile.Detail{Label: "end-to-end id", Value: e2e})
	}
	mandate := tx.Value("Refs", "MndtId")
	if mandate == "" {
		mandate = tx.Value("RltdPties", "MndtRltdInf", "MndtId")
	}
	if mandate != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "mandate", Value: mandate})
	}
	if id := creditorID(tx); id != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "creditor id", Value: id})
	}
	amts := tx.Child("AmtDtls")
	if amts == nil {
		amts = ntryAmts
	}
	if orig := originalAmount(amts.Path("InstdAmt", "Amt"), *e); orig != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "original amount", Value: orig})
	}
}

// addInfo uses the entry's AddtlNtryInf as its text when it has none, else keeps it as a
// detail when it says something else.
func addInfo(e *bankfile.Entry, addtl string) {
	switch {
	case addtl == "" || addtl == e.Text:
	case e.Text == "":
		e.Text = addtl
	default:
		e.Details = append(e.Details, bankfile.Detail{Label: "additional info", Value: addtl})
	}
}

// partyName is a party's name: Nm in older versions, Pty/Nm in newer ones.
func partyName(p *bankfile.Node) string {
	if n := p.Value("Nm"); n != "" {
		return n
	}
	return p.Value("Pty", "Nm")
}

// accountID is an account's IBAN (without spaces, upper case) or other id.
func accountID(a *bankfile.Node) string {
	if iban := a.Value("Id", "IBAN"); iban != "" {
		return strings.ToUpper(strings.ReplaceAll(iban, " ", ""))
	}
	return a.Value("Id", "Othr", "Id")
}

// creditorID is a direct debit's creditor identifier, wherever the version puts it.
func creditorID(tx *bankfile.Node) string {
	for _, path := range [][]string{
		{"CdtrSchmeId", "Id", "PrvtId", "Othr", "Id"},
		{"RltdPties", "Cdtr", "Id", "PrvtId", "Othr", "Id"},
		{"RltdPties", "Cdtr", "Pty", "Id", "PrvtId", "Othr", "Id"},
		{"RltdPties", "UltmtCdtr", "Id", "PrvtId", "Othr", "Id"},
		{"RltdPties", "UltmtCdtr", "Pty", "Id", "PrvtId", "Othr", "Id"},
	} {
		if id := tx.Value(path...); id != "" {
			return id
		}
	}
	return ""
}

// originalAmount is the instructed amount as "1040.00 EUR" when it differs from what was
// booked (another currency, or a fee taken on the way), "" otherwise.
func originalAmount(amt *bankfile.Node, e bankfile.Entry) string {
	if amt == nil || !amountRE.MatchString(amt.Text) {
		return ""
	}
	ccy := strings.ToUpper(amt.Attr("Ccy"))
	if (ccy == "" || ccy == e.Currency) && decimal.RequireFromString(amt.Text).Equal(e.Amount.Abs()) {
		return ""
	}
	return strings.TrimSpace(amt.Text + " " + ccy)
}

// isTrue reads an xs:boolean.
func isTrue(s string) bool { return s == "true" || s == "1" }

// amountRE is an ISO 20022 amount: unsigned, at most 18 digits of which 5 after the point.
var amountRE = regexp.MustCompile(`^\d{1,18}(\.\d{1,5})?$`)

// parseAmount reads an unsigned camt amount: digits and a decimal point.
func parseAmount(n *bankfile.Node, element string) (decimal.Decimal, error) {
	if !amountRE.MatchString(n.Text) {
		var hint string
		switch {
		case strings.Contains(n.Text, ","):
			hint = fmt.Sprintf(" (camt amounts use a point: %s)", strings.Replace(n.Text, ",", ".", 1))
		case strings.HasPrefix(n.Text, "-"):
			hint = " (camt amounts have no sign: CdtDbtInd gives the direction)"
		}
		return decimal.Decimal{}, bankfile.Errorf(n.Line, element, "%q is not an amount%s", bankfile.Clip(n.Text), hint)
	}
	return decimal.RequireFromString(n.Text), nil
}

// signed applies the CdtDbtInd of n to an amount: DBIT makes it negative.
func signed(n *bankfile.Node, v decimal.Decimal, element string) (decimal.Decimal, error) {
	ind := n.Child("CdtDbtInd")
	if ind == nil {
		return v, bankfile.Errorf(n.Line, element, "missing: the amount has no credit or debit mark (CRDT or DBIT)")
	}
	switch ind.Text {
	case "CRDT":
		return v, nil
	case "DBIT":
		return v.Neg(), nil
	}
	return v, bankfile.Errorf(ind.Line, element, "%q is neither CRDT nor DBIT", bankfile.Clip(ind.Text))
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
	return time.Time{}, bankfile.Errorf(n.Line, element, "the date is missing (Dt or DtTm)")
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

// dateRE is an xs:date or xs:dateTime: the day, then optionally a time, then optionally a zone.
var dateRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$`)

// parseDate reads the calendar day of a date or date and time, ignoring the time and zone.
func parseDate(n *bankfile.Node, element string) (time.Time, error) {
	m := dateRE.FindStringSubmatch(n.Text)
	if m == nil {
		return time.Time{}, bankfile.Errorf(n.Line, element, "%q is not a date (YYYY-MM-DD, or YYYY-MM-DDThh:mm:ss)", bankfile.Clip(n.Text))
	}
	t, err := time.Parse(time.DateOnly, m[1])
	if err != nil {
		return time.Time{}, bankfile.Errorf(n.Line, element, "%q is not a calendar date", bankfile.Clip(n.Text))
	}
	return t, nil
}
