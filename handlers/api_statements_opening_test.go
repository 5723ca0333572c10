package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
)

// camtOfPeriod builds a camt document of message (camt.052 or camt.053) in version ("02",
// "08") for one EUR account over November 2026 (FrToDt 01.11.–30.11.), which opens with
// opening dated openDate and books a salary on 03.11. and a bakery on 05.11.; it closes on
// 30.11. The older versions write the status as text and the other party's name in Nm, the
// newer ones in Cd and Pty/Nm.
func camtOfPeriod(message, version, iban string, opening decimal.Decimal, openDate string) string {
	root, stmt := "BkToCstmrStmt", "Stmt"
	if message == "camt.052" {
		root, stmt = "BkToCstmrAcctRpt", "Rpt"
	}
	status, party := "<Sts>BOOK</Sts>", func(tag, name string) string { return "<" + tag + "><Nm>" + name + "</Nm></" + tag + ">" }
	if version >= "04" {
		status = "<Sts><Cd>BOOK</Cd></Sts>"
		party = func(tag, name string) string { return "<" + tag + "><Pty><Nm>" + name + "</Nm></Pty></" + tag + ">" }
	}
	bal := func(code string, amount decimal.Decimal, date string) string {
		return fmt.Sprintf(`<Bal><Tp><CdOrPrtry><Cd>%s</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">%s</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>`,
			code, amount.StringFixed(2), date)
	}
	entry := func(ref, date, ind, amount, tag, name string) string {
		return fmt.Sprintf(`<Ntry><Amt Ccy="EUR">%s</Amt><CdtDbtInd>%s</CdtDbtInd>%s<BookgDt><Dt>%s</Dt></BookgDt><ValDt><Dt>%s</Dt></ValDt>
<AcctSvcrRef>%s</AcctSvcrRef><NtryDtls><TxDtls><RltdPties>%s</RltdPties><RmtInf><Ustrd>%s</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
			amount, ind, status, date, date, ref, party(tag, name), name)
	}
	closing := opening.Add(decimal.RequireFromString("2454.40"))
	return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:` + message + `.001.` + version + `">
<` + root + `><GrpHdr><MsgId>` + message + `-` + version + `</MsgId><CreDtTm>2026-12-01T06:00:00</CreDtTm></GrpHdr>
<` + stmt + `><Id>` + iban + `-11</Id><CreDtTm>2026-12-01T06:00:00</CreDtTm>
<FrToDt><FrDtTm>2026-11-01T00:00:00</FrDtTm><ToDtTm>2026-11-30T23:59:59</ToDtTm></FrToDt>
<Acct><Id><IBAN>` + iban + `</IBAN></Id><Ccy>EUR</Ccy></Acct>
` + bal("OPBD", opening, openDate) + `
` + bal("CLBD", closing, "2026-11-30") + `
` + entry(iban+"-1", "2026-11-03", "CRDT", "2500.00", "Dbtr", "Acme GmbH") + `
` + entry(iban+"-2", "2026-11-05", "DBIT", "45.60", "Cdtr", "Baeckerei Wimmer") + `
</` + stmt + `></` + root + `></Document>
`
}

// The November statement: FrToDt 01.11.–30.11., and an opening balance some banks date
// 31.10. (the close of the day before the period, as many write it) and others 01.11. (the
// period's first day). Either way it is the balance at the end of 31.10., when the account
// already holds its typed October balance less a 31.62 debit booked that day. So the account
// is suggested, its balance continuing to the cent; and once the file is published into it,
// the statement's opening balance meets the ledger, and the account shows no difference. Read
// as the end of 30.10., the 31.10. balance was 31.62 off for good. For camt.053 and camt.052
// (a report of past days, which states its closing balance), in an old and a new version.
func TestCamtOpeningBalanceIsReadWithItsPeriod(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	ctx := context.Background()
	n := 0
	for _, message := range []string{"camt.053", "camt.052"} {
		for _, version := range []string{"02", "08"} {
			for _, shape := range []struct{ name, openDate string }{
				{"dated the day before the period", "2026-10-31"},
				{"dated the period's first day", "2026-11-01"},
			} {
				n++
				iban := fmt.Sprintf("DE%02d370400440532013%03d", 10+n, n)
				opening := decimal.New(int64(100000+n), -2) // each account's own balance, so that only it continues
				t.Run(message+"."+version+" "+shape.name, func(t *testing.T) {
					// Typed as the balance at the end of 30.10., then a debit of 31.62 on 31.10.
					typed := opening.Add(decimal.RequireFromString("31.62"))
					acct, err := models.CreateAccount(ctx, e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Girokonto " + iban[len(iban)-4:],
						AccountableType: "Depository", Subtype: "checking", Currency: "EUR", Balance: &typed,
						BalanceDate: time.Date(2026, 10, 30, 23, 59, 59, 0, time.UTC)})
					if err != nil {
						t.Fatal(err)
					}
					e.mustPost(t, "/api/v1/transactions", map[string]any{"account_id": acct.ID, "date": "2026-10-31", "amount": "31.62", "name": "Stadtwerke"})

					file := camtOfPeriod(message, version, iban, opening, shape.openDate)
					var up statementAccounts
					e.create(t, map[string]any{"type": "CamtImport", "raw_file_content": file}, http.StatusCreated).JSON(t, &up)
					a := up.Data.Statements.Statements[0].Account
					if a.Suggested != acct.ID.String() || len(a.Candidates) == 0 || !a.Candidates[0].BalanceContinues {
						t.Errorf("suggested %q with candidates %+v, want %s, whose balance continues", a.Suggested, a.Candidates, acct.ID)
						// Chosen by hand, as a person would, to see what publishing does.
						if r := e.c.API(http.MethodPatch, "/api/v1/imports/"+up.Data.ID+"/mappings", e.write,
							map[string]any{"key": a.Key, "account_id": acct.ID}); r.Status != http.StatusOK {
							t.Fatalf("map the statement to the account: %d %s", r.Status, r.Body)
						}
					}

					if r := e.c.API(http.MethodPost, "/api/v1/imports/"+up.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
						t.Fatalf("publish: %d %s", r.Status, r.Body)
					}
					if done := e.waitFor(t, up.Data.ID); done.Data.Status != "complete" {
						t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
					}
					var detail struct {
						Data struct {
							Statements struct {
								Statements []struct {
									Intraday     bool `json:"intraday"`
									OpeningCheck *struct {
										Status, Difference string
									} `json:"opening_check"`
									LedgerCheck *struct{ Status string } `json:"ledger_check"`
								} `json:"statements"`
							} `json:"statements"`
						} `json:"data"`
					}
					e.c.API(http.MethodGet, "/api/v1/imports/"+up.Data.ID, e.read, nil).JSON(t, &detail)
					st := detail.Data.Statements.Statements[0]
					if st.Intraday || st.OpeningCheck == nil || st.OpeningCheck.Status != "matched" || st.LedgerCheck == nil || st.LedgerCheck.Status != "matched" {
						t.Errorf("after publish: intraday %v, opening check %+v, closing check %+v; want both matched", st.Intraday, st.OpeningCheck, st.LedgerCheck)
					}
					recon := e.reconciliation(t, acct.ID)
					if recon.Meta.Differences != 0 || !strings.Contains(recon.summary(), "2026-10-31 "+opening.StringFixed(2)+"/"+opening.StringFixed(2)+" matches") {
						t.Errorf("the account's checkpoints: %s (%d differ), want the opening balance at the end of 31.10. matching", recon.summary(), recon.Meta.Differences)
					}
				})
			}
		}
	}
}
