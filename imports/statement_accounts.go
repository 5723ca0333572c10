package imports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/imports/bankfile"
	"tally/models"
)

// AccountCandidate is one of the family's accounts that a statement's entries could go into,
// with what speaks for it.
type AccountCandidate struct {
	AccountID uuid.UUID `json:"account_id"`
	Name      string    `json:"name"`
	Currency  string    `json:"currency"`
	// Identifier is how the account's identifiers meet the statement's (an identifierMatch),
	// "" when they do not.
	Identifier string `json:"identifier,omitempty"`
	// SameCurrency is true when the account is in the statement's currency.
	SameCurrency bool `json:"same_currency"`
	// BalanceContinues is true when the account's balance at the end of the day before the
	// statement is its opening balance (for an OFX file, which states none, its closing balance
	// less its entries), to the cent.
	BalanceContinues bool `json:"balance_continues"`
	// SameKind is true when the account is of the kind a new account for the statement would
	// be: its type, and its subtype when both say one (a savings account is no checking
	// account's home).
	SameKind bool `json:"same_kind"`
	// OnlyFit is true when the account is the family's only active one in the statement's
	// currency and of its kind that no other file's account is linked to: the home of a first
	// statement of an account someone set up by hand.
	OnlyFit bool `json:"only_fit,omitempty"`
	// Reason says what speaks for the account, in a few words for a person: "its IBAN holds
	// this account number, the balance carries on". Empty when nothing but its currency does.
	Reason string `json:"reason,omitempty"`
}

// How an account's identifiers meet a statement's, strongest first.
const (
	// IdentifierLinked is the statement's own key, linked to the account by an earlier file.
	IdentifierLinked = "linked"
	// IdentifierNumberInIBAN is an account number inside an IBAN: an MT940 :25: of
	// "37040044/0532013000" and a camt file's DE89370400440532013000.
	IdentifierNumberInIBAN = "number_in_iban"
	// IdentifierCardDigits is a card's last four digits: a file that masks the card number
	// and one that does not, or an account named "Sapphire …4821".
	IdentifierCardDigits = "card_digits"
)

var identifierStrength = map[string]int{IdentifierLinked: 3, IdentifierNumberInIBAN: 2, IdentifierCardDigits: 1}

// rankAccounts sets the candidates of each account of a statement file, best first, and the
// account its mapping starts with (SuggestedAccountID, with the reason for it). Candidates are
// ranked by identifier, then currency, then whether the balance continues, then whether they
// are of the statement's kind, then of its type; an account in another currency never comes
// before one in the statement's, but for the account the statement's key was linked to, which
// a person chose. An account is suggested when it is so linked, or is in the statement's
// currency with an identifier that matches, a balance that continues from a non-zero one (the
// balance alone of an empty account says nothing), or as the only account of the statement's
// currency and kind that no other file's account is linked to.
func rankAccounts(ctx context.Context, idb bun.IDB, familyID uuid.UUID, file *bankfile.File, totals []entryTotals, sf *StatementFile) error {
	accts, err := models.AccountsForFamily(ctx, idb, models.FamilyViewer(familyID))
	if err != nil {
		return err
	}
	var links []struct {
		Key       string    `bun:"key"`
		AccountID uuid.UUID `bun:"account_id"`
	}
	if err := idb.NewRaw("SELECT key, account_id FROM account_identifiers WHERE family_id = ?", familyID).Scan(ctx, &links); err != nil {
		return fmt.Errorf("account identifiers: %w", err)
	}
	r := ranking{accts: accts, keys: map[uuid.UUID][]string{}, kinds: map[string]map[string]bool{}}
	for _, l := range links {
		r.keys[l.AccountID] = append(r.keys[l.AccountID], l.Key)
	}
	for _, sum := range sf.Statements {
		if r.kinds[kindOf(sum)] == nil {
			r.kinds[kindOf(sum)] = map[string]bool{}
		}
		r.kinds[kindOf(sum)][sum.Account.Key] = true
	}
	done := map[string]*StatementAccount{} // each key's first statement's account, ranked
	for i, st := range file.Statements {
		sum := &sf.Statements[i]
		if first, ok := done[sum.Account.Key]; ok {
			sum.Account.Candidates, sum.Account.SuggestedAccountID, sum.Account.SuggestionReason =
				first.Candidates, first.SuggestedAccountID, first.SuggestionReason
			continue
		}
		opening, day, ok := openingOf(file, totals, sum.Account.Key, sf.Format)
		cands, err := r.candidates(ctx, idb, st.Account, sum, opening, day, ok)
		if err != nil {
			return err
		}
		sum.Account.Candidates = cands
		if len(cands) > 0 && suggested(cands[0], opening) {
			sum.Account.SuggestedAccountID, sum.Account.SuggestionReason = &cands[0].AccountID, cands[0].Reason
		}
		done[sum.Account.Key] = &sum.Account
	}
	return nil
}

// ranking is what ranking a statement's candidates reads: the family's accounts, the
// identifier keys linked to each, and the file's account keys of each kind (kindOf).
type ranking struct {
	accts []models.Account
	keys  map[uuid.UUID][]string
	kinds map[string]map[string]bool
}

// kindOf is a statement's currency, the type of account it would make and its kind.
func kindOf(sum StatementSummary) string {
	return sum.Currency + "/" + sum.Account.Type + "/" + sum.Account.Kind
}

// candidates are the family's accounts that the statement sum (of the file's account st)
// could go into, best first; opening and day are its opening balance and the day whose end it
// is the balance of, when known (ok).
func (r ranking) candidates(ctx context.Context, idb bun.IDB, st bankfile.Account, sum *StatementSummary, opening decimal.Decimal, day time.Time, ok bool) ([]AccountCandidate, error) {
	var cands []AccountCandidate
	types := map[uuid.UUID]string{}
	fitting := 0
	for _, a := range r.accts {
		c := AccountCandidate{AccountID: a.ID, Name: a.Name, Currency: a.Currency, SameCurrency: a.Currency == sum.Currency,
			Identifier: identifierMatch(st, r.keys[a.ID], a.Name), SameKind: sameKind(&a, sum.Account)}
		if c.Identifier != IdentifierLinked && (a.Status != models.AccountActive || (!c.SameCurrency && c.Identifier == "")) {
			continue
		}
		if c.SameCurrency && ok {
			var err error
			if c.BalanceContinues, err = balanceOn(ctx, idb, &a, day, opening); err != nil {
				return nil, err
			}
		}
		// An account another file's account is linked to is that account's.
		if c.OnlyFit = c.SameCurrency && c.SameKind && len(r.keys[a.ID]) == 0; c.OnlyFit {
			fitting++
		}
		types[a.ID] = a.AccountableType
		cands = append(cands, c)
	}
	// A file of two accounts of one currency and kind cannot say which is the family's only one.
	alone := len(r.kinds[kindOf(*sum)]) == 1
	for i := range cands {
		cands[i].OnlyFit = cands[i].OnlyFit && fitting == 1 && alone
		cands[i].Reason = cands[i].reason(sum.Account)
	}
	slices.SortStableFunc(cands, func(x, y AccountCandidate) int {
		return compareCandidates(x, y, types[x.AccountID] == sum.Account.Type, types[y.AccountID] == sum.Account.Type)
	})
	return cands, nil
}

// sameKind reports whether account a is of the kind a new account for the statement's account
// st would be: its type, and for a checking or savings statement, its subtype when it has one.
func sameKind(a *models.Account, st StatementAccount) bool {
	if a.AccountableType != st.Type {
		return false
	}
	switch st.Kind {
	case bankfile.KindChecking, bankfile.KindSavings:
		return a.Subtype == "" || a.Subtype == st.Kind
	}
	return true
}

// reason says in a few words what speaks for the candidate as the home of the statement's
// account st: "its IBAN holds this account number, the balance carries on".
func (c AccountCandidate) reason(st StatementAccount) string {
	var out []string
	switch c.Identifier {
	case IdentifierLinked:
		out = append(out, "chosen for "+st.Display+" before")
	case IdentifierNumberInIBAN:
		out = append(out, "its IBAN holds this account number")
	case IdentifierCardDigits:
		out = append(out, "the same card, "+st.Display)
	}
	if c.BalanceContinues {
		out = append(out, "the balance carries on")
	}
	if c.OnlyFit {
		out = append(out, "your only "+c.Currency+" "+kindNoun(st))
	}
	return strings.Join(out, ", ")
}

// kindNoun names the kind of account st is, as in "your only USD checking account".
func kindNoun(st StatementAccount) string {
	switch st.Kind {
	case bankfile.KindChecking:
		return "checking account"
	case bankfile.KindSavings:
		return "savings account"
	case bankfile.KindCreditCard:
		return "credit card"
	case bankfile.KindCreditLine:
		return "credit line"
	case bankfile.KindInvestment:
		return "investment account"
	}
	return "bank account"
}

// compareCandidates orders x before y when it is the better candidate; xType and yType say
// whether each is of the type a new account for the statement would be.
func compareCandidates(x, y AccountCandidate, xType, yType bool) int {
	linked := func(c AccountCandidate) bool { return c.Identifier == IdentifierLinked }
	return cmp.Or(
		-cmpBool(linked(x), linked(y)),
		-cmpBool(x.SameCurrency, y.SameCurrency),
		-cmp.Compare(identifierStrength[x.Identifier], identifierStrength[y.Identifier]),
		-cmpBool(x.BalanceContinues, y.BalanceContinues),
		-cmpBool(x.SameKind, y.SameKind),
		-cmpBool(xType, yType),
	)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// suggested reports whether the best candidate is good enough to start the mapping with.
func suggested(c AccountCandidate, opening decimal.Decimal) bool {
	return c.Identifier == IdentifierLinked || c.SameCurrency && (c.Identifier != "" || c.BalanceContinues && !opening.IsZero() || c.OnlyFit)
}

// openingOf is the balance the file's first statement of the account with key opens with,
// and the day whose end it is the balance of: its opening balance, or for a statement that
// states none (OFX) its closing balance less its booked entries (totals, the file's first
// read), before its first day. ok is false when the file says neither.
func openingOf(file *bankfile.File, totals []entryTotals, key string, format string) (decimal.Decimal, time.Time, bool) {
	for i, st := range file.Statements {
		if st.Account.Key() != key || st.Intraday {
			continue
		}
		sum := StatementSummary{Opening: firstBalance(st, bankfile.BalanceOpening), Closing: lastBalance(st, bankfile.BalanceClosing)}
		if st.From != nil {
			sum.From = strPtr(st.From.Format(time.DateOnly))
		}
		if sum.Opening != nil {
			day, err := time.Parse(time.DateOnly, openingDay(&sum, format))
			return sum.Opening.Amount, day, err == nil
		}
		if sum.Closing == nil {
			return decimal.Zero, time.Time{}, false
		}
		var t entryTotals
		if i < len(totals) {
			t = totals[i]
		}
		first := st.From
		if first == nil || !t.first.IsZero() && t.first.Before(*first) {
			first = &t.first
		}
		if first.IsZero() {
			return decimal.Zero, time.Time{}, false
		}
		return sum.Closing.Amount.Sub(t.booked), first.AddDate(0, 0, -1), true
	}
	return decimal.Zero, time.Time{}, false
}

// balanceOn reports whether the account's balance at the end of day is amount, a statement's
// balance (a card's balance owed is negative in it, positive in Tally). An account whose
// balance is not known has no balance to continue.
func balanceOn(ctx context.Context, idb bun.IDB, a *models.Account, day time.Time, amount decimal.Decimal) (bool, error) {
	unknown, err := balanceUnknown(ctx, idb, a.ID)
	if err != nil || unknown {
		return false, err
	}
	walk, err := models.DailyBalances(ctx, idb, models.FamilyViewer(a.FamilyID), a.ID, day, day)
	if err != nil || len(walk) != 1 {
		return false, err
	}
	return tallyBalance(statementAccount{Liability: a.Classification() == "liability"}, amount).Equal(walk[0].Balance.Round(2)), nil
}

// identifierMatch says how an account, with the identifier keys linked to it and its name,
// meets a statement's account (an Identifier constant), "" when it does not.
func identifierMatch(st bankfile.Account, keys []string, name string) string {
	best := ""
	better := func(m string) {
		if identifierStrength[m] > identifierStrength[best] {
			best = m
		}
	}
	for _, k := range keys {
		other := accountOfKey(k)
		switch {
		case k == st.Key():
			better(IdentifierLinked)
		case numberInIBAN(st, other) || numberInIBAN(other, st):
			better(IdentifierNumberInIBAN)
		case sameCardDigits(st.Number, other.Number):
			better(IdentifierCardDigits)
		}
	}
	if d := cardDigits(st); d != "" && hasDigitGroup(name, d) {
		better(IdentifierCardDigits)
	}
	return best
}

// hasDigitGroup reports whether s holds digits as a group of its own, not inside a longer
// number: "Sapphire …4821" holds 4821, "Order 148213" does not.
func hasDigitGroup(s, digits string) bool {
	isDigit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := 0; ; {
		j := strings.Index(s[i:], digits)
		if j < 0 {
			return false
		}
		at := i + j
		if !isDigit(at-1) && !isDigit(at+len(digits)) {
			return true
		}
		i = at + 1
	}
}

// accountOfKey is the account a key (bankfile.Account.Key) names.
func accountOfKey(key string) bankfile.Account {
	if iban, ok := strings.CutPrefix(key, "iban:"); ok {
		return bankfile.Account{IBAN: iban}
	}
	rest := strings.TrimPrefix(key, "acct:")
	if bank, number, ok := strings.Cut(rest, "/"); ok {
		return bankfile.Account{BankID: bank, Number: number}
	}
	return bankfile.Account{Number: rest}
}

// numberInIBAN reports whether a's account number (with its bank code, when it has one) is
// inside b's IBAN: the BBAN of a German IBAN is the bank code and the account number, padded
// with zeros to ten digits.
func numberInIBAN(a, b bankfile.Account) bool {
	if a.IBAN != "" || b.IBAN == "" || len(b.IBAN) < 5 {
		return false
	}
	bban := strings.ToUpper(strings.ReplaceAll(b.IBAN[4:], " ", ""))
	number := strings.TrimLeft(strings.ToUpper(a.Number), "0")
	if len(number) < 5 || !strings.HasSuffix(bban, number) {
		return false
	}
	return a.BankID == "" || strings.Contains(strings.TrimSuffix(bban, number), strings.ToUpper(a.BankID))
}

// cardDigits are the last four digits of a card statement's number, "" for another account.
func cardDigits(a bankfile.Account) string {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, a.Number)
	if a.Kind != bankfile.KindCreditCard || len(digits) < 4 {
		return ""
	}
	return digits[len(digits)-4:]
}

// sameCardDigits reports whether two card numbers are one card's, one of them masked
// ("XXXXXXXXXXXX4821" and "4266841234564821"): the same last four digits.
func sameCardDigits(a, b string) bool {
	masked := func(s string) bool { return strings.ContainsAny(strings.ToUpper(s), "X*•…") }
	if len(a) < 8 || len(b) < 8 || !masked(a) && !masked(b) {
		return false
	}
	last := func(s string) string { return s[len(s)-4:] }
	return last(a) == last(b) && strings.Trim(last(a), "0123456789") == ""
}
