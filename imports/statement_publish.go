package imports

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// pendingMatchDays is how far apart a pending entry and the booked row that replaces it may be
// dated when the bank gave them different ids (the bank sync uses the same window).
const pendingMatchDays = 8

// publishStatement publishes a bank statement file. Before anything is written, each row is
// matched against the account's entries, most exact rule first:
//
//  1. the same bank id twice in the file keeps one row (see rowBuilder.dedupInFile);
//  2. the bank id the account already has: unchanged, it is a duplicate; changed (a correction
//     of its date, amount or name, or a pending entry now booked), the entry is updated in
//     place, but for a name or notes a person set, and its old values kept for revert;
//  3. a booked row with an id the account does not know replaces a pending entry of the same
//     amount dated within pendingMatchDays;
//  4. the content rule every import has (account, date, amount, name; see rowMatches), and
//     its likely duplicates (another name), only against entries that carry no id of this
//     format, so that two equal transactions the bank told apart are never merged.
//
// The rest become entries carrying their bank id, and the statements' closing balances become
// valuations, so that the account's balance is the bank's.
func (p *publisher) publishStatement(ctx context.Context) error {
	if err := p.checkAccounts(ctx); err != nil {
		return err
	}
	if err := p.checkInvestmentAccounts(ctx); err != nil {
		return err
	}
	m := &MatchCounts{}
	n, err := p.tx.NewRaw(`UPDATE import_rows r SET duplicate = true WHERE `+validRows+` AND r.extra \? 'in_file_duplicate'`, p.im.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark repeated rows: %w", err)
	}
	inFile, _ := n.RowsAffected()
	m.InFile = int(inFile)
	if err := p.matchBankIDs(ctx, m); err != nil {
		return err
	}
	if err := p.bookPending(ctx, m); err != nil {
		return err
	}
	if err := p.markDuplicates(ctx); err != nil {
		return err
	}
	m.ByContent, m.Likely = p.duplicates-p.likely, p.likely
	p.duplicates += m.ByBankID + m.InFile
	if err := p.createSecurities(ctx); err != nil {
		return err
	}
	if err := p.deriveMerchants(ctx); err != nil {
		return err
	}
	if err := p.entryBatches(ctx); err != nil {
		return err
	}
	if err := p.tx.NewRaw(`SELECT count(*) FROM entries WHERE import_id = ? AND kind IN ('transaction', 'trade')`, p.im.ID).Scan(ctx, &m.New); err != nil {
		return err
	}
	if err := p.holdings(ctx, m); err != nil {
		return err
	}
	accounts, err := p.statementAccounts(ctx)
	if err != nil {
		return err
	}
	if err := p.recordBalances(ctx, accounts, m); err != nil {
		return err
	}
	if err := p.linkIdentifiers(ctx, accounts); err != nil {
		return err
	}
	p.im.Statements.Matches = m
	if _, err := p.tx.NewUpdate().Model(p.im).Column("statements").WherePK().Exec(ctx); err != nil {
		return err
	}
	return p.tx.NewRaw(`SELECT coalesce(array_agg(DISTINCT account_id), '{}') FROM (
			SELECT account_id FROM entries WHERE import_id = ?
			UNION SELECT e.account_id FROM import_undo u JOIN entries e ON e.id = u.record_id WHERE u.import_id = ? AND u.target = 'entry') a`,
		p.im.ID, p.im.ID).Scan(ctx, pgdialect.Array(&p.accounts))
}

// checkInvestmentAccounts refuses trades and holdings mapped to an account that is not an
// investment account: they would have nowhere to go, and are never dropped silently.
func (p *publisher) checkInvestmentAccounts(ctx context.Context) error {
	var names []string
	err := p.tx.NewRaw(`
		SELECT DISTINCT a.name FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce(?::uuid, am.target_id)
		WHERE `+validRows+` AND r.ticker IS NOT NULL AND a.accountable_type <> 'Investment' ORDER BY 1`, p.im.AccountID, p.im.ID).Scan(ctx, &names)
	if err != nil {
		return err
	}
	if len(names) > 0 {
		return apperr.Errorf(apperr.Invalid, "The statement's trades and holdings need an investment account, but they are mapped to %s. "+
			"Map the investment statement to an investment account (or a new one) and publish again.", strings.Join(names, ", "))
	}
	return nil
}

// holdings writes the positions an investment statement reports, one per security and day; a
// position the account already has for the day is left as it is.
func (p *publisher) holdings(ctx context.Context, m *MatchCounts) error {
	res, err := p.tx.NewRaw(`
		INSERT INTO holdings (id, family_id, account_id, security_id, date, qty, price, amount, currency, import_id, source)
		SELECT r.record_id, a.family_id, a.id, s.id, r.date, r.qty, r.price, r.amount, coalesce(r.currency, a.currency), r.import_id, r.extra->>'source'
		FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce(?::uuid, am.target_id) AND a.family_id = ?
		JOIN securities s ON s.ticker = r.ticker AND s.exchange_operating_mic IS NULL
		WHERE `+validRows+` AND (r.extra->>'holding') IS NOT NULL
		ON CONFLICT (account_id, security_id, date, currency) DO NOTHING`, p.im.AccountID, p.im.FamilyID, p.im.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("write holdings: %w", err)
	}
	n, _ := res.RowsAffected()
	m.Holdings = int(n)
	return nil
}

// statementAccount is a Tally account a statement's rows go to.
type statementAccount struct {
	ID        uuid.UUID
	Liability bool
	Created   bool // created by this publish
}

// statementAccounts resolves each account key of the file to its Tally account.
func (p *publisher) statementAccounts(ctx context.Context) (map[string]statementAccount, error) {
	var rows []struct {
		Key     string    `bun:"key"`
		ID      uuid.UUID `bun:"id"`
		Type    string    `bun:"accountable_type"`
		Created bool      `bun:"created"`
	}
	err := p.tx.NewRaw(`
		SELECT m.key, a.id, a.accountable_type, m.created
		FROM import_mappings m JOIN accounts a ON a.id = coalesce(?::uuid, m.target_id) AND a.family_id = ?
		WHERE m.import_id = ? AND m.kind = 'account'`, p.im.AccountID, p.im.FamilyID, p.im.ID).Scan(ctx, &rows)
	out := map[string]statementAccount{}
	for _, r := range rows {
		t, _ := models.AccountTypeByName(r.Type)
		out[r.Key] = statementAccount{ID: r.ID, Liability: t.Liability, Created: r.Created}
	}
	return out, err
}

// matchBankIDs finds the rows whose bank id the account already has (rule 2).
//
// Like bookPending's, its look at the account's entries is a LATERAL subquery the planner
// cannot flatten (OFFSET 0), one probe per row with all of the row's values. As a join it was
// planned as a nested loop probing entries_source_external_id_key by the account alone, which
// read every entry of the account for each row of a statement uploaded again.
func (p *publisher) matchBankIDs(ctx context.Context, m *MatchCounts) error {
	var found []struct {
		Row     int       `bun:"row_number"`
		EntryID uuid.UUID `bun:"entry_id"`
		Rule    string    `bun:"rule"`
	}
	err := p.tx.NewRaw(`
		SELECT r.row_number, e.id AS entry_id, `+bankIDRule+` AS rule
		FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce(?::uuid, am.target_id)
		CROSS JOIN LATERAL (SELECT e.id, e.pending, e.date, e.amount, e.currency, e.name, e.original_name FROM entries e
			WHERE e.account_id = a.id AND e.source = r.extra->>'source' AND e.external_id = r.extra->>'external_id'
				AND e.kind IN ('transaction', 'trade') OFFSET 0) e
		WHERE `+validRows+` AND r.extra ? 'external_id'`, p.im.AccountID, p.im.ID).Scan(ctx, &found)
	if err != nil {
		return fmt.Errorf("match bank ids: %w", err)
	}
	var dups []int
	var fix corrections
	for _, f := range found {
		switch f.Rule {
		case MatchBankID:
			dups = append(dups, f.Row)
		case MatchPendingBooked:
			fix.add(f.Row, f.EntryID, MatchPendingBooked)
			m.PendingBooked++
		default:
			fix.add(f.Row, f.EntryID, MatchCorrected)
			m.Corrected++
		}
	}
	if len(dups) > 0 {
		if _, err := p.tx.NewRaw(`UPDATE import_rows SET duplicate = true, extra = extra || '{"matched_by": "bank_id"}'
			WHERE import_id = ? AND row_number = ANY(?)`, p.im.ID, pgdialect.Array(dups)).Exec(ctx); err != nil {
			return err
		}
	}
	m.ByBankID = len(dups)
	return p.correct(ctx, fix)
}

// bookPending replaces pending entries by booked rows the bank gave another id (rule 3): the
// same amount, dated within pendingMatchDays, nearest first, each entry and row used once.
func (p *publisher) bookPending(ctx context.Context, m *MatchCounts) error {
	var cands []struct {
		Row     int       `bun:"row_number"`
		EntryID uuid.UUID `bun:"entry_id"`
		Dist    int       `bun:"dist"`
	}
	err := p.tx.NewRaw(`
		SELECT r.row_number, e.id AS entry_id, abs(e.date - r.date) AS dist
		FROM import_rows r `+accountMapping+`
		CROSS JOIN LATERAL (SELECT e.id, e.date FROM entries e
			WHERE e.account_id = coalesce(?::uuid, am.target_id) AND e.pending AND e.date BETWEEN r.date - ?::int AND r.date + ?::int
				AND e.kind = 'transaction' AND e.source = r.extra->>'source' AND e.amount = r.amount OFFSET 0) e
		WHERE `+validRows+` AND NOT (r.extra->>'pending')::boolean AND r.ticker IS NULL
		ORDER BY dist, r.row_number, e.date, e.id`, p.im.AccountID, pendingMatchDays, pendingMatchDays, p.im.ID).Scan(ctx, &cands)
	if err != nil {
		return fmt.Errorf("match pending entries: %w", err)
	}
	usedRow, usedEntry := map[int]bool{}, map[uuid.UUID]bool{}
	var fix corrections
	for _, c := range cands {
		if usedRow[c.Row] || usedEntry[c.EntryID] {
			continue
		}
		usedRow[c.Row], usedEntry[c.EntryID] = true, true
		fix.add(c.Row, c.EntryID, MatchPendingBooked)
	}
	m.PendingBooked += len(fix.rows)
	return p.correct(ctx, fix)
}

// corrections are rows that update an existing entry rather than add one.
type corrections struct {
	rows    []int
	entries []uuid.UUID
	rules   []string
}

func (c *corrections) add(row int, entry uuid.UUID, rule string) {
	c.rows, c.entries, c.rules = append(c.rows, row), append(c.entries, entry), append(c.rules, rule)
}

// correct updates each entry with its row's values, keeping the entry's previous values for
// revert, and marks the rows as matched so that they add no entry. A name or notes a person
// set stay, beside the bank's new text (original_name); otherwise the bank's name replaces the
// name a rule gave. The statements of one query all read the entries as they were before it,
// so the undo holds the old values.
func (p *publisher) correct(ctx context.Context, c corrections) error {
	if len(c.rows) == 0 {
		return nil
	}
	ids := make([]pgtype.UUID, len(c.entries))
	for i, id := range c.entries {
		ids[i] = pgtype.UUID{Bytes: id, Valid: true}
	}
	_, err := p.tx.NewRaw(`
		WITH c AS (SELECT * FROM unnest(?::int[], ?::uuid[], ?::text[]) AS c(row_number, entry_id, rule)),
		undo AS (
			INSERT INTO import_undo (import_id, target, record_id, previous)
			SELECT ?, 'entry', e.id, jsonb_build_object('date', e.date, 'amount', e.amount, 'currency', e.currency, 'name', e.name,
				'original_name', e.original_name, 'notes', e.notes, 'pending', e.pending, 'external_id', e.external_id)
			FROM entries e JOIN c ON e.id = c.entry_id
			ON CONFLICT DO NOTHING),
		upd AS (
			UPDATE entries e SET date = r.date, amount = r.amount, currency = coalesce(r.currency, e.currency),
				name = CASE WHEN 'name' = ANY (e.locked_fields) THEN e.name ELSE r.name END,
				original_name = CASE WHEN 'name' = ANY (e.locked_fields) AND e.name <> r.name THEN r.name END,
				notes = CASE WHEN 'notes' = ANY (e.locked_fields) THEN e.notes ELSE coalesce(r.notes, '') END,
				pending = (r.extra->>'pending')::boolean,
				external_id = coalesce(r.extra->>'external_id', e.external_id), updated_at = now()
			FROM c JOIN import_rows r ON r.import_id = ? AND r.row_number = c.row_number
			WHERE e.id = c.entry_id)
		UPDATE import_rows r SET duplicate = true, extra = r.extra || jsonb_build_object('matched_by', c.rule, 'entry_id', c.entry_id)
		FROM c WHERE r.import_id = ? AND r.row_number = c.row_number`,
		pgdialect.Array(c.rows), pgdialect.Array(ids), pgdialect.Array(c.rules), p.im.ID, p.im.ID, p.im.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("update matched entries: %w", err)
	}
	return nil
}

// recordBalances records the balances each statement states as checkpoints of its account,
// one per account and day (a closing balance before an opening one of the same day's end, the
// file's last of each), after giving an account this publish created the opening balance of
// its first statement as its anchor. Then it sets each statement's checks against the ledger
// from the reconciliation of its accounts.
func (p *publisher) recordBalances(ctx context.Context, accounts map[string]statementAccount, m *MatchCounts) error {
	anchored, err := p.openingAnchors(ctx, accounts)
	if err != nil {
		return err
	}
	if err := p.closingAnchors(ctx, accounts, anchored); err != nil {
		return err
	}
	stated := map[accountDay]decimal.Decimal{}
	closing := map[accountDay]bool{}
	var days []accountDay
	state := func(d accountDay, amount decimal.Decimal, isClosing bool) {
		if anchored[d] || closing[d] && !isClosing {
			return
		}
		if _, seen := stated[d]; !seen {
			days = append(days, d)
		}
		stated[d], closing[d] = amount, closing[d] || isClosing
	}
	stmts := p.im.Statements.Statements
	for i := range stmts {
		st := &stmts[i]
		acct, ok := accounts[st.Account.Key]
		if !ok || st.Intraday {
			continue
		}
		if st.Opening != nil {
			state(accountDay{acct.ID, openingDay(st, p.im.Statements.Format)}, tallyBalance(acct, st.Opening.Amount), false)
		}
		if st.Closing != nil {
			state(accountDay{acct.ID, st.Closing.Date}, tallyBalance(acct, st.Closing.Amount), true)
		}
	}
	for _, d := range days {
		name := "Statement opening balance"
		if closing[d] {
			name = "Statement closing balance"
		}
		wrote, err := p.valuation(ctx, d.account, d.date, stated[d], models.ValuationCheckpoint, "balance:"+d.date, name)
		if err != nil {
			return err
		}
		if wrote {
			m.Balances++
		}
	}
	return p.ledgerChecks(ctx, accounts)
}

// accountDay is an account's balance at the end of a day (date as YYYY-MM-DD).
type accountDay struct {
	account uuid.UUID
	date    string
}

// openingDay is the day whose end a statement's opening balance is the balance of. Banks date
// it two ways, and the statement's period tells which: a balance dated before the period's first
// day is the close of that day (many camt files date OPBD so, as MT940 dates :60F:), one dated
// on it is the day's opening, the close of the day before. A camt file that states no period
// dates OPBD the first day it covers, as the standard means it.
func openingDay(st *StatementSummary, format string) string {
	d, err := time.Parse(time.DateOnly, st.Opening.Date)
	if err != nil {
		return st.Opening.Date
	}
	if st.From != nil {
		if from, err := time.Parse(time.DateOnly, *st.From); err == nil {
			if d.Before(from) {
				return d.Format(time.DateOnly)
			}
			return from.AddDate(0, 0, -1).Format(time.DateOnly)
		}
	}
	if format == "camt" {
		d = d.AddDate(0, 0, -1)
	}
	return d.Format(time.DateOnly)
}

// ledgerChecks sets each statement's opening and closing checks: the account's walk on the
// day, now that the file's entries and balances are in (unknown without a balance to walk from).
func (p *publisher) ledgerChecks(ctx context.Context, accounts map[string]statementAccount) error {
	check := func(acct statementAccount, b *BalanceAt, date string) (*LedgerCheck, error) {
		c := &LedgerCheck{Status: "unknown", Bank: b.Amount}
		day, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return c, nil
		}
		if unknown, err := balanceUnknown(ctx, p.tx, acct.ID); err != nil || unknown {
			return c, err
		}
		walk, err := models.DailyBalances(ctx, p.tx, models.FamilyViewer(p.im.FamilyID), acct.ID, day, day)
		if err != nil || len(walk) != 1 {
			return c, err
		}
		ledger := tallyBalance(acct, walk[0].Balance) // back to the statement's sign
		c.Ledger = &ledger
		if ledger.Equal(b.Amount) {
			c.Status = "matched"
		} else {
			diff := b.Amount.Sub(ledger)
			c.Status, c.Difference = "difference", &diff
		}
		return c, nil
	}
	var err error
	for i := range p.im.Statements.Statements {
		st := &p.im.Statements.Statements[i]
		acct, ok := accounts[st.Account.Key]
		if !ok || st.Intraday {
			continue
		}
		if st.Opening != nil {
			if st.OpeningCheck, err = check(acct, st.Opening, openingDay(st, p.im.Statements.Format)); err != nil {
				return err
			}
		}
		if st.Closing != nil {
			if st.LedgerCheck, err = check(acct, st.Closing, st.Closing.Date); err != nil {
				return err
			}
		}
	}
	return nil
}

// valuation records a balance of account on date, once: a balance the account already has
// from this format for the day is left alone when equal, and corrected (with its old value
// kept for revert) when not.
func (p *publisher) valuation(ctx context.Context, account uuid.UUID, date string, amount decimal.Decimal, kind, externalID, name string) (wrote bool, err error) {
	source := "csv" // a transaction file's running balance
	switch {
	case p.im.Statements != nil:
		source = p.im.Statements.Format
	case p.im.Type == PdfImport:
		source = "pdf"
	}
	var existing struct {
		ID     uuid.UUID       `bun:"id"`
		Amount decimal.Decimal `bun:"amount"`
	}
	err = p.tx.NewRaw(`SELECT id, amount FROM entries WHERE account_id = ? AND source = ? AND external_id = ? AND kind = 'valuation'`,
		account, source, externalID).Scan(ctx, &existing)
	switch {
	case err == nil && existing.Amount.Equal(amount):
		return false, nil
	case err == nil:
		_, err = p.tx.NewRaw(`
			WITH undo AS (
				INSERT INTO import_undo (import_id, target, record_id, previous)
				SELECT ?, 'entry', e.id, jsonb_build_object('date', e.date, 'amount', e.amount, 'currency', e.currency, 'name', e.name,
					'notes', e.notes, 'pending', e.pending, 'external_id', e.external_id)
				FROM entries e WHERE e.id = ? ON CONFLICT DO NOTHING)
			UPDATE entries SET amount = ?, updated_at = now() WHERE id = ?`, p.im.ID, existing.ID, amount, existing.ID).Exec(ctx)
		return err == nil, err
	case !db.IsNoRows(err):
		return false, err
	}
	id := uuid.Must(uuid.NewV7())
	_, err = p.tx.NewRaw(`
		WITH e AS (
			INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, import_id, source, external_id)
			SELECT ?, a.family_id, a.id, 'valuation', ?::date, ?, a.currency, ?, ?, ?, ? FROM accounts a WHERE a.id = ?
			RETURNING id)
		INSERT INTO valuations (entry_id, kind) SELECT id, ? FROM e`,
		id, date, amount, name, p.im.ID, source, externalID, account, kind).Exec(ctx)
	return err == nil, err
}

// openingAnchors gives each account this publish created the opening balance of its earliest
// statement as its anchor, dated the day whose end it is (openingDay), or the day before its
// first entry when that is earlier (the balance before that day's bookings), so that its
// history starts where the bank's does. It returns the days it anchored.
func (p *publisher) openingAnchors(ctx context.Context, accounts map[string]statementAccount) (map[accountDay]bool, error) {
	anchored := map[accountDay]bool{}
	firsts := map[string]*StatementSummary{} // each account's statement with the earliest opening balance
	for i := range p.im.Statements.Statements {
		st := &p.im.Statements.Statements[i]
		if st.Opening == nil || st.Intraday {
			continue
		}
		if f := firsts[st.Account.Key]; f == nil || st.Opening.Date < f.Opening.Date {
			firsts[st.Account.Key] = st
		}
	}
	keys := make([]string, 0, len(firsts))
	for k := range firsts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		acct, ok := accounts[key]
		if !ok || !acct.Created {
			continue
		}
		first := firsts[key]
		date, err := time.Parse(time.DateOnly, openingDay(first, p.im.Statements.Format))
		if err != nil {
			return nil, err
		}
		var firstEntry *time.Time
		if err := p.tx.NewRaw(`SELECT min(date) FROM entries WHERE account_id = ? AND import_id = ? AND kind = 'transaction'`,
			acct.ID, p.im.ID).Scan(ctx, &firstEntry); err != nil {
			return nil, err
		}
		if firstEntry != nil && !date.Before(*firstEntry) {
			date = firstEntry.AddDate(0, 0, -1)
		}
		d := date.Format(time.DateOnly)
		if _, err := p.valuation(ctx, acct.ID, d, tallyBalance(acct, first.Opening.Amount), models.ValuationOpeningAnchor, "balance:"+d, "Opening balance"); err != nil {
			return nil, err
		}
		anchored[accountDay{acct.ID, d}] = true
	}
	return anchored, nil
}

// tallyBalance turns a balance between the statement's sign (what the holder has: a debt is
// negative) and Tally's (a liability account's balance is what is owed, positive). The turn
// is its own inverse.
func tallyBalance(acct statementAccount, amount decimal.Decimal) decimal.Decimal {
	if acct.Liability {
		return amount.Neg()
	}
	return amount
}

// closingAnchors gives each manual account of the file whose balance is not known (it has no
// anchor yet) the latest closing balance the file states for it as its anchor: the bank's word
// is the best there is. It adds the days it anchored to anchored.
func (p *publisher) closingAnchors(ctx context.Context, accounts map[string]statementAccount, anchored map[accountDay]bool) error {
	latest := map[string]*BalanceAt{}
	for _, st := range p.im.Statements.Statements {
		if st.Closing == nil || st.Intraday {
			continue
		}
		if l := latest[st.Account.Key]; l == nil || st.Closing.Date >= l.Date {
			latest[st.Account.Key] = st.Closing
		}
	}
	keys := make([]string, 0, len(latest))
	for k := range latest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		acct, ok := accounts[key]
		if !ok {
			continue
		}
		unknown, err := balanceUnknown(ctx, p.tx, acct.ID)
		if err != nil {
			return err
		}
		if !unknown {
			continue
		}
		b := latest[key]
		if _, err := p.valuation(ctx, acct.ID, b.Date, tallyBalance(acct, b.Amount), models.ValuationCurrentAnchor, "balance:"+b.Date,
			"Balance from the bank's statement"); err != nil {
			return err
		}
		anchored[accountDay{acct.ID, b.Date}] = true
	}
	return nil
}

// balanceUnknown reports whether account is a manual one whose balance is not known: it has
// no anchor, and its value is not set by valuations.
func balanceUnknown(ctx context.Context, idb bun.IDB, account uuid.UUID) (bool, error) {
	var unknown bool
	err := idb.NewRaw(`SELECT a.source IS NULL AND a.accountable_type NOT IN (?) AND NOT EXISTS (
			SELECT 1 FROM entries e JOIN valuations v ON v.entry_id = e.id
			WHERE e.account_id = a.id AND e.kind = 'valuation' AND v.kind IN (?, ?))
		FROM accounts a WHERE a.id = ?`, bun.In(models.ValuedTypes()), models.ValuationOpeningAnchor, models.ValuationCurrentAnchor, account).
		Scan(ctx, &unknown)
	return unknown, err
}

// pdfBalances records the opening and closing balances of a PDF statement whose lines add up
// to them as checkpoints of the import's account, the day before its period and its last day;
// an account whose balance is not known takes the closing one as its anchor. A statement's
// balances are as printed: what a bank account holds, what a card owes.
func (p *publisher) pdfBalances(ctx context.Context) error {
	st := p.im.Statement
	if st == nil || !st.Reconciled || p.im.AccountID == nil || st.Closing == nil || st.PeriodEnd == nil {
		return nil
	}
	account := *p.im.AccountID
	unknown, err := balanceUnknown(ctx, p.tx, account)
	if err != nil {
		return err
	}
	if st.Opening != nil && st.PeriodStart != nil {
		d := st.PeriodStart.AddDate(0, 0, -1).Format(time.DateOnly)
		if _, err := p.valuation(ctx, account, d, *st.Opening, models.ValuationCheckpoint, "balance:"+d, "Statement opening balance"); err != nil {
			return err
		}
	}
	kind, name := models.ValuationCheckpoint, "Statement closing balance"
	if unknown {
		kind, name = models.ValuationCurrentAnchor, "Balance from the bank's statement"
	}
	d := st.PeriodEnd.Format(time.DateOnly)
	_, err = p.valuation(ctx, account, d, *st.Closing, kind, "balance:"+d, name)
	return err
}

// linkIdentifiers remembers which account each of the file's account identifiers went to, so
// that the next file of the account maps itself.
func (p *publisher) linkIdentifiers(ctx context.Context, accounts map[string]statementAccount) error {
	keys := make([]string, 0, len(accounts))
	for k := range accounts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if _, err := p.tx.NewRaw(`
			INSERT INTO account_identifiers (family_id, key, account_id, import_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (family_id, key) DO UPDATE SET account_id = EXCLUDED.account_id, import_id = EXCLUDED.import_id
			WHERE account_identifiers.account_id <> EXCLUDED.account_id`,
			p.im.FamilyID, key, accounts[key].ID, p.im.ID).Exec(ctx); err != nil {
			return fmt.Errorf("link account identifier: %w", err)
		}
	}
	return nil
}
