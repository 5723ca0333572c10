package imports_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/imports"
	"tally/internal/db"
	"tally/models"
	"tally/rules"
	"tally/testkit"
)

// The statements that read an import's staged rows beside the family's entries are planned
// before the rows are in any statistics: a new import's id is in none, so the planner takes its
// rows for one. These tests check their plans in that state, and in the state a publish handed
// back after a crash meets: the dead entries of its first attempt, in a database too young for
// them to be in any statistics either.

// noJobs queues nothing: the tests run each publish job themselves.
type noJobs struct{}

func (noJobs) EnqueuePublish(context.Context, db.Tx, uuid.UUID) (int64, error) { return 1, nil }
func (noJobs) EnqueueRevert(context.Context, db.Tx, uuid.UUID) (int64, error)  { return 1, nil }

// importer imports files for a family of its own, in a database of its own.
type importer struct {
	t    *testing.T
	d    *db.DB
	s    *imports.Service
	user *models.User
}

func newImporter(t *testing.T) *importer { return newImporterOn(t, testkit.MustOpenDB(t)) }

// newImporterOn is newImporter on the database d.
func newImporterOn(t *testing.T, d *db.DB) *importer {
	return &importer{t: t, d: d, user: testkit.MustCreateUser(t, d, testkit.UserOpts{}),
		s: &imports.Service{DB: d, Jobs: noJobs{}, Limits: imports.DefaultLimits, Log: testkit.DiscardLogger()}}
}

func (im *importer) account(name string) uuid.UUID {
	return testkit.MustCreateAccount(im.t, im.d, im.user.FamilyID, name, "Depository", "0").ID
}

// upload stores a file for review, as an upload with publish=false does: into the account, or
// into the accounts its rows name when account is nil.
func (im *importer) upload(csv string, account *uuid.UUID) *imports.Detail {
	im.t.Helper()
	req := imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.TransactionImport),
		DateFormat: new("%Y-%m-%d"), Upload: imports.Upload{Content: []byte(csv), Present: true}}
	if account != nil {
		req.AccountID = new(account.String())
	}
	d, err := im.s.Create(context.Background(), req)
	if err != nil {
		im.t.Fatalf("upload: %v", err)
	}
	return d
}

// publish runs the import's publish to its end, as the worker does, and returns its status.
func (im *importer) publish(id uuid.UUID) string {
	im.t.Helper()
	ctx := context.Background()
	if err := im.s.Publish(ctx, im.user.FamilyID, id); err != nil {
		im.t.Fatalf("publish: %v", err)
	}
	if err := im.s.RunPublish(ctx, id); err != nil {
		im.t.Fatalf("publish job: %v", err)
	}
	got, err := imports.Get(ctx, im.d, im.user.FamilyID, id)
	if err != nil {
		im.t.Fatal(err)
	}
	return got.Status
}

// crashedPublish runs the import's publish and makes it fail at its very end, when it marks
// the import complete, so that everything it wrote is rolled back and left as dead rows: what
// a worker killed in the middle of a publish leaves for the next attempt.
func (im *importer) crashedPublish(id uuid.UUID) {
	im.t.Helper()
	ctx := context.Background()
	exec := func(q string) {
		if _, err := im.d.NewRaw(q).Exec(ctx); err != nil {
			im.t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE FUNCTION crash() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE 'the worker is gone'; END $$`)
	exec(`CREATE TRIGGER crash BEFORE UPDATE OF status ON imports FOR EACH ROW WHEN (NEW.status = 'complete') EXECUTE FUNCTION crash()`)
	if status := im.publish(id); status != imports.StatusFailed {
		im.t.Fatalf("the first attempt ended %s", status)
	}
	exec(`DROP TRIGGER crash ON imports`)
	exec(`DROP FUNCTION crash()`)
}

// spending is a file of n transactions of date, amount and name, and the account of each when
// accounts are named (in turn).
func spending(n int, accounts ...string) string {
	var b strings.Builder
	b.WriteString("date,amount,name")
	if len(accounts) > 0 {
		b.WriteString(",account")
	}
	b.WriteString("\n")
	for i := range n {
		fmt.Fprintf(&b, "%s,-%d.%02d,Shop %d", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%300).Format(time.DateOnly), 1+i%500, i%100, i%200)
		if len(accounts) > 0 {
			b.WriteString("," + accounts[i%len(accounts)])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkOnePass fails unless the plan reads the import's rows once and reaches entries only
// by probing the family's entries of one day and amount.
func checkOnePass(t *testing.T, what string, plan testkit.PlanNode, raw string) {
	t.Helper()
	var rows []testkit.PlanNode
	probes, other := 0, false
	plan.Walk(func(n testkit.PlanNode) {
		switch {
		case n.Relation == "import_rows" && strings.HasSuffix(n.Type, "Scan"):
			rows = append(rows, n)
		case n.Relation == "entries" && n.Type == "Seq Scan":
			other = true
		case strings.HasPrefix(n.Index, "entries_"):
			if n.Index == "entries_transfer_match_idx" && strings.Contains(n.IndexCond, "date =") && strings.Contains(n.IndexCond, "amount =") {
				probes++
			} else {
				other = true
			}
		}
	})
	if len(rows) != 1 || rows[0].Loops != 1 {
		t.Errorf("%s does not read the import's rows once (%d scans of them):\n%s", what, len(rows), raw)
	}
	if probes == 0 || other {
		t.Errorf("%s reads entries other than by day and amount:\n%s", what, raw)
	}
}

// TestReviewCountsDuplicatesInOnePass checks the count an upload for review ends with (how
// many of its rows are already in the account), for the rows of a brand-new import: the rows'
// statistics are those of an earlier import's publish. Joined with themselves, the rows were
// compared each with each (6.7 s for 10,000 rows).
func TestReviewCountsDuplicatesInOnePass(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	acct := im.account("Checking")
	if status := im.publish(im.upload(spending(3000), &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the earlier import ended %s", status)
	}
	queries := testkit.RecordQueries(im.d, "SELECT rule, count(*)")
	d := im.upload(spending(3000), &acct)
	m, err := imports.AlreadyThere(context.Background(), im.d, d, nil)
	if err != nil || m.Duplicates != 3000 {
		t.Fatalf("already there: %+v, %v; want all 3000 rows", m, err)
	}
	plan, raw := testkit.Explain(t, im.d, queries.Last(t))
	checkOnePass(t, "the count for review", plan, raw)
}

// TestRetriedPublishProbesEachAccountOnce checks the publish's first question (do the
// accounts hold anything the rows could repeat?) as a publish handed back after a crash asks
// it: the accounts hold nothing but the dead entries of the first attempt. Asked by joining
// every row with the accounts' entries, it read all of them again for each row (70 s for
// 40,000 rows).
func TestRetriedPublishProbesEachAccountOnce(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	im.account("Checking")
	im.account("Savings")
	d := im.upload(spending(4000, "Checking", "Savings"), nil)
	queries := testkit.RecordQueries(im.d, "e.import_id IS DISTINCT FROM")
	im.crashedPublish(d.ID)

	plan, raw := testkit.Explain(t, im.d, queries.Last(t))
	plan.Walk(func(n testkit.PlanNode) {
		if strings.HasPrefix(n.Index, "entries_") && n.Loops > 2 {
			t.Fatalf("the check reads the accounts' entries %v times, not once for each of the 2 accounts:\n%s", n.Loops, raw)
		}
	})
	if status := im.publish(d.ID); status != imports.StatusComplete {
		t.Fatalf("the second attempt ended %s", status)
	}
}

// TestRetriedPublishMarksDuplicatesInOnePass checks the publish's search for rows already in
// their accounts, and the count the import's page shows meanwhile, after a first attempt
// crashed: the accounts hold the entries of an earlier import beside the dead ones.
func TestRetriedPublishMarksDuplicatesInOnePass(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	im.account("Checking")
	im.account("Savings")
	if status := im.publish(im.upload(spending(2000, "Checking", "Savings"), nil).ID); status != imports.StatusComplete {
		t.Fatalf("the earlier import ended %s", status)
	}
	// The first 2,000 rows are the earlier file's; the rest are new.
	d := im.upload(spending(3000, "Checking", "Savings"), nil)
	marks := testkit.RecordQueries(im.d, "SELECT row_number, rule FROM (")
	im.crashedPublish(d.ID)
	search := marks.Last(t)

	ctx := context.Background()
	count := testkit.RecordQueries(im.d, "SELECT rule, count(*)")
	failed, err := imports.Get(ctx, im.d, im.user.FamilyID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	described, err := imports.Describe(ctx, im.d, failed)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := imports.AlreadyThere(ctx, im.d, described, nil); err != nil || m.Duplicates != 2000 {
		t.Fatalf("already there: %+v, %v; want the 2000 rows of the earlier file", m, err)
	}
	plan, raw := testkit.Explain(t, im.d, count.Last(t))
	checkOnePass(t, "the count of the failed import", plan, raw)

	plan, raw = testkit.Explain(t, im.d, search)
	checkOnePass(t, "the search for duplicates", plan, raw)
	if status := im.publish(d.ID); status != imports.StatusComplete {
		t.Fatalf("the second attempt ended %s", status)
	}
	if got, _ := imports.Get(ctx, im.d, im.user.FamilyID, d.ID); got.DuplicateRowsCount != 2000 {
		t.Errorf("%d duplicates, want 2000", got.DuplicateRowsCount)
	}
}

// statementOFX is a bank statement of n transactions, each with the bank's id.
func statementOFX(n int) string {
	var b strings.Builder
	b.WriteString("OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\n" +
		"COMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n" +
		"<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260110120000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>\r\n" +
		"<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>USD\r\n" +
		"<BANKACCTFROM><BANKID>021000021<ACCTID>987654321<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n" +
		"<BANKTRANLIST><DTSTART>20250101<DTEND>20251231\r\n")
	for i := range n {
		fmt.Fprintf(&b, "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>2025%02d%02d<TRNAMT>-%d.%02d<FITID>F%d<NAME>Shop %d</STMTTRN>\r\n",
			1+i%12, 1+i%28, 1+i%500, i%100, i, i%200)
	}
	b.WriteString("</BANKTRANLIST><LEDGERBAL><BALAMT>-1000.00<DTASOF>20251231</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n")
	return b.String()
}

// TestStatementAgainProbesEachRow checks how the publish of a bank statement uploaded again
// looks for each row's entry: by the bank's id, and for a pending entry it books, by the
// account and a few days around the row's. Joined with the account's entries, the rows were
// compared with every entry of the account (by account alone), each of them.
func TestStatementAgainProbesEachRow(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	ctx := context.Background()
	upload := func() *imports.Detail {
		d, err := im.s.Create(ctx, imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.OfxImport),
			Upload: imports.Upload{Content: []byte(statementOFX(2000)), Present: true}})
		if err != nil {
			t.Fatalf("upload: %v", err)
		}
		return d
	}
	if status := im.publish(upload().ID); status != imports.StatusComplete {
		t.Fatalf("the first statement ended %s", status)
	}
	byID := testkit.RecordQueries(im.d, "e.external_id = r.extra->>'external_id'")
	pending := testkit.RecordQueries(im.d, "AND e.pending AND")
	review := testkit.RecordQueries(im.d, "SELECT rule, count(*)")
	again := upload()

	// The review looks up each row by the bank's id, and the rows it finds there no further.
	if m, err := imports.AlreadyThere(ctx, im.d, again, nil); err != nil || m.Duplicates != 2000 {
		t.Fatalf("already there: %+v, %v; want the 2000 rows by their bank ids", m, err)
	}
	plan, raw := testkit.Explain(t, im.d, review.Last(t))
	rows := 0
	plan.Walk(func(n testkit.PlanNode) {
		switch {
		case n.Relation == "import_rows" && strings.HasSuffix(n.Type, "Scan"):
			rows++
		case n.Relation == "entries" && n.Type == "Seq Scan",
			strings.HasPrefix(n.Index, "entries_") && n.Index != "entries_source_external_id_key" && n.Loops > 0:
			t.Errorf("the review reads entries other than by the bank's id (%s %s, %v loops):\n%s", n.Type, n.Index, n.Loops, raw)
		}
	})
	if rows != 1 {
		t.Errorf("the review reads the rows %d times:\n%s", rows, raw)
	}

	// Explained after a first attempt of its publish, before anything marks the rows.
	im.crashedPublish(again.ID)
	for _, c := range []struct {
		query       *testkit.QueryRecorder
		index, cond string
	}{{byID, "entries_source_external_id_key", "external_id ="}, {pending, "entries_pending_idx", "date >="}} {
		plan, raw = testkit.Explain(t, im.d, c.query.Last(t))
		rows, probes := 0, 0
		plan.Walk(func(n testkit.PlanNode) {
			switch {
			case n.Relation == "import_rows" && strings.HasSuffix(n.Type, "Scan"):
				rows++
			case n.Relation == "entries" || strings.HasPrefix(n.Index, "entries_"):
				if n.Index != c.index || !strings.Contains(n.IndexCond, c.cond) || n.ActualRows > 1 {
					t.Errorf("entries are read other than by %s with the row's values (%s, cond %q, %v rows a time):\n%s", c.index, n.Type, n.IndexCond, n.ActualRows, raw)
				}
				probes++
			}
		})
		if rows != 1 || probes == 0 {
			t.Errorf("not one pass over the rows probing entries:\n%s", raw)
		}
	}
	if status := im.publish(again.ID); status != imports.StatusComplete {
		t.Fatalf("the statement again ended %s", status)
	}
	if got, _ := imports.Get(ctx, im.d, im.user.FamilyID, again.ID); got.DuplicateRowsCount != 2000 {
		t.Errorf("%d rows found already there, want 2000", got.DuplicateRowsCount)
	}
}

// TestPublishReadsOnlyHandChosenMerchants checks the publish's search for the merchants a
// person chose by hand for a bank text: it reads those few entries through their index, not
// every transaction of the family that has a merchant (after a few imports, all of them).
func TestPublishReadsOnlyHandChosenMerchants(t *testing.T) {
	t.Parallel()
	im := newImporter(t)
	acct := im.account("Checking")
	shops := func(n, year int) string {
		var b strings.Builder
		b.WriteString("date,amount,name\n")
		for i := range n {
			fmt.Fprintf(&b, "%s,-%d.%02d,%s\n", time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%300).Format(time.DateOnly), 1+i%500, i%100,
				[]string{"NETFLIX.COM AMSTERDAM NL", "UBER *TRIP HELP.UBER.COM", "REWE SAGT DANKE 45012345", "sq *blue bottle coffee"}[i%4])
		}
		return b.String()
	}
	if status := im.publish(im.upload(shops(3000, 2024), &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the earlier import ended %s", status)
	}
	ctx := context.Background()
	// One transaction's merchant was chosen by hand; every other one was derived.
	if _, err := im.d.NewRaw(`UPDATE entries SET locked_fields = '{merchant}'
		WHERE id = (SELECT id FROM entries WHERE family_id = ? AND merchant_id IS NOT NULL LIMIT 1)`, im.user.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := im.d.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	queries := testkit.RecordQueries(im.d, "h.merchant_id")
	if status := im.publish(im.upload(shops(20, 2025), &acct).ID); status != imports.StatusComplete {
		t.Fatalf("the second import ended %s", status)
	}

	// The statement updates the publish's temporary table of bank texts, which went with its
	// transaction: it is explained over an empty one, in a transaction rolled back.
	if err := im.d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw(`CREATE TEMP TABLE import_merchants (name text PRIMARY KEY, merchant text NOT NULL, merchant_id uuid) ON COMMIT DROP`).Exec(ctx); err != nil {
			return err
		}
		plan, raw := testkit.Explain(t, tx, queries.Last(t))
		plan.Walk(func(n testkit.PlanNode) {
			if (n.Relation == "entries" && n.Type == "Seq Scan") || (strings.HasPrefix(n.Index, "entries_") && n.Index != "entries_hand_merchant_idx") {
				t.Errorf("the merchants chosen by hand are searched among all the family's entries (%s %s):\n%s", n.Type, n.Index, raw)
			}
		})
		return errRollback
	}); err != errRollback {
		t.Fatal(err)
	}
}

// errRollback ends a transaction that only explained its statements.
var errRollback = errors.New("explained only: rolled back")

// insertProbe is told of a publish's end inside its transaction, where the publish's tables of
// the rows' merchants, rule results and transfer kinds still are, and explains there the last
// batch's insert of entries as it ran: in a savepoint, with the import's entries taken away
// first and put back after.
type insertProbe struct {
	t      *testing.T
	id     uuid.UUID // the import
	insert *testkit.QueryRecorder
	plan   testkit.PlanNode
	raw    string
}

func (p *insertProbe) Emit(ctx context.Context, tx db.Tx, _ uuid.UUID, _ string, _ any) error {
	for _, q := range []string{"SAVEPOINT probe", "DELETE FROM entries WHERE import_id = '" + p.id.String() + "'"} {
		if _, err := tx.NewRaw(q).Exec(ctx); err != nil {
			return err
		}
	}
	p.plan, p.raw = testkit.Explain(p.t, tx, p.insert.Last(p.t))
	_, err := tx.NewRaw("ROLLBACK TO SAVEPOINT probe").Exec(ctx)
	return err
}

// TestPublishLooksUpEachRowsMerchantRuleAndTransfer checks how a batch of the publish's insert
// of entries reads what it joins to each row: the merchant of its bank text, what the rules
// set, and its transfer's kind. The batch's rows are planned as one (their filters are
// expressions of errors and extra, in no statistics), and so planned, a plain join read the
// table of the import's merchants whole for each row in a publish of 100,000 rows into a used
// database: 5,000 rows by 500 merchants a batch, two thirds of the publish (BenchmarkScale).
// That plan is the planner's choice among near-equal costs and did not show on this smaller
// file; what the test holds to is the property: each of these tables, once it is larger than a
// scan costs, is read by its key, one row for each row of the batch.
func TestPublishLooksUpEachRowsMerchantRuleAndTransfer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	im := newImporter(t)
	im.account("Checking")
	savings := im.account("Savings")
	if _, err := rules.Create(ctx, im.d, models.FamilyViewer(im.user.FamilyID), rules.Input{Name: new("Rent share"),
		Conditions: &[]rules.Condition{{Type: "transaction_name", Operator: "like", Value: "rent share"}},
		Actions:    &[]rules.Action{{Type: "mark_as_transfer", Value: savings.String()}}}); err != nil {
		t.Fatal(err)
	}
	// 6,000 rows, the last batch 1,000 of them: shops of as many names, a category each of 20, a
	// rule that renames every shop, and in every ten rows a transfer between the two accounts.
	if _, err := rules.Create(ctx, im.d, models.FamilyViewer(im.user.FamilyID), rules.Input{Name: new("Shops"),
		Conditions: &[]rules.Condition{{Type: "transaction_name", Operator: "like", Value: "shop"}},
		Actions:    &[]rules.Action{{Type: "set_transaction_name", Value: "A shop"}}}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("date,amount,name,category,account\n")
	for i := range 6_000 {
		date := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i/20).Format(time.DateOnly)
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, "%s,-%d.00,TO SAVINGS,,Checking\n", date, 1000+i)
		case 1:
			fmt.Fprintf(&b, "%s,%d.00,FROM CHECKING,,Savings\n", date, 1000+i-1)
		case 2:
			fmt.Fprintf(&b, "%s,-%d.50,RENT SHARE,,Checking\n", date, 700+i)
		default:
			fmt.Fprintf(&b, "%s,-%d.%02d,Shop %d,Category %d,Checking\n", date, 1+i%300, i%100, i, i%20)
		}
	}
	d := im.upload(b.String(), nil)
	probe := &insertProbe{t: t, id: d.ID, insert: testkit.RecordQueries(im.d, "category_id, tag_ids, import_id, source")}
	im.s.Events = probe
	if status := im.publish(d.ID); status != imports.StatusComplete {
		t.Fatalf("the publish ended %s", status)
	}
	if probe.raw == "" {
		t.Fatal("the publish told nobody of its end, so its insert was not explained")
	}
	// The tables this file fills beyond a few hundred rows, where a read of the table for
	// each row costs more than a probe of its key, and the planner knows it if it is asked per
	// row: the bank texts (6,000), what the rule set (5,400) and the transfer kinds (1,200).
	// The derived names are few, a table of a page that the planner reads whole rather than
	// probe, once for each row: a text's merchant is looked up in the texts' table alone.
	probed := map[string]bool{}
	probe.plan.Walk(func(n testkit.PlanNode) {
		switch n.Relation {
		case "import_merchants", "import_merchant_names", "rule_results", "import_transfer_kinds":
			if read := n.ActualRows + n.Removed; n.Loops > 1 && read > 2 {
				t.Errorf("the insert reads %v rows of %s (%s) for each of %v rows:\n%s", read, n.Relation, n.Type, n.Loops, probe.raw)
			}
			probed[n.Relation] = true
		}
	})
	for _, rel := range []string{"import_merchants", "rule_results", "import_transfer_kinds"} {
		if !probed[rel] {
			t.Errorf("the insert does not read %s, so this test checks nothing of it:\n%s", rel, probe.raw)
		}
	}
}
