package imports

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
)

// DuplicateChecked are the types whose publish skips rows that repeat a transaction already in
// their account (DECISIONS 6), so that they are counted before publishing too. Statement files
// are checked by the bank's id first (see publishStatement).
var DuplicateChecked = []Type{TransactionImport, ExternalAppAImport, ExternalAppBImport, ExternalAppCImport, QifImport, PdfImport,
	OfxImport, CamtImport, Mt940Import}

// contentRows selects the rows the content rule compares: the valid transactions, less a QIF
// file's opening balance.
const contentRows = validRows + ` AND r.ticker IS NULL AND (r.extra->>'opening_balance') IS NULL`

// normalized is a name as the content rule compares it: case and spacing do not count.
func normalized(name string) string {
	return `lower(regexp_replace(btrim(` + name + `), '\s+', ' ', 'g'))`
}

// rowAccount is the account of a row (r): the import's own (?1), else its account mapping's.
const rowAccount = `coalesce(?1::uuid, (SELECT am.target_id FROM import_mappings am
	WHERE am.import_id = r.import_id AND am.kind = 'account' AND am.key = r.account_key))`

// bankIDRule is how a statement's row (r) meets the entry (e) of its account (a) with the same
// bank id: nothing changed, or a pending report of what is booked already, is a duplicate; a
// pending entry now booked, or another date, amount, currency or bank's text (compared with
// the bank's, whatever a rule or a person renamed), updates the entry in place. A trade the
// account has is left as it is: its quantity and price are not corrected.
const bankIDRule = `CASE
	WHEN r.ticker IS NOT NULL OR ((r.extra->>'pending')::boolean AND NOT e.pending)
		OR (e.date = r.date AND e.amount = r.amount AND e.currency = coalesce(r.currency, a.currency)
			AND e.pending = (r.extra->>'pending')::boolean AND coalesce(e.original_name, e.name) = r.name) THEN '` + MatchBankID + `'
	WHEN e.pending AND NOT (r.extra->>'pending')::boolean THEN '` + MatchPendingBooked + `'
	ELSE '` + MatchCorrected + `' END`

// rowMatches is the query naming, for each row of an import (?0) that repeats a transaction
// its account had before this import, the rule that matched it (row_number, rule):
//
//   - with bankIDs (a statement's rows before its publish), a bank id repeated in the file, or
//     one the account already has (bankIDRule);
//   - the content rule (MatchContent): the same date, amount, currency and name, ignoring case
//     and spacing (the bank's text of a transaction a rule or a person renamed);
//   - a likely duplicate (MatchLikely): the same date, amount and currency, but another name or
//     none, which publishing skips unless a person keeps the row, or all of them (?3), when it
//     is MatchLikelyKept.
//
// Each entry is matched once: two equal rows against one entry are one duplicate and one new
// row. A row with the bank's own id only matches an entry without one, or from another source,
// so that two equal transactions the bank told apart are never merged. The family is ?2, and
// the rows are those of validRows, whose one placeholder takes the first argument.
//
// The plan cannot depend on the planner's guess at the rows: a new import's id is in no
// statistics, so it takes them for one row, and a join of them with anything is a gamble
// (joined with themselves, as the count for review once was, every row was compared with
// every row: 29 s for 20,000 rows). An ANALYZE after the upload would correct the estimate,
// but its lock is held to the end of the transaction that takes it, so it waits for any other
// ANALYZE of the table (a publish's, see analyzeStaged) and holds up the next. So the query
// joins nothing large with anything: it reads the rows once (p), probes the account's entries
// once for each distinct day, amount and currency of them (k, e: a subquery per key the
// planner cannot turn into a join, OFFSET 0, through entries_transfer_match_idx: the family's
// transactions of one day and amount, a split's whole and not its parts), counted
// by name, and then sorts the rows among those counts: window functions over one stream, not
// rows compared pairwise. Equal rows share one probe, and an entry's name is worked out once
// for its key, not once for each row of its day and amount (a file with 29 rows a day and
// amount, uploaded again, spent 4 s doing that).
func rowMatches(bankIDs bool) string {
	rows, bank, probed := contentRows, `NULL::text`, `true`
	if bankIDs {
		rows = validRows
		bank = `CASE WHEN r.extra \? 'in_file_duplicate' THEN '` + MatchInFile + `' ELSE (
			SELECT ` + bankIDRule + ` FROM accounts a JOIN entries e ON e.account_id = a.id
			WHERE a.id = ` + rowAccount + ` AND a.family_id = ?2
				AND e.source = r.extra->>'source' AND e.external_id = r.extra->>'external_id' AND e.kind IN ('transaction', 'trade')
			OFFSET 0) END`
		probed = `r.ticker IS NULL AND (r.extra->>'opening_balance') IS NULL`
	}
	// key is what the entries a row is compared with have in common: its account (none when
	// the row is not compared by content), day, amount and currency, and for a row with the
	// bank's id, its source.
	const key = `account_id, date, amount, currency, no_id, source`
	return `WITH p AS MATERIALIZED (
			SELECT r.row_number, r.keep, b.rule AS bank_rule, CASE WHEN b.rule IS NULL AND ` + probed + ` THEN a.id END AS account_id,
				r.date, r.amount, coalesce(r.currency, a.currency) AS currency, r.extra->>'external_id' IS NULL AS no_id,
				CASE WHEN r.extra->>'external_id' IS NOT NULL THEN r.extra->>'source' END AS source, coalesce(r.name, '') AS name
			FROM import_rows r
			CROSS JOIN LATERAL (SELECT ` + bank + ` AS rule) b
			LEFT JOIN LATERAL (SELECT a.id, a.currency FROM accounts a WHERE a.id = ` + rowAccount + ` AND a.family_id = ?2 OFFSET 0) a ON true
			WHERE ` + rows + `),
		k AS (SELECT DISTINCT ` + key + ` FROM p WHERE account_id IS NOT NULL),
		e AS (
			SELECT k.*, x.name, x.n FROM k CROSS JOIN LATERAL (
				SELECT ` + normalized("coalesce(e.original_name, e.name)") + ` AS name, count(*) AS n
				FROM entries e
				WHERE e.family_id = ?2 AND e.amount = k.amount AND e.date = k.date
					AND e.kind = 'transaction' AND e.parent_id IS NULL
					AND e.account_id = k.account_id AND e.currency = k.currency AND e.import_id IS DISTINCT FROM ?0
					AND (k.no_id OR e.external_id IS NULL OR e.source IS DISTINCT FROM k.source)
				GROUP BY 1 OFFSET 0) x),
		-- The rows and the entries of their keys, less the rows whose key has none (which
		-- match nothing by content): how many entries each key has.
		c AS (
			SELECT * FROM (
				SELECT u.*, sum(u.n) OVER (PARTITION BY ` + key + `) AS entries
				FROM (SELECT row_number, keep, bank_rule, ` + key + `, name, 0::bigint AS n FROM p
					UNION ALL SELECT NULL, NULL, NULL, ` + key + `, name, n FROM e) u) t
			WHERE bank_rule IS NOT NULL OR entries > 0),
		-- Then how many of each key's entries have each row's name, as compared (the row's
		-- name is worked out here, for the rows that have entries to compare it with).
		d AS (
			SELECT f.*, sum(f.n) OVER (PARTITION BY ` + key + `, name) AS named
			FROM (SELECT row_number, keep, bank_rule, ` + key + `, entries, n,
				CASE WHEN row_number IS NULL THEN name ELSE ` + normalized("name") + ` END AS name FROM c) f)
	SELECT row_number, rule FROM (
		SELECT row_number, CASE
			WHEN bank_rule IS NOT NULL THEN bank_rule
			WHEN exact THEN '` + MatchContent + `'
			-- The day's entries not matched by name are matched by the other rows, in file order.
			WHEN row_number() OVER (PARTITION BY ` + key + `, exact ORDER BY row_number)
				<= entries - count(*) FILTER (WHERE exact) OVER (PARTITION BY ` + key + `)
				THEN CASE WHEN keep OR ?3 THEN '` + MatchLikelyKept + `' ELSE '` + MatchLikely + `' END
			END AS rule
		FROM (
			-- A row matches by name while the day's entries of its name outnumber the rows of its
			-- name before it.
			SELECT d.*, row_number() OVER (PARTITION BY ` + key + `, name ORDER BY row_number) <= named AS exact
			FROM d WHERE row_number IS NOT NULL) x) y
	WHERE rule IS NOT NULL`
}

// rowMatchArgs are rowMatches' arguments for the import im.
func rowMatchArgs(im *Import) []any {
	return []any{im.ID, im.AccountID, im.FamilyID, im.KeepLikelyDuplicates}
}

// Matches is how the rows of a pending import meet what their accounts already hold, by the
// rule that matched them (rowMatches).
type Matches struct {
	// Duplicates are the rows publishing will skip: the same bank id or content, or a likely
	// duplicate nobody keeps. Likely counts the latter, and Kept the likely duplicates a
	// person keeps.
	Duplicates, Likely, Kept int
}

// AlreadyThere says which valid rows of a pending (or failed) import repeat a transaction
// already in their account, and which of them publishing will skip: nothing for imports of
// other states or types. The rows of page (a page of the import's rows) are marked with the
// rule that matched each.
func AlreadyThere(ctx context.Context, idb bun.IDB, d *Detail, page []RowDiagnostic) (Matches, error) {
	var m Matches
	if !d.Unpublished() || !slices.Contains(DuplicateChecked, d.Type) || d.Stats.ValidRowsCount == 0 {
		return m, nil
	}
	numbers := make([]int, len(page))
	for i, r := range page {
		numbers[i] = r.RowNumber
	}
	var found []struct {
		Rule string `bun:"rule"`
		N    int    `bun:"n"`
		Rows []int  `bun:"rows,array"`
	}
	args := append(rowMatchArgs(d.Import), pgdialect.Array(numbers))
	if err := idb.NewRaw(`SELECT rule, count(*) AS n, coalesce(array_agg(row_number) FILTER (WHERE row_number = ANY (?4::int[])), '{}') AS rows
		FROM (`+rowMatches(d.Type.IsStatementFile())+`) m GROUP BY rule`, args...).Scan(ctx, &found); err != nil && !db.IsNoRows(err) {
		return m, fmt.Errorf("rows already there: %w", err)
	}
	for _, f := range found {
		switch f.Rule {
		case MatchLikely:
			m.Likely += f.N
			m.Duplicates += f.N
		case MatchLikelyKept:
			m.Kept += f.N
		case MatchBankID, MatchContent, MatchInFile:
			m.Duplicates += f.N
		}
		for _, n := range f.Rows {
			if i := slices.Index(numbers, n); i >= 0 {
				page[i].MatchedBy = f.Rule
			}
		}
	}
	return m, nil
}

// markDuplicates marks the rows that repeat a transaction that existed before this import
// (rowMatches' content rule and likely duplicates), which publishing skips but for the likely
// duplicates a person keeps. Duplicates are reported and skipped, never claimed.
func (p *publisher) markDuplicates(ctx context.Context) error {
	accounts, err := p.rowAccounts(ctx)
	if err != nil {
		return err
	}
	// A family importing into new or empty accounts has nothing to match: skip the work. The
	// check is one probe per account the rows go to, not a join of the rows with the entries:
	// a publish handed back after a crash finds the accounts full of the dead entries of its
	// first attempt, and a join of every row with them took a minute for 40,000 rows.
	var any bool
	if err := p.tx.NewRaw(`SELECT EXISTS (
		SELECT 1 FROM unnest(?::uuid[]) AS t(id)
		CROSS JOIN LATERAL (SELECT 1 FROM entries e WHERE e.account_id = t.id AND e.kind = 'transaction'
			AND e.import_id IS DISTINCT FROM ? LIMIT 1) e)`, pgdialect.Array(accounts), p.im.ID).Scan(ctx, &any); err != nil {
		return err
	}
	if !any {
		return nil
	}
	var found []struct {
		Row  int    `bun:"row_number"`
		Rule string `bun:"rule"`
	}
	if err := p.tx.NewRaw(rowMatches(false), rowMatchArgs(p.im)...).Scan(ctx, &found); err != nil && !db.IsNoRows(err) {
		return fmt.Errorf("find duplicates: %w", err)
	}
	rows, rules := make([]int, len(found)), make([]string, len(found))
	for i, f := range found {
		rows[i], rules[i] = f.Row, f.Rule
		switch f.Rule {
		case MatchLikely:
			p.likely++
			p.duplicates++
		case MatchContent:
			p.duplicates++
		}
	}
	if len(found) == 0 {
		return nil
	}
	_, err = p.tx.NewRaw(`UPDATE import_rows r SET duplicate = (m.rule <> ?), extra = coalesce(r.extra, '{}') || jsonb_build_object('matched_by', m.rule)
		FROM unnest(?::int[], ?::text[]) AS m(row_number, rule) WHERE r.import_id = ? AND r.row_number = m.row_number`,
		MatchLikelyKept, pgdialect.Array(rows), pgdialect.Array(rules), p.im.ID).Exec(ctx)
	return err
}

// KeepChoice is which likely duplicates of a pending import its publish keeps: all of them
// (All, when set), and rows by number (Rows, row number to keep or not).
type KeepChoice struct {
	All  *bool
	Rows map[int]bool
}

// Keep records which likely duplicates of the family's pending (or failed) import its publish
// keeps rather than skips. A row number the import does not have is refused, naming it.
func (s *Service) Keep(ctx context.Context, familyID, id uuid.UUID, k KeepChoice) error {
	return s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if im.FamilyID != familyID {
			return importNotFound()
		}
		if !im.Unpublished() {
			return apperr.Errorf(apperr.Conflict, "An import that is %s keeps what it kept: revert it first.", im.Status).WithSlug("not_publishable")
		}
		if k.All != nil {
			if _, err := tx.NewRaw("UPDATE imports SET keep_likely_duplicates = ?, updated_at = now() WHERE id = ?", *k.All, id).Exec(ctx); err != nil {
				return err
			}
		}
		if len(k.Rows) == 0 {
			return nil
		}
		numbers, keep := make([]int, 0, len(k.Rows)), make([]bool, 0, len(k.Rows))
		for n, v := range k.Rows {
			numbers, keep = append(numbers, n), append(keep, v)
		}
		var missing []int
		if err := tx.NewRaw(`SELECT coalesce(array_agg(n ORDER BY n), '{}') FROM unnest(?::int[]) AS n
			WHERE NOT EXISTS (SELECT 1 FROM import_rows r WHERE r.import_id = ? AND r.row_number = n)`,
			pgdialect.Array(numbers), id).Scan(ctx, pgdialect.Array(&missing)); err != nil {
			return err
		}
		if len(missing) > 0 {
			var v apperr.Validation
			v.Add("keep_rows", fmt.Sprintf("the import has no row %d", missing[0]))
			return v.Err()
		}
		_, err = tx.NewRaw(`UPDATE import_rows r SET keep = k.keep FROM unnest(?::int[], ?::boolean[]) AS k(row_number, keep)
			WHERE r.import_id = ? AND r.row_number = k.row_number`, pgdialect.Array(numbers), pgdialect.Array(keep), id).Exec(ctx)
		return err
	})
}
