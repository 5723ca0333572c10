package banksync

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tally/models"
)

func TestParseSetupToken(t *testing.T) {
	claim := "https://bridge.example.com/simplefin/claim/abc"
	enc := base64.StdEncoding.EncodeToString([]byte(claim))
	strict := &Client{}
	for _, tok := range []string{enc, " " + enc[:10] + "\n" + enc[10:] + "\n", base64.RawURLEncoding.EncodeToString([]byte(claim))} {
		u, err := strict.ParseSetupToken(tok)
		if err != nil || u.String() != claim {
			t.Errorf("token %q: %v %v", tok, u, err)
		}
	}
	for _, c := range []struct{ token, want string }{
		{"", "Paste the setup token"},
		{"not base64 at all!", "not a setup token"},
		{base64.StdEncoding.EncodeToString([]byte("hello")), "does not hold a claim URL"},
		{base64.StdEncoding.EncodeToString([]byte("http://bridge.example.com/claim/x")), "not https"},
		{base64.StdEncoding.EncodeToString([]byte("https://127.0.0.1/claim/x")), "private address"},
		{base64.StdEncoding.EncodeToString([]byte("https://10.1.2.3/claim/x")), "private address"},
		{base64.StdEncoding.EncodeToString([]byte("https://localhost/claim/x")), "private address"},
	} {
		if _, err := strict.ParseSetupToken(c.token); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("token %q: %v, want %q", c.token, err, c.want)
		}
	}
	insecure := &Client{AllowInsecure: true}
	if _, err := insecure.ParseSetupToken(base64.StdEncoding.EncodeToString([]byte("http://127.0.0.1:8787/claim/x"))); err != nil {
		t.Errorf("insecure mode refused a local token: %v", err)
	}
}

func TestDecodeAccountSetBothShapes(t *testing.T) {
	v1 := `{"errors":["Connection to Bank may need attention"],"accounts":[{"org":{"name":"First Bank"},"id":"A1","name":"Checking",
		"currency":"USD","balance":"100.50","balance-date":1735819200,"transactions":[
		{"id":"T1","posted":1735819200,"amount":"-12.34","description":"Coffee","payee":"Cafe"},
		{"id":"T2","posted":0,"transacted_at":"1735905600","amount":5,"description":"Refund","pending":true},
		{"id":"T3","posted":0,"amount":"1","description":"no date"}]}]}`
	set, err := decodeAccountSet([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	a := set.Accounts[0]
	if len(set.Errors) != 1 || a.Institution != "First Bank" || !a.Balance.Equal(decimal.RequireFromString("100.5")) || len(a.Transactions) != 2 {
		t.Fatalf("v1: %+v", set)
	}
	if tx := a.Transactions[1]; !tx.Pending || tx.Posted != nil || !tx.TransactedAt.Equal(time.Unix(1735905600, 0)) {
		t.Fatalf("pending transaction %+v", tx)
	}
	v2 := `{"errlist":[{"code":"act.failed","msg":"try later","account_id":"A2"}],"connections":[{"conn_id":"C1","name":"Card Co"}],
		"accounts":[{"conn_id":"C1","id":"A1","name":"Visa","currency":"usd","balance":"-50","available-balance":"950","balance-date":"1735819200"}]}`
	set, err = decodeAccountSet([]byte(v2))
	if err != nil || set.Errors[0].AccountID != "A2" || set.Accounts[0].Institution != "Card Co" || set.Accounts[0].Currency != "USD" {
		t.Fatalf("v2: %+v %v", set, err)
	}
	if _, err := decodeAccountSet([]byte(`{"accounts": [`)); err == nil {
		t.Fatal("malformed JSON decoded")
	}
}

func TestWindowsAreAtMostSixtyDays(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ws := windows(from, from.AddDate(0, 0, 150))
	if len(ws) != 3 || !ws[0][0].Equal(from) || !ws[2][1].Equal(from.AddDate(0, 0, 150)) {
		t.Fatalf("windows %v", ws)
	}
	for _, w := range ws {
		if w[1].Sub(w[0]) > window || !w[0].Before(w[1]) {
			t.Fatalf("window %v", w)
		}
	}
}

func TestSignRules(t *testing.T) {
	d := decimal.RequireFromString
	for _, c := range []struct {
		typ, provider, want string
	}{{"CreditCard", "-123.45", "123.45"}, {"CreditCard", "75", "-75"}, {"Loan", "-50000", "50000"}, {"Loan", "50000", "50000"}, {"Depository", "-5", "-5"}} {
		if got := tallyBalance(c.typ, d(c.provider)); !got.Equal(d(c.want)) {
			t.Errorf("%s %s: %s, want %s", c.typ, c.provider, got, c.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	neg, pos := decimal.NewFromInt(-10), decimal.NewFromInt(100)
	for _, c := range []struct {
		acct BankAccount
		want string
	}{
		{BankAccount{Name: "Everyday Checking"}, "Depository"},
		{BankAccount{Name: "Sapphire Visa"}, "CreditCard"},
		{BankAccount{Name: "Account 4411", Balance: &neg, AvailableBalance: &pos}, "CreditCard"},
		{BankAccount{Name: "Roth IRA"}, "Investment"},
		{BankAccount{Name: "Home Mortgage"}, "Loan"},
	} {
		if got, _ := Suggest(&c.acct); got != c.want {
			t.Errorf("%s: %s, want %s", c.acct.Name, got, c.want)
		}
	}
}

// TestProviderTextIsBounded keeps a provider's names as far as a name goes, cut between two
// characters (the 300 bytes cut before could split one, which PostgreSQL refuses), and a
// transaction's payee and description together too.
func TestProviderTextIsBounded(t *testing.T) {
	long := strings.Repeat("ü", 400)
	got := sanitize(long)
	if utf8.RuneCountInString(got) != models.MaxName || !utf8.ValidString(got) {
		t.Fatalf("a long name kept %d characters, valid UTF-8 %v", utf8.RuneCountInString(got), utf8.ValidString(got))
	}
	name := entryName(Transaction{Payee: sanitize(long), Description: sanitize(strings.Repeat("d", 400))})
	if utf8.RuneCountInString(name) != models.MaxName || !utf8.ValidString(name) {
		t.Fatalf("payee and description: %d characters", utf8.RuneCountInString(name))
	}
}
