package mt940

import (
	"strings"
	"time"

	"tally/imports/bankfile"
)

// account reads :25:. A German "BLZ/account", an IBAN (Dutch banks add the currency right
// after it), a "BIC/account", or else the whole value as the account number.
func account(v string) bankfile.Account {
	v = strings.ReplaceAll(v, " ", "")
	a := bankfile.Account{Kind: bankfile.KindOther}
	switch {
	case validIBAN(v):
		a.IBAN = strings.ToUpper(v)
	case len(v) > 3 && isUpper(v[len(v)-3:]) && validIBAN(v[:len(v)-3]):
		a.IBAN, a.Currency = strings.ToUpper(v[:len(v)-3]), v[len(v)-3:]
	default:
		if bank, number, ok := strings.Cut(v, "/"); ok && bank != "" && number != "" {
			a.BankID, a.Number = bank, number
		} else {
			a.Number = v
		}
	}
	return a
}

// validIBAN checks an IBAN's form and its ISO 7064 mod-97 check digits.
func validIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !isUpper(s[:2]) || !isDigits(s[2:4]) {
		return false
	}
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// statementLine reads a :61: field:
//
//	value date YYMMDD, entry date MMDD (optional), mark C, D, RC or RD, funds code (one
//	letter, optional), amount with a decimal comma, type (N, F or S and three characters),
//	customer reference, "//" and the bank's reference (optional), and on the next line
//	supplementary details (optional).
func statementLine(f field) (bankfile.Entry, error) {
	const tag = ":61:"
	s := strings.TrimSpace(f.lines[0])
	e := bankfile.Entry{Line: f.line}
	value, err := yymmdd(s, f, tag)
	if err != nil {
		return e, err
	}
	e.Value, e.Booked = &value, value
	s = s[6:]
	if len(s) >= 4 && isDigits(s[:4]) {
		m, d := atoi(s[:2]), atoi(s[2:4])
		y := value.Year()
		switch {
		case m == 12 && value.Month() == time.January:
			y--
		case m == 1 && value.Month() == time.December:
			y++
		}
		booked := bankfile.Date(y, time.Month(m), d)
		if m < 1 || m > 12 || booked.Day() != d {
			return e, bankfile.Errorf(f.line, tag, "%q is not an entry date (MMDD)", s[:4])
		}
		e.Booked, s = booked, s[4:]
	}
	var out bool
	switch {
	case strings.HasPrefix(s, "RC"):
		e.Reversal, out, s = true, true, s[2:]
	case strings.HasPrefix(s, "RD"):
		e.Reversal, s = true, s[2:]
	case strings.HasPrefix(s, "C"):
		s = s[1:]
	case strings.HasPrefix(s, "D"):
		out, s = true, s[1:]
	default:
		return e, bankfile.Errorf(f.line, tag, "%q has no credit or debit mark (C, D, RC or RD) after the dates", bankfile.Clip(f.lines[0]))
	}
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		e.Details = append(e.Details, bankfile.Detail{Label: "funds code", Value: s[:1]})
		s = s[1:]
	}
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ',' || s[end] == '.') {
		end++
	}
	amt, err := amount(s[:end], f, tag)
	if err != nil {
		return e, err
	}
	if out {
		amt = amt.Neg()
	}
	e.Amount, s = amt, s[end:]
	if len(s) >= 4 && strings.ContainsRune("NFS", rune(s[0])) {
		e.Code, s = s[:4], s[4:]
	}
	ref, bankRef, _ := strings.Cut(s, "//")
	if ref = strings.TrimSpace(ref); ref != "" && ref != "NONREF" {
		e.Reference = ref
	}
	if bankRef = strings.TrimSpace(bankRef); bankRef != "" {
		e.ID, e.IDSource = bankRef, "bank reference"
	}
	if len(f.lines) > 1 {
		if sup := collapse(strings.Join(f.lines[1:], " ")); sup != "" {
			e.Details = append(e.Details, bankfile.Detail{Label: "supplementary details", Value: sup})
		}
	}
	return e, nil
}

// describe fills an entry from its :86: text: German ?NN subfields, Dutch /TAG/ pairs, or
// plain text. The text's physical lines are already joined without spaces: banks break them
// anywhere, even inside a word.
func describe(e *bankfile.Entry, info string) {
	switch {
	case len(info) >= 4 && isDigits(info[:3]) && isSeparator(info[3]):
		german(e, info)
	case strings.HasPrefix(info, "/") && dutchTags[firstTag(info)]:
		dutch(e, info)
	default:
		e.Text = collapse(info)
	}
}

func isSeparator(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')
}

// german reads "GVC?00booking text?20purpose…?32name": subfields by two-digit number, after a
// three-digit business transaction code. Most banks separate with '?', some with another
// character, which is the one after the code.
func german(e *bankfile.Entry, info string) {
	gvc, sep := info[:3], info[3]
	sub := map[string]*strings.Builder{}
	var purpose strings.Builder
	for _, part := range strings.Split(info[4:], string(sep)) {
		if len(part) < 2 || !isDigits(part[:2]) {
			continue
		}
		k, v := part[:2], part[2:]
		if k >= "20" && k <= "29" || k >= "60" && k <= "63" {
			purpose.WriteString(v)
			continue
		}
		if sub[k] == nil {
			sub[k] = &strings.Builder{}
		}
		sub[k].WriteString(v)
	}
	get := func(k string) string {
		if b := sub[k]; b != nil {
			return b.String()
		}
		return ""
	}
	if e.Code != "" {
		e.Code += "+" + gvc
	} else {
		e.Code = gvc
	}
	e.Counterparty = strings.TrimSpace(get("32") + get("33"))
	e.CounterpartyAccount = strings.TrimSpace(get("31"))
	booking := strings.TrimSpace(get("00"))
	if booking != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "booking text", Value: booking})
	}
	text, keys := sepaKeywords(purpose.String())
	e.Text = text
	if v := keys["EREF"]; v != "" && !strings.EqualFold(v, "NOTPROVIDED") {
		e.Reference = v
	}
	for _, k := range []struct{ key, label string }{
		{"KREF", "customer reference"}, {"MREF", "mandate"}, {"CRED", "creditor id"}, {"DEBT", "debtor id"},
		{"ABWA", "ultimate party"}, {"ABWE", "ultimate party"}, {"OAMT", "original amount"}, {"COAM", "compensation amount"},
	} {
		if v := keys[k.key]; v != "" {
			e.Details = append(e.Details, bankfile.Detail{Label: k.label, Value: v})
		}
	}
	if r := strings.TrimSpace(get("34")); r != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "return reason", Value: r})
	}
	if e.Text == "" {
		e.Text = booking
	}
}

// sepaKeywords splits a German purpose at its SEPA keywords ("EREF+…SVWZ+…"): the text is the
// SVWZ part, else what is not a keyword's.
func sepaKeywords(p string) (text string, keys map[string]string) {
	keys = map[string]string{}
	type at struct {
		key string
		pos int
	}
	var found []at
	for i := 0; i+5 <= len(p); i++ {
		if p[i+4] != '+' || i > 0 && p[i-1] >= 'A' && p[i-1] <= 'Z' {
			continue
		}
		if k := p[i : i+4]; sepaKeys[k] {
			found = append(found, at{k, i})
			i += 4
		}
	}
	if len(found) == 0 {
		return collapse(p), keys
	}
	rest := collapse(p[:found[0].pos])
	for j, f := range found {
		end := len(p)
		if j+1 < len(found) {
			end = found[j+1].pos
		}
		keys[f.key] = collapse(p[f.pos+5 : end])
	}
	if keys["SVWZ"] != "" {
		return keys["SVWZ"], keys
	}
	return rest, keys
}

var sepaKeys = map[string]bool{"EREF": true, "KREF": true, "MREF": true, "CRED": true, "DEBT": true, "SVWZ": true,
	"ABWA": true, "ABWE": true, "COAM": true, "OAMT": true}

// dutchTags are the tags of the Dutch structured :86: ("/EREF/…/CNTP/IBAN/BIC/NAME/CITY/").
var dutchTags = map[string]bool{"EREF": true, "TRCD": true, "CNTP": true, "REMI": true, "ORDP": true, "BENM": true,
	"MARF": true, "CSID": true, "PREF": true, "PURP": true, "ULTC": true, "ULTD": true, "RTRN": true, "BUSP": true,
	"EXCH": true, "CHGS": true, "ISDT": true, "IREF": true, "ULTB": true}

func firstTag(s string) string {
	tag, _, _ := strings.Cut(strings.TrimPrefix(s, "/"), "/")
	return tag
}

// dutch reads "/TAG/value/…" pairs. A tag's values run to the next known tag, so that a
// counterparty (IBAN, BIC, name, city) or a remittance (USTD or STRD, then the text) keeps its
// parts.
func dutch(e *bankfile.Entry, info string) {
	values := map[string][]string{}
	var tag string
	for _, part := range strings.Split(strings.TrimPrefix(info, "/"), "/") {
		if dutchTags[part] {
			tag = part
			if _, seen := values[tag]; !seen {
				values[tag] = []string{}
			}
			continue
		}
		if tag != "" {
			values[tag] = append(values[tag], part)
		}
	}
	get := func(tag string, i int) string {
		if v := values[tag]; i < len(v) {
			return strings.TrimSpace(v[i])
		}
		return ""
	}
	if c := values["CNTP"]; c != nil {
		e.CounterpartyAccount, e.Counterparty = get("CNTP", 0), get("CNTP", 2)
	}
	for _, t := range []string{"ORDP", "BENM", "ULTC", "ULTD"} {
		if e.Counterparty != "" {
			break
		}
		e.Counterparty = partyName(values[t])
	}
	if r := values["REMI"]; len(r) > 0 {
		switch strings.TrimSpace(r[0]) {
		case "USTD":
			e.Text = collapse(strings.Trim(strings.Join(r[1:], "/"), "/"))
		case "STRD":
			if len(r) > 2 {
				e.Text = collapse(strings.Trim(strings.Join(r[2:], "/"), "/"))
			}
		default:
			e.Text = collapse(strings.Trim(strings.Join(r, "/"), "/"))
		}
	}
	if v := get("EREF", 0); v != "" && !strings.EqualFold(v, "NOTPROVIDED") {
		e.Reference = v
	}
	for _, k := range []struct{ tag, label string }{{"MARF", "mandate"}, {"CSID", "creditor id"}, {"TRCD", "transaction code"}, {"RTRN", "return reason"}} {
		if v := get(k.tag, 0); v != "" {
			e.Details = append(e.Details, bankfile.Detail{Label: k.label, Value: v})
		}
	}
	if v := get("TRCD", 0); v != "" && e.Code != "" {
		e.Code += "+" + v
	}
}

// partyName is a Dutch party's name: the value after "NAME", else the first non-empty value.
func partyName(v []string) string {
	for i, p := range v {
		if p == "NAME" && i+1 < len(v) {
			return strings.TrimSpace(v[i+1])
		}
	}
	for _, p := range v {
		if p = strings.TrimSpace(p); p != "" && p != "NAME" {
			return p
		}
	}
	return ""
}
