package sniff

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Role is what a column of a transaction file holds.
type Role string

// The roles a column can have. A file has at most one column of each role but Ignore.
const (
	RoleDate     Role = "date"
	RoleAmount   Role = "amount"
	RoleDebit    Role = "debit"  // money out, in a file with a column for each direction
	RoleCredit   Role = "credit" // money in
	RoleName     Role = "name"
	RoleNotes    Role = "notes"
	RoleCategory Role = "category"
	RoleTags     Role = "tags"
	RoleCurrency Role = "currency"
	RoleBalance  Role = "balance"
	RoleAccount  Role = "account"
	RoleIgnore   Role = "ignore"
)

// rolePurpose is a header role of its own, never a column's: the column of what a
// transaction was for, or of the bank's description of it (a German "Verwendungszweck", a
// French "Libellé"). It is the name when the file has no column of the other party (RoleName),
// and the notes when it has one.
const rolePurpose Role = "purpose"

// headerWords are the headers banks and apps give each role's column, in English, German,
// French, Spanish, Italian, Portuguese, Dutch and Japanese, folded as fold does. Within a
// role, earlier words win: a file with a booking date and a value date gets the booking date.
// RoleName's words name the other party (the payee, or the payer of money in).
var headerWords = []struct {
	role  Role
	words []string
}{
	{RoleDate, []string{"date", "transaction date", "trans date", "posting date", "post date", "posted date", "booking date",
		"started date", "completed date", "datum", "buchungstag", "buchungsdatum", "buchung", "belegdatum", "date operation",
		"date de l'operation", "date comptable", "fecha", "fecha operacion", "fecha valor", "data", "data operazione",
		"data contabile", "data registrazione", "data movimento", "boekingsdatum", "transactiedatum", "日付", "取引日",
		"wertstellung", "valutadatum", "date valeur", "value date"}},
	{RoleDebit, []string{"debit", "debits", "debit amount", "money out", "paid out", "withdrawal", "withdrawals", "soll",
		"lastschrift", "ausgang", "montant debit", "debe", "cargo", "cargos", "addebiti", "uscite", "dare"}},
	{RoleCredit, []string{"credit", "credits", "credit amount", "money in", "paid in", "deposit", "deposits", "haben",
		"gutschrift", "eingang", "montant credit", "haber", "abono", "abonos", "accrediti", "entrate", "avere"}},
	{RoleAmount, []string{"amount", "transaction amount", "value", "betrag", "umsatz", "montant", "montant de l'operation",
		"montant operation", "importe", "importo", "valor", "bedrag", "transactiebedrag", "金額", "取引金額"}},
	{RoleName, []string{"payee", "merchant", "merchant name", "counterparty", "counterparty name", "partner name",
		"beneficiary", "name", "empfanger", "zahlungsempfanger", "zahlungsempfangerin", "beguenstigter/zahlungspflichtiger",
		"begunstigter/zahlungspflichtiger", "auftraggeber/empfanger", "auftraggeber / empfanger", "auftraggeber / begunstigter",
		"begunstigter / auftraggeber", "auftraggeber/zahlungsempfanger", "name zahlungsbeteiligter", "sender / empfanger",
		"zahlungspflichtiger", "auftraggeber", "beneficiaire", "tiers", "beneficiario", "ordenante", "naam / omschrijving",
		"naam tegenpartij", "tegenpartij", "naam"}},
	{rolePurpose, []string{"description", "transaction description", "purpose", "payment reference", "beschreibung",
		"verwendungszweck", "vorgang/verwendungszweck", "buchungsdetails", "name/beschreibung", "libelle", "libelle operation",
		"libelle de l'operation", "concepto", "descripcion", "descrizione", "descrizione operazione", "descricao", "omschrijving",
		"omschrijving 1", "摘要", "内容", "detail de l'ecriture", "descrizione estesa", "causale", "mededelingen", "buchungstext"}},
	{RoleNotes, []string{"notes", "note", "memo", "reference", "remarks", "referenz", "notiz", "vorgang", "communication",
		"commentaire", "reference de l'operation", "referencia", "observaciones", "note operazione", "備考", "メモ"}},
	{RoleCategory, []string{"category", "categories", "kategorie", "categorie", "catégorie", "categoria", "categoría",
		"rubrik", "カテゴリ"}},
	{RoleTags, []string{"tags", "tag", "labels", "label", "schlagworte", "etiquettes", "etiquetas"}},
	{RoleCurrency, []string{"currency", "currency code", "ccy", "wahrung", "waehrung", "währung", "devise", "moneda", "divisa",
		"valuta", "moeda", "munt", "通貨"}},
	{RoleBalance, []string{"balance", "running balance", "running bal", "available balance", "saldo", "kontostand",
		"solde", "saldo na mutatie", "saldo na trn", "残高"}},
	// Not "Kontonummer" or "account number": in most exports that is the other party's.
	{RoleAccount, []string{"account", "account name", "konto", "auftragskonto", "compte", "cuenta", "conto", "rekening", "口座"}},
}

// currencyUnits are the units a header may end in ("Betrag (EUR)", "Importe (€)"): a header
// is also looked up without them.
var currencyUnits = []string{"eur", "euro", "euros", "usd", "gbp", "chf", "€", "$", "£"}

// fold is how a header is compared: lower case, accents and '*' off, runs of space, '_',
// '-' and '.' as one space, and a bracketed unit such as "(EUR)" or "(€)" as a word.
func fold(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(h) {
		switch {
		case unicode.Is(unicode.Mn, r), r == '*', r == '(', r == ')', r == '[', r == ']', r == ':':
			continue
		case unicode.IsSpace(r) || r == '_' || r == '-' || r == '.':
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// headerEntry is a header word's role and rank (its place in the role's list).
type headerEntry struct {
	role Role
	rank int
}

// headerIndex maps each folded header word to its role and rank.
var headerIndex = func() map[string]headerEntry {
	m := map[string]headerEntry{}
	for _, hw := range headerWords {
		for i, w := range hw.words {
			if _, dup := m[fold(w)]; !dup {
				m[fold(w)] = headerEntry{hw.role, i}
			}
		}
	}
	return m
}()

// headerRole is the role a header names, if it names one: as it is, or without the currency
// unit it ends in.
func headerRole(header string) (headerEntry, bool) {
	h := fold(header)
	if e, ok := headerIndex[h]; ok {
		return e, true
	}
	for _, u := range currencyUnits {
		if rest, ok := strings.CutSuffix(h, " "+u); ok {
			e, ok := headerIndex[rest]
			return e, ok
		}
	}
	return headerEntry{}, false
}

// Column is a column of a file with its guessed role.
type Column struct {
	Index  int
	Header string
	Role   Role
	// By says how the role was guessed: "header" (its name is one the role's columns have),
	// "values" (what it holds), or "" for a column left out (RoleIgnore).
	By string
}

// Columns guesses the role of each of a file's columns. Names come first: a header that
// names a role takes it, the best-ranked header when several name the same role. The best
// column of what a transaction was for (rolePurpose) is the name when no column names the
// other party, and the notes when one does; other such columns fill the notes. Then the
// values: a file with no date column by name takes the first column whose values are all
// dates, one with no amount (nor debit and credit) the first whose values are all amounts
// and not a balance, and one with no name the text column with the most distinct values.
// A value that disagrees with its header wins: a "Valuta" column of currency codes is a
// currency, of dates a date.
func Columns(headers []string, samples [][]string) []Column {
	cols := make([]Column, len(headers))
	taken := map[Role]int{} // role → column index
	rank := map[int]int{}
	var purposes []int
	for i, h := range headers {
		cols[i] = Column{Index: i, Header: h, Role: RoleIgnore}
		e, ok := headerRole(h)
		if !ok {
			continue
		}
		role := byValues(e.role, column(samples, i))
		if role != e.role {
			// Named for another role, it comes after every column named for this one.
			e.rank += len(headerIndex)
		}
		if role == rolePurpose {
			purposes, rank[i] = append(purposes, i), e.rank
			continue
		}
		if j, dup := taken[role]; dup && rank[j] <= e.rank {
			continue
		} else if dup {
			cols[j].Role, cols[j].By = RoleIgnore, ""
		}
		cols[i].Role, cols[i].By = role, "header"
		taken[role], rank[i] = i, e.rank
	}
	// The best purpose column is always read: as the name when no column names the other
	// party, else as the notes, before a column of notes by name. Others fill the notes.
	slices.SortStableFunc(purposes, func(a, b int) int { return rank[a] - rank[b] })
	for n, i := range purposes {
		role := RoleNotes
		_, named := taken[RoleName]
		j, noted := taken[RoleNotes]
		switch {
		case !named:
			role = RoleName
		case n == 0 && noted:
			cols[j].Role, cols[j].By = RoleIgnore, ""
		case noted:
			continue
		}
		cols[i].Role, cols[i].By = role, "header"
		taken[role] = i
	}
	free := func(pick func(i int, values []string) bool) int {
		for i := range cols {
			if cols[i].Role == RoleIgnore && pick(i, column(samples, i)) {
				return i
			}
		}
		return -1
	}
	if _, ok := taken[RoleDate]; !ok {
		if i := free(func(_ int, vs []string) bool { return allOf(vs, isDate) }); i >= 0 {
			cols[i].Role, cols[i].By = RoleDate, "values"
		}
	}
	_, amount := taken[RoleAmount]
	_, debit := taken[RoleDebit]
	_, credit := taken[RoleCredit]
	if !amount && !(debit && credit) {
		if i := free(func(_ int, vs []string) bool { return allOf(vs, isAmount) && !allOf(vs, isDate) }); i >= 0 {
			cols[i].Role, cols[i].By = RoleAmount, "values"
		}
	}
	if _, ok := taken[RoleName]; !ok {
		best, bestDistinct := -1, 0
		for i := range cols {
			vs := column(samples, i)
			if cols[i].Role != RoleIgnore || len(vs) == 0 || allOf(vs, isAmount) || allOf(vs, isDate) {
				continue
			}
			if d := distinct(vs); d > bestDistinct {
				best, bestDistinct = i, d
			}
		}
		if best >= 0 {
			cols[best].Role, cols[best].By = RoleName, "values"
		}
	}
	return cols
}

// byValues corrects a role named by a header when the values say otherwise: currency codes
// are a currency, and dates in a column named for text (a German "Tag", a Dutch "Valuta" of
// value dates) a date.
func byValues(role Role, values []string) Role {
	switch {
	case len(values) == 0:
		return role
	case role != RoleCurrency && allOf(values, isCurrencyCode):
		return RoleCurrency
	case role != RoleDate && role != RoleAmount && role != RoleDebit && role != RoleCredit && role != RoleBalance && allOf(values, isDate):
		return RoleDate
	}
	return role
}

func allOf(values []string, f func(string) bool) bool {
	if len(values) == 0 {
		return false
	}
	for _, v := range values {
		if !f(v) {
			return false
		}
	}
	return true
}

func distinct(values []string) int {
	seen := map[string]bool{}
	for _, v := range values {
		seen[v] = true
	}
	return len(seen)
}

// isCurrencyCode reports whether s is three capital letters, as ISO 4217 codes are.
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
