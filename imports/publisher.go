package imports

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/merchants"
	"tally/models"
	"tally/rules"
	"tally/transfers"
)

// publisher writes one import's rows inside the publish transaction. The rows were typed and
// checked when the file was uploaded, so publishing is set-based SQL over import_rows: a
// statement per batch, not a round trip per row.
type publisher struct {
	svc *Service
	tx  db.Tx
	im  *Import
	// duplicates counts the rows skipped as duplicates, likely the likely duplicates of them.
	duplicates, likely int
	accounts           []uuid.UUID // accounts whose balance the publish changes
	// rulesRan says the family's rules already ran over the rows (stageRules), and
	// ruleResults that they changed some, which rule_results holds.
	rulesRan, ruleResults bool
	// merchants says the rows' bank texts have merchants, which import_merchants holds
	// (deriveMerchants).
	merchants bool
	// transfers are the transfers proposed for the rows before they are written
	// (matchTransfers), nil where the match runs over the written entries; transferKinds says
	// some rows take a transfer's kind, which import_transfer_kinds holds.
	transfers     *transfers.Proposals
	transferKinds bool
}

// validRows is the condition selecting the rows a publish writes.
const validRows = "r.import_id = ? AND cardinality(r.errors) = 0 AND NOT r.duplicate"

// analyzeStaged gathers statistics of the staged rows before a publish: they arrived by COPY
// moments ago, and without statistics the planner takes the table for empty and joins it row
// by row. The columns the publish filters and joins on are enough, at a third of the cost of
// the whole table's statistics.
//
// It runs in a transaction of its own, before the publish's: ANALYZE locks the table against
// every other ANALYZE until its transaction ends, so inside the publish's transaction it made
// the publishes of every family wait for one another.
const analyzeStaged = "ANALYZE import_rows (import_id, row_number, account_key, date, amount)"

func (p *publisher) run(ctx context.Context) error {
	if err := p.createMappedRecords(ctx); err != nil {
		return err
	}
	var err error
	switch p.im.Type {
	case AccountImport:
		err = p.publishAccounts(ctx)
	case CategoryImport, MerchantImport, RuleImport:
		err = p.publishTaxonomy(ctx)
	case OfxImport, CamtImport, Mt940Import:
		err = p.publishStatement(ctx)
	case PdfImport:
		if err = p.publishEntries(ctx); err == nil {
			err = p.pdfBalances(ctx)
		}
	case TransactionImport:
		if err = p.publishEntries(ctx); err == nil {
			err = p.csvBalances(ctx)
		}
	default:
		err = p.publishEntries(ctx)
	}
	if err != nil {
		return err
	}
	return timed(ctx, "balances", func(ctx context.Context) error { return models.RecomputeBalances(ctx, p.tx, p.accounts) })
}

// perRow joins what query (which reads the row r) finds for each row as alias: a subquery per
// row that the planner cannot turn into a join (OFFSET 0), so that it is costed for one row,
// whatever the planner believes of the rows, and probes the key of any table larger than a
// few pages. The planner does believe wrong: the filters of validRows
// and entryRows have no statistics (an expression of errors or extra), so a batch of 5,000
// staged rows is planned as one row, and a plain join to a table of the import's merchants was
// read whole for every row: 2.5 million comparisons a batch, two thirds of a publish.
func perRow(alias, query string) string {
	return "LEFT JOIN LATERAL (" + query + " OFFSET 0) " + alias + " ON true"
}

var (
	// accountMapping joins a row to its account mapping, am; the row's account is the
	// import's fixed account, else the mapping's target.
	accountMapping = perRow("am", `SELECT target_id FROM import_mappings
		WHERE import_id = r.import_id AND kind = 'account' AND key = r.account_key`)
	// categoryMapping joins a row to its category mapping, cm.
	categoryMapping = perRow("cm", `SELECT target_id FROM import_mappings
		WHERE import_id = r.import_id AND kind = 'category' AND key = r.category_key`)
	// ruleResult joins a row to what the rules set for it, rr (stageRules).
	ruleResult = perRow("rr", `SELECT * FROM rule_results WHERE id = r.record_id`)
	// transferKind joins a row to the kind its transfer gives it, tk (matchTransfers).
	transferKind = perRow("tk", `SELECT kind FROM import_transfer_kinds WHERE id = r.record_id`)
	// rowMerchant joins a row to the merchant its bank text names, xm (deriveMerchants): the
	// one chosen by hand for the text, else its derived name's.
	rowMerchant = perRow("xm", `SELECT `+merchants.Of("r.name")+` AS merchant_id WHERE r.ticker IS NULL`)
)

// publishEntries publishes transactions and trades: duplicates first, then the batches.
func (p *publisher) publishEntries(ctx context.Context) error {
	if err := p.checkAccounts(ctx); err != nil {
		return err
	}
	if err := timed(ctx, "duplicates", p.markDuplicates); err != nil {
		return err
	}
	if err := p.createSecurities(ctx); err != nil {
		return err
	}
	if err := timed(ctx, "merchants", p.deriveMerchants); err != nil {
		return err
	}
	if err := timed(ctx, "rules", p.stageRules); err != nil {
		return err
	}
	if err := timed(ctx, "transfers", p.matchTransfers); err != nil {
		return err
	}
	if err := timed(ctx, "entries", p.entryBatches); err != nil {
		return err
	}
	if err := timed(ctx, "transfers", func(ctx context.Context) error { _, err := p.transfers.Write(ctx, p.tx); return err }); err != nil {
		return err
	}
	if err := p.openingBalance(ctx); err != nil {
		return err
	}
	// The accounts written to. A mapping whose rows all turned out duplicates costs a
	// recompute that changes nothing.
	var err error
	p.accounts, err = p.rowAccounts(ctx)
	return err
}

// createSecurities adds the securities the rows trade that Tally does not know yet.
func (p *publisher) createSecurities(ctx context.Context) error {
	if _, err := p.tx.NewRaw(`
		INSERT INTO securities (id, ticker, exchange_operating_mic, name)
		SELECT gen_random_uuid(), s.ticker, s.mic, s.ticker
		FROM (SELECT DISTINCT r.ticker, r.mic FROM import_rows r WHERE `+validRows+` AND r.ticker IS NOT NULL) s
		ON CONFLICT (ticker, (coalesce(exchange_operating_mic, ''))) DO NOTHING`, p.im.ID).Exec(ctx); err != nil {
		return fmt.Errorf("create securities: %w", err)
	}
	return nil
}

// checkAccounts makes sure every valid row has an account, so that none is silently left out.
func (p *publisher) checkAccounts(ctx context.Context) error {
	if p.im.AccountID != nil {
		return nil
	}
	var missing []string
	err := p.tx.NewRaw(`
		SELECT format('Row %s: account %L is not mapped to an account', r.row_number, coalesce(r.account_key, ''))
		FROM import_rows r `+accountMapping+`
		WHERE `+validRows+` AND am.target_id IS NULL ORDER BY r.row_number LIMIT 5`, p.im.ID).Scan(ctx, &missing)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return apperr.New(apperr.Invalid, missing[0])
	}
	return nil
}

// rowAccounts are the accounts the import's rows go to: its own, else those its account
// mappings point at.
func (p *publisher) rowAccounts(ctx context.Context) ([]uuid.UUID, error) {
	if p.im.AccountID != nil {
		return []uuid.UUID{*p.im.AccountID}, nil
	}
	var ids []uuid.UUID
	err := p.tx.NewRaw(`SELECT coalesce(array_agg(DISTINCT target_id), '{}') FROM import_mappings
		WHERE import_id = ? AND kind = 'account' AND target_id IS NOT NULL`, p.im.ID).Scan(ctx, pgdialect.Array(&ids))
	return ids, err
}

// entryBatches writes the valid rows as entries, a batch at a time, recording progress.
func (p *publisher) entryBatches(ctx context.Context) error {
	// How many rows each batch must write, counted in one pass rather than one per batch.
	var counts []struct {
		Batch int `bun:"batch"`
		N     int `bun:"n"`
	}
	if err := p.tx.NewRaw(`SELECT (r.row_number - 1) / ? AS batch, count(*) AS n FROM import_rows r WHERE `+entryRows+` GROUP BY 1`,
		publishBatch, p.im.ID).Scan(ctx, &counts); err != nil {
		return err
	}
	want := make(map[int]int, len(counts))
	for _, c := range counts {
		want[c.Batch] = c.N
	}
	var trades bool
	if err := p.tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM import_rows r WHERE `+entryRows+` AND r.ticker IS NOT NULL)`, p.im.ID).Scan(ctx, &trades); err != nil {
		return err
	}
	total := p.im.RowsCount
	for lo := 0; lo < total; lo += publishBatch {
		hi := lo + publishBatch
		if n := want[lo/publishBatch]; n > 0 {
			wrote, err := p.insertEntries(ctx, lo, hi)
			if err != nil {
				return fmt.Errorf("write entries: %w", err)
			}
			// Every valid row becomes an entry: a row whose account went missing must fail
			// the publish, not vanish from it.
			if wrote != n {
				return apperr.Errorf(apperr.Invalid, "%d of rows %d to %d have no account any more; publish the import again.", n-wrote, lo+1, hi)
			}
			if trades {
				if err := p.tradeBatch(ctx, lo, hi); err != nil {
					return err
				}
			}
		}
		p.svc.progress(ctx, p.im.ID, min(hi, total), total)
	}
	return nil
}

// entryRows selects the rows that become entries: the valid ones, less a QIF file's opening
// balance and a statement's holdings, which are written apart.
const entryRows = validRows + ` AND (r.extra->>'opening_balance') IS NULL AND (r.extra->>'holding') IS NULL`

// rowTags are a row's tag ids, through the import's tag mappings.
const rowTags = `CASE WHEN r.tags IS NULL THEN '{}'::uuid[] ELSE ARRAY(
	SELECT DISTINCT tm.target_id FROM unnest(r.tags) AS t(name)
	JOIN import_mappings tm ON tm.import_id = r.import_id AND tm.kind = 'tag' AND tm.key = t.name
	WHERE tm.target_id IS NOT NULL) END`

// stageRules runs the family's rules over the rows about to become transactions, so that
// the entries are written with what the rules set (rule_results) rather than written and then
// changed, which would cost a second write of every matching row.
func (p *publisher) stageRules(ctx context.Context) error {
	set, err := (rules.Runner{Log: p.svc.Log}).Compiled(ctx, p.tx, p.im.FamilyID)
	if err != nil || set.Len() == 0 {
		return err
	}
	p.rulesRan = true
	merchant, join := p.merchantJoin()
	n, err := set.Stage(ctx, p.tx, `
		SELECT r.record_id, a.id, r.date, (r.amount * 10000)::bigint, coalesce(r.currency, a.currency), r.name, coalesce(r.notes, ''),
			cm.target_id, `+merchant+`, `+rowTags+`, false, '{}'::text[], NULL::text
		FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce($1::uuid, am.target_id) AND a.family_id = $2
		`+categoryMapping+`
		`+join+`
		WHERE r.import_id = $3 AND cardinality(r.errors) = 0 AND NOT r.duplicate
			AND (r.extra->>'opening_balance') IS NULL AND (r.extra->>'holding') IS NULL AND r.ticker IS NULL`,
		p.im.AccountID, p.im.FamilyID, p.im.ID)
	p.ruleResults = n > 0
	return err
}

// matchTransfers proposes the transfers of the rows about to become transactions, with one
// another and with the family's transactions, after the rules (whose kinds pair first), so
// that each entry is written once with its transfer's kind (import_transfer_kinds) rather
// than written and then given it: an UPDATE of every transfer's side, every index written
// again, was a sixth of the publish of a file of transfers.
func (p *publisher) matchTransfers(ctx context.Context) error {
	kind := "'standard'"
	join := ""
	if p.ruleResults {
		kind, join = "coalesce(rr.transaction_kind, 'standard')", ruleResult
	}
	var err error
	p.transfers, err = transfers.MatchStaged(ctx, p.tx, p.im.FamilyID, p.im.AccountID != nil, `
		SELECT r.record_id AS id, a.id AS account_id, a.accountable_type, coalesce(r.currency, a.currency) AS currency,
			r.amount, r.date, `+kind+` AS transaction_kind
		FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce(?::uuid, am.target_id) AND a.family_id = ?
		`+join+`
		WHERE `+entryRows+` AND r.ticker IS NULL AND NOT coalesce((r.extra->>'pending')::boolean, false)`,
		p.im.AccountID, p.im.FamilyID, p.im.ID)
	if err != nil {
		return err
	}
	ids, kinds := p.transfers.StagedKinds()
	if len(ids) == 0 {
		return nil
	}
	rows := make([][]any, len(ids))
	for i := range ids {
		rows[i] = []any{ids[i], kinds[i]}
	}
	if _, err := p.tx.Pgx.Exec(ctx, `CREATE TEMP TABLE import_transfer_kinds (id uuid PRIMARY KEY, kind text NOT NULL) ON COMMIT DROP`); err != nil {
		return err
	}
	if _, err := p.tx.Pgx.CopyFrom(ctx, pgx.Identifier{"import_transfer_kinds"}, []string{"id", "kind"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("transfer kinds: %w", err)
	}
	if _, err := p.tx.Pgx.Exec(ctx, "ANALYZE import_transfer_kinds"); err != nil {
		return err
	}
	p.transferKinds = true
	return nil
}

// merchantJoin is a row's merchant as its bank text names it, and the join that reads it
// (none when no row has one). A trade has none.
func (p *publisher) merchantJoin() (merchant, join string) {
	if !p.merchants {
		return "NULL::uuid", ""
	}
	return "xm.merchant_id", rowMerchant
}

// insertEntries writes rows (lo, hi] as entries, with their tags and what the rules set, and
// says how many it wrote.
func (p *publisher) insertEntries(ctx context.Context, lo, hi int) (int, error) {
	im := p.im
	// Without rule results, the row's own values; with them, the results' where a rule changed
	// the field (rule_results is NULL where none did).
	merchant, join := p.merchantJoin()
	name, category, tags, excluded, original, kind := "r.name", "cm.target_id", rowTags, "false", "NULL::text", "'standard'"
	if p.ruleResults {
		name, category = "coalesce(rr.name, r.name)", "coalesce(rr.category_id, cm.target_id)"
		tags = "CASE WHEN rr.tag_ids IS NULL THEN " + rowTags + " ELSE rr.tag_ids END"
		merchant, excluded, original = "coalesce(rr.merchant_id, "+merchant+")", "coalesce(rr.excluded, false)", "rr.original_name"
		kind = "coalesce(rr.transaction_kind, 'standard')"
		join += " " + ruleResult
	}
	if p.transferKinds {
		kind = "coalesce(tk.kind, " + kind + ")"
		join += " " + transferKind
	}
	res, err := p.tx.NewRaw(`
		INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes, category_id, tag_ids, import_id, source,
			external_id, pending, merchant_id, excluded, original_name, transaction_kind)
		SELECT r.record_id, ?, a.id, CASE WHEN r.ticker IS NULL THEN 'transaction' ELSE 'trade' END,
			r.date, r.amount, coalesce(r.currency, a.currency), `+name+`, coalesce(r.notes, ''), `+category+`, `+tags+`,
			r.import_id, coalesce(r.extra->>'source', 'import'), r.extra->>'external_id', coalesce((r.extra->>'pending')::boolean, false),
			`+merchant+`, `+excluded+`, `+original+`, `+kind+`
		FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce(?::uuid, am.target_id) AND a.family_id = ?
		`+categoryMapping+`
		`+join+`
		WHERE `+entryRows+` AND r.row_number > ? AND r.row_number <= ?`, im.FamilyID, im.AccountID, im.FamilyID, im.ID, lo, hi).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// tradeBatch writes the trades of rows (lo, hi], whose entries are written.
func (p *publisher) tradeBatch(ctx context.Context, lo, hi int) error {
	if _, err := p.tx.NewRaw(`
		INSERT INTO trades (entry_id, security_id, qty, price, currency)
		SELECT r.record_id, s.id, r.qty, r.price, e.currency
		FROM import_rows r
		JOIN entries e ON e.id = r.record_id
		JOIN securities s ON s.ticker = r.ticker AND coalesce(s.exchange_operating_mic, '') = coalesce(r.mic, '')
		WHERE `+entryRows+` AND r.row_number > ? AND r.row_number <= ? AND r.ticker IS NOT NULL`, p.im.ID, lo, hi).Exec(ctx); err != nil {
		return fmt.Errorf("write trades: %w", err)
	}
	return nil
}

// openingBalance writes a QIF file's "Opening Balance" record: the account's anchor when its
// balance is not known yet, else a checkpoint set against the balance it has.
func (p *publisher) openingBalance(ctx context.Context) error {
	_, err := p.tx.NewRaw(`
		WITH e AS (
			INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, import_id, source)
			SELECT r.record_id, a.family_id, a.id, 'valuation', r.date, r.amount, a.currency, 'Opening balance', r.import_id, 'import'
			FROM import_rows r JOIN accounts a ON a.id = ?
			WHERE `+validRows+` AND (r.extra->>'opening_balance') IS NOT NULL
			RETURNING id, account_id)
		INSERT INTO valuations (entry_id, kind)
		SELECT e.id, CASE WHEN EXISTS (SELECT 1 FROM entries x JOIN valuations v ON v.entry_id = x.id
				WHERE x.account_id = e.account_id AND x.kind = 'valuation' AND v.kind IN ('opening_anchor', 'current_anchor'))
			THEN 'checkpoint' ELSE 'opening_anchor' END
		FROM e`, p.im.AccountID, p.im.ID).Exec(ctx)
	return err
}

// publishAccounts publishes an AccountImport: one account per row, with its balance as an opening
// anchor dated the row's date (two years ago when it has none).
func (p *publisher) publishAccounts(ctx context.Context) error {
	im, tx := p.im, p.tx
	fam, err := models.FamilyByID(ctx, tx, im.FamilyID)
	if err != nil {
		return err
	}
	if _, err := tx.NewRaw(`
		INSERT INTO accounts (id, family_id, name, accountable_type, currency, balance, cash_balance, import_id, source)
		SELECT r.record_id, ?, r.name, r.entity_type, coalesce(r.currency, ?), r.amount, r.amount, r.import_id, NULL
		FROM import_rows r WHERE `+validRows+`
		ON CONFLICT (id) DO NOTHING`, im.FamilyID, fam.Currency, im.ID).Exec(ctx); err != nil {
		return fmt.Errorf("create accounts: %w", err)
	}
	defaultDate := p.svc.now().AddDate(-2, 0, 0)
	if _, err := tx.NewRaw(`
		WITH e AS (
			INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, import_id, source)
			SELECT gen_random_uuid(), ?, r.record_id, 'valuation', coalesce(r.date, ?::date), r.amount, coalesce(r.currency, ?), 'Opening balance', r.import_id, 'import'
			FROM import_rows r JOIN accounts a ON a.id = r.record_id AND a.import_id = r.import_id
			WHERE `+validRows+`
			RETURNING id)
		INSERT INTO valuations (entry_id, kind) SELECT id, 'opening_anchor' FROM e`,
		im.FamilyID, defaultDate.Format(time.DateOnly), fam.Currency, im.ID).Exec(ctx); err != nil {
		return fmt.Errorf("set opening balances: %w", err)
	}
	p.svc.progress(ctx, im.ID, im.RowsCount, im.RowsCount)
	return nil
}

// createMappedRecords creates the accounts, categories and tags that mappings mark "create
// new", and points the mappings at them. Each created record carries the import's id, so that
// revert can remove it.
func (p *publisher) createMappedRecords(ctx context.Context) error {
	// Targets were chosen at upload; one may have gone since (another import's revert, a
	// deleted tag). Such a mapping is created anew rather than left pointing at nothing.
	_, err := p.tx.NewRaw(`
		UPDATE import_mappings m SET target_id = NULL, created = false, create_when_empty = (m.kind <> 'account_type')
		WHERE m.import_id = ? AND m.target_id IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM accounts a WHERE m.kind = 'account' AND a.id = m.target_id AND a.family_id = ?
			UNION ALL SELECT 1 FROM categories c WHERE m.kind = 'category' AND c.id = m.target_id AND c.family_id = ?
			UNION ALL SELECT 1 FROM tags t WHERE m.kind = 'tag' AND t.id = m.target_id AND t.family_id = ?)`,
		p.im.ID, p.im.FamilyID, p.im.FamilyID, p.im.FamilyID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("refresh mappings: %w", err)
	}
	var ms []mapping
	if err := p.tx.NewSelect().Model(&ms).
		Where("import_id = ? AND target_id IS NULL AND create_when_empty", p.im.ID).
		OrderExpr("kind, key").Scan(ctx); err != nil {
		return err
	}
	for _, m := range ms {
		var id uuid.UUID
		var err error
		switch m.Kind {
		case MapAccount:
			id, err = p.createAccount(ctx, m)
		case MapCategory:
			var parentID *uuid.UUID
			if parent := categoryParent(m.Key); parent != "" {
				pid, err := p.findOrCreate(ctx, "categories", parent, nil)
				if err != nil {
					return err
				}
				parentID = &pid
			}
			id, err = p.findOrCreate(ctx, "categories", categoryLeaf(m.Key), parentID)
		case MapTag:
			id, err = p.findOrCreate(ctx, "tags", m.Key, nil)
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("create %s %q: %w", m.Kind, m.Key, err)
		}
		if _, err := p.tx.NewUpdate().Model((*mapping)(nil)).Where("id = ?", m.ID).
			Set("target_id = ?", id).Set("created = true").Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// createAccount creates the account a mapping stands for: named as the file names it, a
// Depository in the family's currency; or, for a statement's account, of the mapping's type
// in the statement's currency.
func (p *publisher) createAccount(ctx context.Context, m mapping) (uuid.UUID, error) {
	fam, err := models.FamilyByID(ctx, p.tx, p.im.FamilyID)
	if err != nil {
		return uuid.Nil, err
	}
	name, typ, currency, subtype := m.Key, "Depository", fam.Currency, ""
	if sa, ok := p.im.Statements.account(m.Key); ok {
		name, typ, currency = sa.Name, sa.Type, firstNonBlank(sa.Currency, fam.Currency)
		name, _ = models.Clip(name, models.MaxName)
		if m.Value != nil {
			typ = *m.Value
		}
		subtype = accountSubtype(typ, sa.Kind)
	}
	id := uuid.Must(uuid.NewV7())
	_, err = p.tx.NewRaw(`INSERT INTO accounts (id, family_id, name, accountable_type, subtype, currency, import_id)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, id, p.im.FamilyID, name, typ, subtype, currency, p.im.ID).Exec(ctx)
	return id, err
}

// findOrCreate returns the family's category or tag called name, creating it (as this
// import's) when there is none.
func (p *publisher) findOrCreate(ctx context.Context, table, name string, parentID *uuid.UUID) (uuid.UUID, error) {
	var id uuid.UUID
	err := p.tx.NewRaw("SELECT id FROM ? WHERE family_id = ? AND name = ?", bun.Ident(table), p.im.FamilyID, name).Scan(ctx, &id)
	if err == nil {
		return id, nil
	}
	if !db.IsNoRows(err) {
		return uuid.Nil, err
	}
	id = uuid.Must(uuid.NewV7())
	if table == "categories" {
		_, err = p.tx.NewRaw("INSERT INTO categories (id, family_id, name, parent_id, import_id) VALUES (?, ?, ?, ?, ?)",
			id, p.im.FamilyID, name, parentID, p.im.ID).Exec(ctx)
	} else {
		_, err = p.tx.NewRaw("INSERT INTO tags (id, family_id, name, import_id) VALUES (?, ?, ?, ?)",
			id, p.im.FamilyID, name, p.im.ID).Exec(ctx)
	}
	return id, err
}
