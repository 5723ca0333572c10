package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestFirstStatementGoesToTheAccountTypedByHand is the household of the issue: it typed today's
// balance for Chase Checking, its only dollar account, beside a euro Girokonto, then drops an
// older QFX of the account ending 4321 on the New import page. The page preselects Chase
// Checking and says why; publishing puts the entries there, and no account is made.
func TestFirstStatementGoesToTheAccountTypedByHand(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	balance := decimal.RequireFromString("5000")
	for _, in := range []models.AccountInput{
		{Name: "Girokonto", AccountableType: "Depository", Subtype: "checking", Currency: "EUR", Balance: &balance},
		{Name: "Chase Checking", AccountableType: "Depository", Subtype: "checking", Currency: "USD", Balance: &balance},
	} {
		if _, err := models.CreateAccount(context.Background(), srv.DB, u.FamilyID, in); err != nil {
			t.Fatal(err)
		}
	}
	var chase string
	if err := srv.DB.NewRaw("SELECT id::text FROM accounts WHERE name = 'Chase Checking'").Scan(context.Background(), &chase); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "Chase4321_Activity_20260930.qfx")
	qfx := "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\n" +
		"COMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n" +
		"<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20261001120000[-4:EDT]<LANGUAGE>ENG" +
		"<FI><ORG>B1<FID>10898</FI><INTU.BID>10898<INTU.USERID>household</SONRS></SIGNONMSGSRSV1>\r\n" +
		"<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n" +
		"<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>021000021<ACCTID>000000654321<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n" +
		"<BANKTRANLIST><DTSTART>20260901<DTEND>20260930\r\n" +
		"<STMTTRN><TRNTYPE>DIRECTDEP<DTPOSTED>20260915120000[-4:EDT]<TRNAMT>2450.00<FITID>2026091501<NAME>ACME CORP PAYROLL</STMTTRN>\r\n" +
		"<STMTTRN><TRNTYPE>POS<DTPOSTED>20260918120000[-4:EDT]<TRNAMT>-84.12<FITID>2026091801<NAME>WHOLEFDS MKT 10234</STMTTRN>\r\n" +
		"</BANKTRANLIST><LEDGERBAL><BALAMT>3210.55<DTASOF>20260930120000[-4:EDT]</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n"
	if err := os.WriteFile(file, []byte(qfx), 0o600); err != nil {
		t.Fatal(err)
	}

	step(t, "the page preselects the only dollar checking account and says why", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/imports/new")
		uploadFile(t, ctx, "field-file", file)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "statement")
		if got := inputValue(t, ctx, "statement-mapping-target"); got != chase {
			t.Fatalf("the statement maps to %q, want Chase Checking", got)
		}
		wantText(t, ctx, "statement-mapping-reason", "Suggested: your only USD checking account.")
		shot(t, ctx, "import-statement-only-account")
	})

	step(t, "publishing puts its entries there", func(t *testing.T) {
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		wantText(t, ctx, "statement-mapping-account", "Chase Checking")
		var entries, accounts int
		if err := srv.DB.NewRaw(`SELECT (SELECT count(*) FROM entries WHERE account_id = ?::uuid AND kind = 'transaction'),
				(SELECT count(*) FROM accounts WHERE family_id = ?)`, chase, u.FamilyID).Scan(context.Background(), &entries, &accounts); err != nil {
			t.Fatal(err)
		}
		if entries != 2 || accounts != 2 {
			t.Errorf("%d entries in Chase Checking and %d accounts, want 2 and 2", entries, accounts)
		}
	})
}
