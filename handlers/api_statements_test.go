package handlers_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// statementBody is an ImportDetail with its statement file.
type statementBody struct {
	Data struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		Status     string `json:"status"`
		Statements struct {
			Format     string `json:"format"`
			Statements []struct {
				Account struct {
					Key, Display, Kind, Currency, Name string
					Type                               string `json:"account_type"`
				} `json:"account"`
				EntriesCount   int     `json:"entries_count"`
				PendingCount   int     `json:"pending_count"`
				EntriesSum     string  `json:"entries_sum"`
				Reconciliation string  `json:"reconciliation"`
				Difference     *string `json:"difference"`
				LedgerCheck    *struct {
					Status     string  `json:"status"`
					Ledger     *string `json:"ledger_balance"`
					Difference *string `json:"difference"`
				} `json:"ledger_check"`
				Notes []string `json:"notes"`
			} `json:"statements"`
			Matches *struct {
				New           int `json:"new"`
				ByBankID      int `json:"duplicates_by_bank_id"`
				ByContent     int `json:"duplicates_by_content"`
				Corrected     int `json:"corrected"`
				PendingBooked int `json:"pending_booked"`
				InFile        int `json:"duplicates_in_file"`
				Balances      int `json:"balances_recorded"`
			} `json:"matches"`
		} `json:"statements"`
		Stats struct {
			RowsCount          int `json:"rows_count"`
			DuplicateRowsCount int `json:"duplicate_rows_count"`
		} `json:"stats"`
	} `json:"data"`
}

// statement uploads a bank file with publish=true and waits for it to end complete.
func (e *importEnv) statement(t *testing.T, typ, content string, extra ...string) statementBody {
	t.Helper()
	body := map[string]any{"type": typ, "raw_file_content": content, "publish": "true"}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i]] = extra[i+1]
	}
	var created importBody
	e.create(t, body, http.StatusCreated).JSON(t, &created)
	if done := e.waitFor(t, created.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("%s ended %s: %v\nserver log:\n%s", typ, done.Data.Status, deref(done.Data.Error), e.srv.Logs.String())
	}
	return e.statementDetail(t, created.Data.ID)
}

func (e *importEnv) statementDetail(t *testing.T, id string) statementBody {
	t.Helper()
	var b statementBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+id, e.read, nil).JSON(t, &b)
	return b
}

// accountState is an account's balance and its entries, one "date amount name [pending]
// (external id)" a line, valuations included.
func (e *importEnv) accountState(t *testing.T, accountID uuid.UUID) (balance string, entries []string) {
	t.Helper()
	balance = e.strings(t, "SELECT balance::numeric(19,2)::text FROM accounts WHERE id = ?", accountID)[0]
	entries = e.strings(t, `SELECT e.kind || ' ' || e.date || ' ' || e.amount::numeric(19,2) || ' ' || e.name
			|| CASE WHEN e.pending THEN ' [pending]' ELSE '' END || ' (' || coalesce(e.external_id, '-') || ')'
		FROM entries e WHERE e.account_id = ? ORDER BY e.date, e.kind, e.external_id`, accountID)
	return balance, entries
}

func (e *importEnv) accountByKey(t *testing.T, key string) uuid.UUID {
	t.Helper()
	ids := e.strings(t, "SELECT account_id::text FROM account_identifiers WHERE family_id = ? AND key = ?", e.user.FamilyID, key)
	if len(ids) != 1 {
		t.Fatalf("account identifier %s is linked to %d accounts", key, len(ids))
	}
	return uuid.MustParse(ids[0])
}

// camt053 builds a camt.053.001.08 statement of one account from entries written as
// "ref date CRDT|DBIT amount name".
func camt053(iban, opening, openDate, closing, closeDate string, entries ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
<BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-03-06T08:00:00</CreDtTm></GrpHdr>
<Stmt><Id>S-` + closeDate + `</Id><CreDtTm>2026-03-06T08:00:00</CreDtTm>
<Acct><Id><IBAN>` + iban + `</IBAN></Id><Ccy>EUR</Ccy></Acct>
`)
	bal := func(code, amount, date string) {
		ind := "CRDT"
		if strings.HasPrefix(amount, "-") {
			ind, amount = "DBIT", amount[1:]
		}
		fmt.Fprintf(&b, "<Bal><Tp><CdOrPrtry><Cd>%s</Cd></CdOrPrtry></Tp><Amt Ccy=\"EUR\">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>\n", code, amount, ind, date)
	}
	bal("OPBD", opening, openDate)
	bal("CLBD", closing, closeDate)
	for _, e := range entries {
		f := strings.SplitN(e, " ", 5)
		party := "Dbtr"
		if f[2] == "DBIT" {
			party = "Cdtr"
		}
		fmt.Fprintf(&b, `<Ntry><NtryRef>%[1]s</NtryRef><Amt Ccy="EUR">%[4]s</Amt><CdtDbtInd>%[3]s</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>%[2]s</Dt></BookgDt><ValDt><Dt>%[2]s</Dt></ValDt><AcctSvcrRef>%[1]s</AcctSvcrRef>
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RltdPties><%[6]s><Pty><Nm>%[5]s</Nm></Pty></%[6]s></RltdPties>
<RmtInf><Ustrd>Payment %[1]s</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
`, f[0], f[1], f[2], f[3], f[4], party)
	}
	b.WriteString("</Stmt></BkToCstmrStmt></Document>\n")
	return b.String()
}

const testIBAN = "DE89370400440532013000"

func TestCamtStatementsReconcileAndAnOverlappingFileAddsNothing(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	first := e.statement(t, "CamtImport", camt053(testIBAN, "1000.00", "2026-03-02", "3334.40", "2026-03-04",
		"REF1 2026-03-02 CRDT 2500.00 Acme Payroll", "REF2 2026-03-03 DBIT 45.60 Corner Bakery", "REF3 2026-03-04 DBIT 120.00 City Power"))
	st := first.Data.Statements.Statements
	if len(st) != 1 || st[0].Reconciliation != "reconciled" || st[0].EntriesCount != 3 || st[0].EntriesSum != "2334.4" {
		t.Fatalf("statement summary: %+v", st)
	}
	if a := st[0].Account; a.Key != "iban:"+testIBAN || a.Currency != "EUR" || a.Type != "Depository" {
		t.Fatalf("account: %+v", a)
	}
	if m := first.Data.Statements.Matches; m == nil || m.New != 3 || m.Balances != 1 {
		t.Fatalf("matches: %+v", m)
	}
	acct := e.accountByKey(t, "iban:"+testIBAN)
	balance, entries := e.accountState(t, acct)
	want := []string{
		"valuation 2026-03-01 1000.00 Opening balance (balance:2026-03-01)",
		"transaction 2026-03-02 -2500.00 Acme Payroll (REF1)",
		"transaction 2026-03-03 45.60 Corner Bakery (REF2)",
		"transaction 2026-03-04 120.00 City Power (REF3)",
		"valuation 2026-03-04 3334.40 Statement closing balance (balance:2026-03-04)",
	}
	if balance != "3334.40" || strings.Join(entries, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the first statement: balance %s\n%s", balance, strings.Join(entries, "\n"))
	}
	if cur := e.strings(t, "SELECT currency || ' ' || accountable_type || ' ' || name FROM accounts WHERE id = ?", acct); cur[0] != "EUR Depository Bank account …3000" {
		t.Fatalf("created account: %s", cur[0])
	}

	// The next day's statement repeats REF3 and adds REF4: the account maps itself, REF3 is
	// a duplicate by bank id, and the ledger meets the bank's closing balance.
	second := e.statement(t, "CamtImport", camt053(testIBAN, "3454.40", "2026-03-04", "3304.40", "2026-03-05",
		"REF3 2026-03-04 DBIT 120.00 City Power", "REF4 2026-03-05 DBIT 30.00 Book Shop"))
	if m := second.Data.Statements.Matches; m == nil || m.New != 1 || m.ByBankID != 1 || m.ByContent != 0 {
		t.Fatalf("second matches: %+v", m)
	}
	if lc := second.Data.Statements.Statements[0].LedgerCheck; lc == nil || lc.Status != "matched" || deref(lc.Ledger) != "3304.4" {
		t.Fatalf("ledger check: %+v", lc)
	}
	if second.Data.Stats.DuplicateRowsCount != 1 {
		t.Fatalf("duplicate rows: %d", second.Data.Stats.DuplicateRowsCount)
	}
	rows := e.c.API(http.MethodGet, "/api/v1/imports/"+second.Data.ID+"/rows?only=duplicate", e.read, nil)
	if !strings.Contains(rows.Body, `"matched_by":"bank_id"`) {
		t.Fatalf("duplicate rows do not say which rule matched: %s", rows.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 1 {
		t.Fatalf("%d accounts, want the one the first file created", n)
	}

	// The bank corrects REF4 to 35.00 under the same id: the entry changes in place, and a
	// revert puts it back.
	third := e.statement(t, "CamtImport", camt053(testIBAN, "3334.40", "2026-03-05", "3299.40", "2026-03-05",
		"REF4 2026-03-05 DBIT 35.00 Book Shop"))
	if m := third.Data.Statements.Matches; m == nil || m.Corrected != 1 || m.New != 0 {
		t.Fatalf("third matches: %+v", m)
	}
	balance, entries = e.accountState(t, acct)
	if balance != "3299.40" || !contains(entries, "transaction 2026-03-05 35.00 Book Shop (REF4)") || len(entries) != 8 { // the second file's opening balance is a checkpoint too
		t.Fatalf("after the correction: balance %s\n%s", balance, strings.Join(entries, "\n"))
	}
	e.revert(t, third.Data.ID)
	balance, entries = e.accountState(t, acct)
	if balance != "3304.40" || !contains(entries, "transaction 2026-03-05 30.00 Book Shop (REF4)") {
		t.Fatalf("after reverting the correction: balance %s\n%s", balance, strings.Join(entries, "\n"))
	}

	// Reverting the first file removes what it made, but the account other entries use stays.
	e.revert(t, first.Data.ID)
	_, entries = e.accountState(t, acct)
	if contains(entries, "transaction 2026-03-02 -2500.00 Acme Payroll (REF1)") || !contains(entries, "transaction 2026-03-05 30.00 Book Shop (REF4)") {
		t.Fatalf("after reverting the first file:\n%s", strings.Join(entries, "\n"))
	}
}

func (e *importEnv) revert(t *testing.T, id string) {
	t.Helper()
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+id+"/revert", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", r.Status, r.Body)
	}
	if got := e.waitFor(t, id); got.Data.Status != "pending" {
		t.Fatalf("after revert: %s %s", got.Data.Status, deref(got.Data.Error))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestIntradayReportIsBookedByTheStatement(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	report := `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.06">
<BkToCstmrAcctRpt><GrpHdr><MsgId>R1</MsgId><CreDtTm>2026-04-07T12:00:00</CreDtTm></GrpHdr>
<Rpt><Id>R1</Id><CreDtTm>2026-04-07T12:00:00</CreDtTm><Acct><Id><IBAN>` + testIBAN + `</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">22.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts><BookgDt><Dt>2026-04-07</Dt></BookgDt><AcctSvcrRef>REF11</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Cdtr><Pty><Nm>Metro Tickets</Nm></Pty></Cdtr></RltdPties></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="EUR">15.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts><BookgDt><Dt>2026-04-07</Dt></BookgDt><AcctSvcrRef>PDG-1</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Cdtr><Pty><Nm>Cafe Lumen</Nm></Pty></Cdtr></RltdPties></TxDtls></NtryDtls></Ntry>
</Rpt></BkToCstmrAcctRpt></Document>
`
	first := e.statement(t, "auto", report)
	if first.Data.Type != "CamtImport" || first.Data.Statements.Statements[0].PendingCount != 2 || first.Data.Statements.Statements[0].Reconciliation != "intraday" {
		t.Fatalf("report: %+v", first.Data)
	}
	acct := e.accountByKey(t, "iban:"+testIBAN)
	if _, entries := e.accountState(t, acct); len(entries) != 2 || !strings.Contains(entries[0], "[pending]") {
		t.Fatalf("after the report:\n%s", strings.Join(entries, "\n"))
	}
	// The statement books REF11 under its id and the café under a new id a day later.
	stmt := camt053(testIBAN, "500.00", "2026-04-07", "417.50", "2026-04-08",
		"REF11 2026-04-07 DBIT 22.50 Metro Tickets", "BOOK-77 2026-04-08 DBIT 15.00 Cafe Lumen", "REF12 2026-04-08 DBIT 45.00 Grocer")
	second := e.statement(t, "CamtImport", stmt)
	if m := second.Data.Statements.Matches; m == nil || m.PendingBooked != 2 || m.New != 1 {
		t.Fatalf("matches: %+v", m)
	}
	_, entries := e.accountState(t, acct)
	want := []string{
		"transaction 2026-04-07 22.50 Metro Tickets (REF11)",
		"transaction 2026-04-08 15.00 Cafe Lumen (BOOK-77)",
		"transaction 2026-04-08 45.00 Grocer (REF12)",
		"valuation 2026-04-08 417.50 Balance from the bank's statement (balance:2026-04-08)", // the account had no balance: the bank's is its anchor
	}
	var txns []string
	for _, s := range entries {
		if !strings.HasPrefix(s, "valuation 2026-04-06") {
			txns = append(txns, s)
		}
	}
	if strings.Join(txns, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the statement:\n%s\nwant\n%s", strings.Join(entries, "\n"), strings.Join(want, "\n"))
	}
	// Reverting the statement brings the pending entries back as they were.
	e.revert(t, second.Data.ID)
	if _, entries := e.accountState(t, acct); len(entries) != 2 || !contains(entries, "transaction 2026-04-07 15.00 Cafe Lumen [pending] (PDG-1)") {
		t.Fatalf("after revert:\n%s", strings.Join(entries, "\n"))
	}
}

const cardOFX = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\n" +
	"COMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n" +
	"<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260310120000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>\r\n" +
	"<CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n" +
	"<CCSTMTRS><CURDEF>USD<CCACCTFROM><ACCTID>4111222233334444</CCACCTFROM>\r\n" +
	"<BANKTRANLIST><DTSTART>20260201<DTEND>20260228\r\n" +
	"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260205120000.000[-5:EST]<TRNAMT>-42.17<FITID>FIT-001<NAME>GROCERY OUTLET #12</STMTTRN>\r\n" +
	"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260209<TRNAMT>-7.83<FITID>FIT-002<NAME>CITY PARKING<MEMO>Meter 44</STMTTRN>\r\n" +
	"<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260215<TRNAMT>100.00<FITID>FIT-003<NAME>PAYMENT THANK YOU</STMTTRN>\r\n" +
	"</BANKTRANLIST><LEDGERBAL><BALAMT>-250.00<DTASOF>20260228</LEDGERBAL></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>\r\n"

func TestOFXCardStatementTwiceAddsNothing(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	first := e.statement(t, "auto", cardOFX)
	st := first.Data.Statements.Statements
	if first.Data.Type != "OfxImport" || len(st) != 1 || st[0].Reconciliation != "no_opening_balance" || st[0].Account.Type != "CreditCard" {
		t.Fatalf("card statement: %+v", first.Data)
	}
	acct := e.accountByKey(t, "acct:4111222233334444")
	balance, entries := e.accountState(t, acct)
	// A card balance is what is owed: the statement's -250.00 is a debt of 250.00.
	if balance != "250.00" || len(entries) != 4 || !contains(entries, "transaction 2026-02-05 42.17 GROCERY OUTLET #12 (FIT-001)") {
		t.Fatalf("card account: balance %s\n%s", balance, strings.Join(entries, "\n"))
	}
	if name := e.strings(t, "SELECT name FROM accounts WHERE id = ?", acct); name[0] != "Credit card …4444" {
		t.Fatalf("card account name: %s", name[0])
	}
	again := e.statement(t, "OfxImport", cardOFX)
	if m := again.Data.Statements.Matches; m == nil || m.New != 0 || m.ByBankID != 3 {
		t.Fatalf("the same file again: %+v", m)
	}
	if lc := again.Data.Statements.Statements[0].LedgerCheck; lc == nil || lc.Status != "matched" {
		t.Fatalf("ledger check of the repeated file: %+v", lc)
	}
	if _, after := e.accountState(t, acct); strings.Join(after, "\n") != strings.Join(entries, "\n") {
		t.Fatalf("the repeated file changed the account:\n%s", strings.Join(after, "\n"))
	}
}

func TestStatementWithoutBankIDsFallsBackToContent(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	e.publish(t, map[string]any{"raw_file_content": "date,amount,name\n2026-02-09,-7.83,City Parking\n", "date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	noIDs := strings.NewReplacer("<FITID>FIT-001", "", "<FITID>FIT-002", "", "<FITID>FIT-003", "", "CITY PARKING", "City  parking").Replace(cardOFX)
	b := e.statement(t, "OfxImport", noIDs, "account_id", acct.ID.String())
	if m := b.Data.Statements.Matches; m == nil || m.ByContent != 1 || m.New != 2 {
		t.Fatalf("matches: %+v", m)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct.ID); n != 3 {
		t.Fatalf("%d transactions, want 3", n)
	}
}

const germanMT940 = ":20:STARTUMS\r\n:25:37040044/0532013000\r\n:28C:00001/001\r\n:60F:C260302EUR1000,00\r\n" +
	":61:2603020302CR2500,00NTRFNONREF//B2603020001\r\n" +
	":86:153?00GEHALT?20EREF+PAYROLL-03?21SVWZ+Gehalt Maerz 2026?32ACME GMBH\r\n" +
	":61:2603030303DR45,60NDDTNONREF//B2603030002\r\n" +
	":86:105?00SEPA-LASTSCHRIFT?20EREF+R1?21MREF+M-77?22CRED+DE98ZZZ09999999999?23SVWZ+Brot und?24 Kuchen?32BAECKEREI \r\n" +
	":62F:C260303EUR3454,40\r\n-\r\n"

func TestMT940GermanStatement(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b := e.statement(t, "auto", germanMT940)
	st := b.Data.Statements.Statements
	if b.Data.Type != "Mt940Import" || len(st) != 1 || st[0].Reconciliation != "reconciled" || st[0].Account.Key != "acct:37040044/0532013000" {
		t.Fatalf("MT940: %+v", b.Data)
	}
	acct := e.accountByKey(t, "acct:37040044/0532013000")
	balance, entries := e.accountState(t, acct)
	if balance != "3454.40" || !contains(entries, "transaction 2026-03-02 -2500.00 ACME GMBH (B2603020001)") ||
		!contains(entries, "transaction 2026-03-03 45.60 BAECKEREI (B2603030002)") {
		t.Fatalf("MT940 account: %s\n%s", balance, strings.Join(entries, "\n"))
	}
	// The notes are the purpose; the mandate and the bank's codes are the row's details.
	notes := e.strings(t, "SELECT notes FROM entries WHERE account_id = ? AND external_id = 'B2603030002'", acct)
	if len(notes) != 1 || notes[0] != "Brot und Kuchen" {
		t.Fatalf("notes %q, want the purpose alone", notes)
	}
	var rows struct {
		Data []struct {
			Fields  map[string]string `json:"fields"`
			Details []struct{ Label, Value string }
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows", e.read, nil).JSON(t, &rows)
	if len(rows.Data) != 2 {
		t.Fatalf("%d rows", len(rows.Data))
	}
	r := rows.Data[1]
	if got := fmt.Sprint(r.Details); got != "[{Funds code R} {Booking text SEPA-LASTSCHRIFT} {Mandate M-77} {Creditor id DE98ZZZ09999999999} {Reference R1} {Bank code NDDT+105}]" {
		t.Errorf("details %s", got)
	}
	if r.Fields["notes"] != "Brot und Kuchen" || r.Fields["account"] != "…3000" || r.Fields["amount"] != "-45.6" {
		t.Errorf("fields %v", r.Fields)
	}
}

func TestStatementFileRefusals(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	theirs := testkit.MustCreateAccount(t, e.srv.DB, other.FamilyID, "Theirs", "Depository", "")
	// A second statement, of another account, after the first.
	twoAccounts := strings.Replace(camt053(testIBAN, "0", "2026-03-01", "0", "2026-03-01"), "</Stmt>", "</Stmt><Stmt><Id>S2</Id><Acct><Id><IBAN>NL91ABNA0417164300</IBAN></Id><Ccy>EUR</Ccy></Acct></Stmt>", 1)
	mine := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Mine", "Depository", "")
	cases := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"a file of no known format", map[string]any{"type": "auto", "raw_file_content": "\x00\x01\x02binary"}, []string{"unrecognized_format"}},
		{"an OFX file sent as camt", map[string]any{"type": "CamtImport", "raw_file_content": cardOFX}, []string{"invalid_file_type", "OfxImport"}},
		{"a camt file with a broken amount", map[string]any{"type": "CamtImport", "raw_file_content": camt053(testIBAN, "1", "2026-03-01", "1", "2026-03-01",
			"R 2026-03-01 CRDT 12,50 Someone")}, []string{"invalid_statement", "line 8", "Amt"}},
		{"XML with a DTD", map[string]any{"type": "CamtImport", "raw_file_content": strings.Replace(camt053(testIBAN, "1", "2026-03-01", "1", "2026-03-01"),
			"<Document", `<!DOCTYPE Document [<!ENTITY x "y">]><Document`, 1)}, []string{"invalid_statement", "DTD"}},
		{"account_id with a file of two accounts", map[string]any{"type": "CamtImport", "raw_file_content": twoAccounts, "account_id": mine.ID.String()}, []string{"account_id", "2 accounts"}},
		{"a statement with no entries", map[string]any{"type": "CamtImport", "raw_file_content": camt053(testIBAN, "1", "2026-03-01", "1", "2026-03-01")},
			[]string{"no_data_rows", "The file has no transactions: its statements list no entries."}},
		{"account_id of another family", map[string]any{"type": "OfxImport", "raw_file_content": cardOFX, "account_id": theirs.ID.String()}, []string{"Account must belong to your family"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, c.body)
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Body, w) {
					t.Errorf("answer lacks %q: %s", w, r.Body)
				}
			}
		})
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Fatalf("%d imports stored for refused files", n)
	}
}

func TestStatementAccountMapping(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	savings := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Joint savings", "Depository", "")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	theirs := testkit.MustCreateAccount(t, e.srv.DB, other.FamilyID, "Theirs", "Depository", "")
	strangerKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")

	var created importBody
	e.create(t, map[string]any{"type": "CamtImport", "raw_file_content": camt053(testIBAN, "0.00", "2026-03-01", "10.00", "2026-03-02",
		"X1 2026-03-02 CRDT 10.00 Gift")}, http.StatusCreated).JSON(t, &created)
	id := created.Data.ID
	patch := func(key string, body map[string]any) *testkit.Response {
		return e.c.API(http.MethodPatch, "/api/v1/imports/"+id+"/mappings", key, body)
	}
	for _, c := range []struct {
		name string
		key  string
		body map[string]any
		want int
		has  string
	}{
		{"another family's account", e.write, map[string]any{"key": "iban:" + testIBAN, "account_id": theirs.ID.String()}, 422, "Account must belong to your family"},
		{"an unknown type", e.write, map[string]any{"key": "iban:" + testIBAN, "account_type": "Boat"}, 422, "not one of"},
		{"an unknown key", e.write, map[string]any{"key": "iban:NL00", "account_id": savings.ID.String()}, 404, "no account mapping"},
		{"a read key", e.read, map[string]any{"key": "iban:" + testIBAN, "account_id": savings.ID.String()}, 403, "insufficient_scope"},
		{"another family's import", strangerKey, map[string]any{"key": "iban:" + testIBAN, "account_id": theirs.ID.String()}, 404, "not_found"},
	} {
		if r := patch(c.key, c.body); r.Status != c.want || !strings.Contains(r.Body, c.has) {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
	}
	if r := patch(e.write, map[string]any{"key": "iban:" + testIBAN, "account_id": savings.ID.String()}); r.Status != http.StatusOK {
		t.Fatalf("map to savings: %d %s", r.Status, r.Body)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+id+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	if got := e.waitFor(t, id); got.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", got.Data.Status, deref(got.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND external_id = 'X1'", savings.ID); n != 1 {
		t.Fatal("the entry did not go to the chosen account")
	}
	if e.accountByKey(t, "iban:"+testIBAN) != savings.ID {
		t.Fatal("the choice was not remembered")
	}
	if r := patch(e.write, map[string]any{"key": "iban:" + testIBAN, "account_type": "CreditCard"}); r.Status != http.StatusConflict {
		t.Fatalf("a published import's mapping changed: %d %s", r.Status, r.Body)
	}
	// The next file of the account maps itself to the remembered account.
	var next struct {
		Mappings []struct {
			Key      string  `json:"key"`
			TargetID *string `json:"target_id"`
		} `json:"mappings"`
	}
	var nb importBody
	e.create(t, map[string]any{"type": "CamtImport", "raw_file_content": camt053(testIBAN, "10.00", "2026-03-03", "15.00", "2026-03-03",
		"X2 2026-03-03 CRDT 5.00 Refund")}, http.StatusCreated).JSON(t, &nb)
	e.c.API(http.MethodGet, "/api/v1/imports/"+nb.Data.ID+"/rows", e.read, nil).JSON(t, &next)
	if len(next.Mappings) != 1 || next.Mappings[0].TargetID == nil || *next.Mappings[0].TargetID != savings.ID.String() {
		b, _ := json.Marshal(next)
		t.Fatalf("next file's mapping: %s", b)
	}
}

// An OFX investment statement becomes trades, holdings and cash entries of a new investment
// account, with its securities; the unmodelled split is reported; revert removes it all.
func TestOFXInvestmentStatement(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	content, err := os.ReadFile("../imports/ofx/testdata/investments_151.ofx")
	if err != nil {
		t.Fatal(err)
	}
	b := e.statement(t, "auto", string(content))
	st := b.Data.Statements.Statements
	if b.Data.Type != "OfxImport" || len(st) != 1 || st[0].Account.Type != "Investment" || len(st[0].Notes) != 1 || !strings.Contains(st[0].Notes[0], "SPLIT") {
		t.Fatalf("investment statement: %+v", b.Data)
	}
	acct := e.accountByKey(t, "acct:broker.example.com/X-1234")
	trades := e.strings(t, `SELECT s.ticker || ' ' || t.qty::text || ' @ ' || t.price::text || ' = ' || e.amount::text
		FROM trades t JOIN entries e ON e.id = t.entry_id JOIN securities s ON s.id = t.security_id
		WHERE e.account_id = ? ORDER BY e.date`, acct)
	want := []string{"ACME 10.00000000 @ 150.25000000 = 1507.4500", "BMIF -5.50000000 @ 20.00000000 = -110.0000", "BMIF 0.40000000 @ 20.00000000 = 8.0000"}
	if strings.Join(trades, "|") != strings.Join(want, "|") {
		t.Errorf("trades:\n%s\nwant\n%s", strings.Join(trades, "\n"), strings.Join(want, "\n"))
	}
	holdings := e.strings(t, `SELECT s.ticker || ' ' || h.qty::text || ' ' || h.amount::text FROM holdings h JOIN securities s ON s.id = h.security_id
		WHERE h.account_id = ? ORDER BY s.ticker`, acct)
	if strings.Join(holdings, "|") != "ACME 20.00000000 1520.0000|BMIF 94.90000000 1945.4500" {
		t.Errorf("holdings: %q", holdings)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct); n != 3 {
		t.Errorf("%d cash entries, want the deposit, the dividend and the reinvested dividend", n)
	}
	e.revert(t, b.Data.ID)
	if n := e.count(t, "SELECT (SELECT count(*) FROM entries WHERE import_id = ?) + (SELECT count(*) FROM holdings WHERE import_id = ?)", b.Data.ID, b.Data.ID); n != 0 {
		t.Errorf("%d entries and holdings left after the revert", n)
	}
}

// A ZIP of camt files, as German banks deliver them, uploaded as a file with type=auto: every
// statement of every member is read, and each account is matched on its own.
func TestCamtZipUpload(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range []string{"camt053_v02_batch.xml", "camt053_v08_structured.xml"} {
		content, err := os.ReadFile("../imports/camt/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := w.Create(name)
		f.Write(content)
	}
	w.Close()
	body, ct := multipartBody(t, map[string]string{"type": "auto", "publish": "true"}, "statements.zip", "application/zip", buf.Bytes())
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != http.StatusCreated {
		t.Fatalf("status %d: %.300s", r.Status, r.Body)
	}
	var created importBody
	r.JSON(t, &created)
	if done := e.waitFor(t, created.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("ended %s: %v", done.Data.Status, deref(done.Data.Error))
	}
	b := e.statementDetail(t, created.Data.ID)
	var got []string
	for _, st := range b.Data.Statements.Statements {
		got = append(got, st.Account.Key+" "+st.Reconciliation)
	}
	want := "iban:DE89370400440532013000 reconciled|iban:DE02120300000000202051 reconciled|acct:1234567890 reconciled"
	if b.Data.Type != "CamtImport" || strings.Join(got, "|") != want {
		t.Fatalf("statements %q, want %q", got, want)
	}
	if m := b.Data.Statements.Matches; m == nil || m.New != 9 {
		t.Errorf("matches %+v, want 9 new entries (6 + 2 + 1)", m)
	}
}

// TestMT942IsPendingUntilTheMT940BooksIt imports the project's MT942 sample, whose currency is
// only in :34F: and :90D:/:90C:, as pending entries, then the day's MT940, which books both
// under the same bank references: they are booked in place, not doubled.
func TestMT942IsPendingUntilTheMT940BooksIt(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	intraday, err := os.ReadFile("../imports/mt940/testdata/mt942_intraday.942")
	if err != nil {
		t.Fatal(err)
	}
	first := e.statement(t, "auto", string(intraday))
	if st := first.Data.Statements.Statements; first.Data.Type != "Mt940Import" || len(st) != 1 || st[0].PendingCount != 2 || st[0].Account.Currency != "EUR" {
		t.Fatalf("the MT942: %s %+v", first.Data.Type, first.Data.Statements)
	}
	acct := e.accountByKey(t, "iban:DE89370400440532013000")
	if _, entries := e.accountState(t, acct); len(entries) != 2 || !strings.Contains(entries[0], "[pending]") || !strings.Contains(entries[1], "[pending]") {
		t.Fatalf("after the MT942:\n%s", strings.Join(entries, "\n"))
	}
	booked := "{1:F01COBADEFFAXXX0000000000}{2:I940COBADEFFXXXXN}{4:\n:20:END0407\n:25:DE89370400440532013000\n:28C:00001/001\n" +
		":60F:C260406EUR500,00\n:61:2604070407DR22,50NDDTNONREF//I1\n:86:105?00LASTSCHRIFT?20SVWZ+Fahrkarte?32VERKEHRSBETRIEBE\n" +
		":61:2604070407CR100,00NTRFNONREF//I2\n:86:166?00GUTSCHRIFT?20SVWZ+Rueckerstattung?32ONLINE SHOP\n:62F:C260407EUR577,50\n-}\n"
	second := e.statement(t, "Mt940Import", booked)
	if m := second.Data.Statements.Matches; m == nil || m.PendingBooked != 2 || m.New != 0 {
		t.Fatalf("the MT940's matches: %+v", m)
	}
	if _, entries := e.accountState(t, acct); len(entries) < 2 || strings.Contains(strings.Join(entries, "\n"), "[pending]") {
		t.Fatalf("after the MT940:\n%s", strings.Join(entries, "\n"))
	}
}

// TestACorrectedNameUnderTheSameBankID uploads a card statement whose FIT-002 the bank first
// calls by its pending descriptor and then by the name it booked, and later corrects again
// after a person renamed it: the bank's name is applied in place (no new entry), until a person
// renamed the transaction, whose name and notes then stay with the bank's text beside them; the
// same text again is no correction, and a revert puts back what the correction replaced.
func TestACorrectedNameUnderTheSameBankID(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	named := func(name string) string { return strings.Replace(cardOFX, "CITY PARKING", name, 1) }
	e.statement(t, "OfxImport", named("UBER *TRIP"))
	acct := e.accountByKey(t, "acct:4111222233334444")
	state := func() string {
		t.Helper()
		return strings.Join(e.strings(t, `SELECT e.name || ' | ' || coalesce(e.original_name, '-') || ' | ' || split_part(e.notes, E'\n', 1)
			FROM entries e WHERE e.account_id = ? AND e.external_id = 'FIT-002'`, acct), "\n")
	}
	corrections := func(b statementBody) string {
		m := b.Data.Statements.Matches
		return fmt.Sprintf("%d new, %d corrected, %d by bank id", m.New, m.Corrected, m.ByBankID)
	}

	booked := e.statement(t, "OfxImport", named("UBER TRIP HELP.UBER.COM"))
	if got := corrections(booked); got != "0 new, 1 corrected, 2 by bank id" || state() != "UBER TRIP HELP.UBER.COM | - | Meter 44" {
		t.Fatalf("the booked name: %s; %s", got, state())
	}
	id := e.strings(t, "SELECT id::text FROM entries WHERE account_id = ? AND external_id = 'FIT-002'", acct)[0]
	if r := e.c.API(http.MethodPatch, "/api/v1/transactions/"+id, e.write, map[string]any{"name": "Uber to the airport", "notes": "Trip to Berlin"}); r.Status != http.StatusOK {
		t.Fatalf("rename: %d %s", r.Status, r.Body)
	}
	again := e.statement(t, "OfxImport", named("UBER TRIP HELP.UBER.COM CA"))
	if got := corrections(again); got != "0 new, 1 corrected, 2 by bank id" || state() != "Uber to the airport | UBER TRIP HELP.UBER.COM CA | Trip to Berlin" {
		t.Fatalf("corrected after a person renamed it: %s; %s", got, state())
	}
	if got := corrections(e.statement(t, "OfxImport", named("UBER TRIP HELP.UBER.COM CA"))); got != "0 new, 0 corrected, 3 by bank id" {
		t.Errorf("the same text again: %s", got)
	}
	e.revert(t, again.Data.ID)
	if got := state(); got != "Uber to the airport | UBER TRIP HELP.UBER.COM | Trip to Berlin" {
		t.Errorf("after reverting the correction: %s", got)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct); n != 3 {
		t.Errorf("%d transactions, want the file's 3", n)
	}
}
