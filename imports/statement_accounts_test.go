package imports

import (
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
	"tally/models"
)

func TestIdentifierMatch(t *testing.T) {
	mt940 := bankfile.Account{BankID: "37040044", Number: "0532013000", Kind: bankfile.KindOther}
	camt := bankfile.Account{IBAN: "DE89370400440532013000", Kind: bankfile.KindChecking}
	card := bankfile.Account{Number: "4266841234564821", Kind: bankfile.KindCreditCard}
	cases := []struct {
		name string
		st   bankfile.Account
		keys []string
		acct string
		want string
	}{
		{"the key an earlier file linked", mt940, []string{"acct:37040044/0532013000"}, "Girokonto", IdentifierLinked},
		{"an MT940 account number inside the IBAN a camt file linked", mt940, []string{"iban:DE89370400440532013000"}, "Girokonto", IdentifierNumberInIBAN},
		{"a camt IBAN holding the number an MT940 file linked", camt, []string{"acct:37040044/0532013000"}, "Girokonto", IdentifierNumberInIBAN},
		{"a Dutch IBAN holding a number without a bank code", bankfile.Account{IBAN: "NL91ABNA0417164300"}, []string{"acct:0417164300"}, "", IdentifierNumberInIBAN},
		{"the same number at another bank", mt940, []string{"iban:DE89100100100532013000"}, "Girokonto", ""},
		{"another number at the same bank", mt940, []string{"iban:DE89370400440532013001"}, "Girokonto", ""},
		{"a number too short to tell", bankfile.Account{Number: "3000"}, []string{"iban:DE89370400440532013000"}, "", ""},
		{"a card a file masked", card, []string{"acct:XXXXXXXXXXXX4821"}, "Sapphire", IdentifierCardDigits},
		{"a card named by its last digits", card, nil, "Sapphire …4821", IdentifierCardDigits},
		{"another card with the same last digits, both whole", card, []string{"acct:5555444433334821"}, "Sapphire", ""},
		{"digits inside a longer number", card, nil, "Order 148213", ""},
		{"a bank account's last digits are no card's", bankfile.Account{Number: "1234564821", Kind: bankfile.KindChecking}, nil, "Checking 4821", ""},
		{"the strongest of several", mt940, []string{"acct:XXXX", "iban:DE89370400440532013000", "acct:37040044/0532013000"}, "", IdentifierLinked},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := identifierMatch(c.st, c.keys, c.acct); got != c.want {
				t.Errorf("identifierMatch = %q, want %q", got, c.want)
			}
		})
	}
}

// Candidates are ranked by identifier, then currency, then balance, an account of the
// statement's type first among equals; one in another currency never comes first, but for
// the account a person chose for the key before.
func TestCandidateRanking(t *testing.T) {
	ids := map[string]uuid.UUID{}
	c := func(name, identifier string, sameCurrency, continues bool) AccountCandidate {
		ids[name] = uuid.New()
		return AccountCandidate{AccountID: ids[name], Name: name, Identifier: identifier, SameCurrency: sameCurrency, BalanceContinues: continues}
	}
	cands := []AccountCandidate{
		c("USD account with the IBAN's number", IdentifierNumberInIBAN, false, false),
		c("EUR savings", "", true, false),
		c("EUR account whose balance carries on", "", true, true),
		c("EUR card", IdentifierCardDigits, true, false),
		c("EUR account with the IBAN's number", IdentifierNumberInIBAN, true, true),
	}
	typed := map[string]bool{"EUR savings": true}
	slices.SortStableFunc(cands, func(x, y AccountCandidate) int { return compareCandidates(x, y, typed[x.Name], typed[y.Name]) })
	var got []string
	for _, x := range cands {
		got = append(got, x.Name)
	}
	want := []string{"EUR account with the IBAN's number", "EUR card", "EUR account whose balance carries on", "EUR savings", "USD account with the IBAN's number"}
	if !slices.Equal(got, want) {
		t.Fatalf("ranked\n%q\nwant\n%q", got, want)
	}
	linked := c("USD account chosen before", IdentifierLinked, false, false)
	if compareCandidates(linked, cands[0], false, false) >= 0 {
		t.Error("the account chosen for the key before is not first")
	}

	opening := decimal.RequireFromString("1234.56")
	for _, s := range []struct {
		c    AccountCandidate
		open decimal.Decimal
		want bool
	}{
		{cands[0], opening, true},
		{AccountCandidate{SameCurrency: true, BalanceContinues: true}, opening, true},
		{AccountCandidate{SameCurrency: true, BalanceContinues: true}, decimal.Zero, false},  // an empty account meets any empty statement
		{AccountCandidate{SameCurrency: true}, opening, false},                               // the only account in the currency is no evidence
		{AccountCandidate{SameCurrency: true, SameKind: true, OnlyFit: true}, opening, true}, // but the only one of its kind too is
		{AccountCandidate{Identifier: IdentifierNumberInIBAN}, opening, false},               // in another currency
		{linked, opening, true},
	} {
		if got := suggested(s.c, s.open); got != s.want {
			t.Errorf("suggested(%+v, %s) = %v", s.c, s.open, got)
		}
	}
}

// An account is of a statement's kind when it has the type a new account would have, and for a
// checking or savings statement, the same subtype or none.
func TestSameKind(t *testing.T) {
	checking := StatementAccount{Kind: bankfile.KindChecking, Type: "Depository"}
	for _, c := range []struct {
		name         string
		typ, subtype string
		st           StatementAccount
		want         bool
	}{
		{"a checking account", "Depository", "checking", checking, true},
		{"a bank account that says no subtype", "Depository", "", checking, true},
		{"a savings account", "Depository", "savings", checking, false},
		{"a card", "CreditCard", "", checking, false},
		{"any bank account for a file that does not say", "Depository", "savings", StatementAccount{Kind: bankfile.KindOther, Type: "Depository"}, true},
		{"a card for a card statement", "CreditCard", "credit_card", StatementAccount{Kind: bankfile.KindCreditCard, Type: "CreditCard"}, true},
	} {
		if got := sameKind(&models.Account{AccountableType: c.typ, Subtype: c.subtype}, c.st); got != c.want {
			t.Errorf("%s: sameKind = %v", c.name, got)
		}
	}
}
