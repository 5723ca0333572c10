package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tally/app/apptest"
	"tally/testkit"
)

// chaseQFX is an older Quicken download of a Chase checking account ending 4321, in dollars:
// September 2026, two months before the balance its household typed.
func chaseQFX(accounts ...string) string {
	if len(accounts) == 0 {
		accounts = []string{"000000654321"}
	}
	var b strings.Builder
	b.WriteString("OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\n" +
		"COMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n" +
		"<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20261001120000[-4:EDT]<LANGUAGE>ENG" +
		"<FI><ORG>B1<FID>10898</FI><INTU.BID>10898<INTU.USERID>household</SONRS></SIGNONMSGSRSV1>\r\n<BANKMSGSRSV1>\r\n")
	for i, acct := range accounts {
		b.WriteString("<STMTTRNRS><TRNUID>" + string(rune('1'+i)) + "<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n" +
			"<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>021000021<ACCTID>" + acct + "<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n" +
			"<BANKTRANLIST><DTSTART>20260901<DTEND>20260930\r\n" +
			"<STMTTRN><TRNTYPE>DIRECTDEP<DTPOSTED>20260915120000[-4:EDT]<TRNAMT>2450.00<FITID>" + acct + "-0915<NAME>ACME CORP PAYROLL</STMTTRN>\r\n" +
			"<STMTTRN><TRNTYPE>POS<DTPOSTED>20260918120000[-4:EDT]<TRNAMT>-84.12<FITID>" + acct + "-0918<NAME>WHOLEFDS MKT 10234</STMTTRN>\r\n" +
			"</BANKTRANLIST><LEDGERBAL><BALAMT>3210.55<DTASOF>20260930120000[-4:EDT]</LEDGERBAL></STMTRS></STMTTRNRS>\r\n")
	}
	b.WriteString("</BANKMSGSRSV1></OFX>\r\n")
	return b.String()
}

// The household: it typed today's balance for Chase Checking, its only dollar account
// (a checking account), beside a euro Girokonto, and uploads an older QFX of the account ending
// 4321. Nothing links the file to the account and the balance does not carry on (the months
// between are not in Tally yet), but Chase Checking is the only account the file can be: it is
// preselected, through the API and on the import's page, which says why; the Girokonto is never
// offered first. Publishing puts the entries there. Where the family or the file leaves the
// choice open, it stays a new account.
func TestStatementGoesToTheOnlyAccountOfItsCurrencyAndKind(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	e.c.SignIn(e.user.Email, testkit.Password)
	account := func(name, typ, subtype, currency string) string {
		return e.mustPost(t, "/api/v1/accounts", map[string]any{"name": name, "accountable_type": typ, "subtype": subtype, "currency": currency, "balance": "5000.00"})
	}
	giro := account("Girokonto", "Depository", "checking", "EUR")
	chase := account("Chase Checking", "Depository", "checking", "USD")
	upload := func(t *testing.T, file string) statementAccounts {
		t.Helper()
		var b statementAccounts
		e.create(t, map[string]any{"type": "auto", "raw_file_content": file}, http.StatusCreated).JSON(t, &b)
		return b
	}

	up := upload(t, chaseQFX())
	a := up.Data.Statements.Statements[0].Account
	if a.Suggested != chase || a.Reason != "your only USD checking account" {
		t.Fatalf("suggested %q because %q, want Chase Checking as the only USD checking account; candidates %+v", a.Suggested, a.Reason, a.Candidates)
	}
	if len(a.Candidates) != 1 || a.Candidates[0].AccountID != chase || !a.Candidates[0].OnlyFit || a.Candidates[0].BalanceContinues {
		t.Errorf("candidates %+v, want Chase Checking alone, fitting though its balance does not carry on", a.Candidates)
	}

	doc := e.c.Get("/imports/" + up.Data.ID).Doc(t)
	var values []string
	doc.Find(`[data-testid="statement-mapping-target"] option`).Each(func(_ int, o *goquery.Selection) {
		v, _ := o.Attr("value")
		values = append(values, v)
	})
	selected, _ := doc.Find(`[data-testid="statement-mapping-target"] option[selected]`).Attr("value")
	if len(values) < 2 || values[0] != chase || selected != chase || values[len(values)-1] != giro || !strings.HasPrefix(values[1], "new:") {
		t.Errorf("the page offers %v and selects %q: want Chase Checking first and selected, new accounts next, the Girokonto last", values, selected)
	}
	if got := strings.TrimSpace(doc.Find(`[data-testid="statement-mapping-reason"]`).Text()); got != "Suggested: your only USD checking account." {
		t.Errorf("the page says %q about the suggestion", got)
	}

	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+up.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	if done := e.waitFor(t, up.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM entries e JOIN accounts a ON a.id = e.account_id WHERE a.name = 'Chase Checking' AND e.kind = 'transaction'"); n != 2 {
		t.Errorf("%d of the file's entries are in Chase Checking, want 2", n)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 2 {
		t.Errorf("%d accounts after publishing, want no new one", n)
	}

	// The file's account is now linked to Chase Checking: another account's file is not
	// Chase Checking's, even as the only USD checking account.
	t.Run("an account another file's account went to", func(t *testing.T) {
		a := upload(t, chaseQFX("000000659999")).Data.Statements.Statements[0].Account
		if a.Suggested != "" || len(a.Candidates) != 1 || a.Candidates[0].OnlyFit {
			t.Errorf("suggested %q with candidates %+v, want a new account", a.Suggested, a.Candidates)
		}
	})
	t.Run("a file of two checking accounts in dollars", func(t *testing.T) {
		f := upload(t, chaseQFX("000000651111", "000000652222")).Data.Statements.Statements
		if len(f) != 2 || f[0].Account.Suggested != "" || f[1].Account.Suggested != "" {
			t.Errorf("statements %+v, want each to a new account", f)
		}
	})
	t.Run("a savings account is no checking account's home", func(t *testing.T) {
		other := newImportEnv(t, apptest.ServerOptions{})
		other.mustPost(t, "/api/v1/accounts", map[string]any{"name": "Chase Savings", "accountable_type": "Depository", "subtype": "savings", "currency": "USD", "balance": "100"})
		var b statementAccounts
		other.create(t, map[string]any{"type": "auto", "raw_file_content": chaseQFX()}, http.StatusCreated).JSON(t, &b)
		if a := b.Data.Statements.Statements[0].Account; a.Suggested != "" || len(a.Candidates) != 1 || a.Candidates[0].SameKind {
			t.Errorf("suggested %q with candidates %+v, want a new account", a.Suggested, a.Candidates)
		}
	})
	t.Run("two checking accounts in dollars", func(t *testing.T) {
		other := newImportEnv(t, apptest.ServerOptions{})
		for _, name := range []string{"Chase Checking", "Joint Checking"} {
			other.mustPost(t, "/api/v1/accounts", map[string]any{"name": name, "accountable_type": "Depository", "subtype": "checking", "currency": "USD", "balance": "100"})
		}
		var b statementAccounts
		other.create(t, map[string]any{"type": "auto", "raw_file_content": chaseQFX()}, http.StatusCreated).JSON(t, &b)
		if a := b.Data.Statements.Statements[0].Account; a.Suggested != "" || len(a.Candidates) != 2 {
			t.Errorf("suggested %q with candidates %+v, want a new account", a.Suggested, a.Candidates)
		}
	})
}
