package imports

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/budgets"
	"tally/imports/native"
	"tally/internal/db"
	"tally/models"
	"tally/rules"
	"tally/transfers"
)

// nativeWriter publishes the records of a NativeImport, one file or a session's chunks in
// sequence, inside the publish transaction. Each chunk is written type by type in the fixed
// order of native.Types, whatever the line order; source ids are remapped to new ids as
// records are made, so later records (and later chunks) can refer to them. The bulk of the
// records (accounts, balances, entries, holdings, budgets) go to their tables with COPY, a
// table at a time; taxonomy goes in one statement per type, rules one by one (a family has
// few), and the cross-record fixes are set-based SQL.
//
// Records merge into the family: a category, tag or merchant whose name the family already
// has, and a budget for the same period, are reused rather than duplicated (DECISIONS 11).
type nativeWriter struct {
	tx       db.Tx
	im       *Import
	currency string // the family's
	now      time.Time

	ids        map[string]map[string]uuid.UUID // source-id namespace → source id → record id
	accounts   map[uuid.UUID]*nativeAccount    // the accounts this import creates
	names      map[string]map[string]uuid.UUID // categories, tags, merchants → name → id
	budgets    map[string]uuid.UUID            // "start|end" → the family's budget
	budgetCur  map[uuid.UUID]string            // budget → currency
	securities map[string]uuid.UUID            // "id:<source id>" or "t:<ticker>|<mic>" → security
	seen       map[string]bool                 // upsert keys of balances, holdings, transfers, budget categories
	summary    Summary
	links      map[linkKey]string         // import_links: record → merged or synthesized
	budgetCats map[[2]uuid.UUID]uuid.UUID // (budget, category) → the family's budget category
	entries    entryBatch
	merge      *moveInMerge // a move-in's: what it merges into
}

// nativeAccount is what publish remembers of an account it creates.
type nativeAccount struct {
	typ         models.AccountType
	currency    string
	balance     decimal.Decimal
	skipOpening bool // the file says not to make an opening balance
	hasOpening  bool // the file has an opening_anchor valuation for it
	openingDate *time.Time
	earliest    *time.Time      // the oldest dated record of the account in the file
	flows       decimal.Decimal // the sum of its transactions' amounts
	hasFlows    bool
}

func newNativeWriter(ctx context.Context, tx db.Tx, im *Import, now time.Time) (*nativeWriter, error) {
	w := &nativeWriter{tx: tx, im: im, now: now,
		ids: map[string]map[string]uuid.UUID{}, accounts: map[uuid.UUID]*nativeAccount{},
		names: map[string]map[string]uuid.UUID{}, budgets: map[string]uuid.UUID{}, budgetCur: map[uuid.UUID]string{},
		securities: map[string]uuid.UUID{}, seen: map[string]bool{}, summary: Summary{},
		links: map[linkKey]string{}, budgetCats: map[[2]uuid.UUID]uuid.UUID{}}
	if err := tx.NewRaw("SELECT currency FROM families WHERE id = ?", im.FamilyID).Scan(ctx, &w.currency); err != nil {
		return nil, err
	}
	for _, table := range []string{"categories", "tags", "merchants"} {
		var rows []struct {
			ID   uuid.UUID `bun:"id"`
			Name string    `bun:"name"`
		}
		if err := tx.NewRaw("SELECT id, name FROM ? WHERE family_id = ?", bun.Ident(table), im.FamilyID).Scan(ctx, &rows); err != nil {
			return nil, err
		}
		w.names[table] = make(map[string]uuid.UUID, len(rows))
		for _, r := range rows {
			w.names[table][r.Name] = r.ID
		}
	}
	var budgets []struct {
		ID       uuid.UUID `bun:"id"`
		Start    time.Time `bun:"start_date"`
		End      time.Time `bun:"end_date"`
		Currency string    `bun:"currency"`
	}
	if err := tx.NewRaw("SELECT id, start_date, end_date, currency FROM budgets WHERE family_id = ?", im.FamilyID).Scan(ctx, &budgets); err != nil {
		return nil, err
	}
	for _, b := range budgets {
		w.budgets[budgetKey(b.Start, b.End)] = b.ID
		w.budgetCur[b.ID] = b.Currency
	}
	var cats []struct {
		ID       uuid.UUID `bun:"id"`
		Budget   uuid.UUID `bun:"budget_id"`
		Category uuid.UUID `bun:"category_id"`
	}
	if err := tx.NewRaw("SELECT id, budget_id, category_id FROM budget_categories WHERE family_id = ?", im.FamilyID).Scan(ctx, &cats); err != nil {
		return nil, err
	}
	for _, c := range cats {
		w.budgetCats[[2]uuid.UUID{c.Budget, c.Category}] = c.ID
	}
	if source, ok := moveInSources[im.Type]; ok {
		if err := w.loadMoveInMerge(ctx, source); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func budgetKey(start, end time.Time) string {
	return start.Format(time.DateOnly) + "|" + end.Format(time.DateOnly)
}

// mapID records that source id src of namespace kind is now record id.
func (w *nativeWriter) mapID(kind, src string, id uuid.UUID) {
	if src == "" {
		return
	}
	m := w.ids[kind]
	if m == nil {
		m = map[string]uuid.UUID{}
		w.ids[kind] = m
	}
	m[src] = id
}

// lookup translates a reference; ok is false when the field is empty or does not resolve.
func (w *nativeWriter) lookup(kind, src string) (uuid.UUID, bool) {
	if src == "" {
		return uuid.Nil, false
	}
	id, ok := w.ids[kind][src]
	return id, ok
}

// optional translates an optional reference to a nullable id.
func (w *nativeWriter) optional(kind, src string) pgtype.UUID {
	id, ok := w.lookup(kind, src)
	return pgtype.UUID{Bytes: id, Valid: ok}
}

// linkKey names a record in import_links.
type linkKey struct {
	entity string
	id     uuid.UUID
}

// link records that the import answers for a record it did not create from a line: one it
// merged a line into, or one it made itself. A line that names a record the import made
// itself earlier (a category a rule named, then a Category line) now stands for it, so the
// record is no longer counted apart.
func (w *nativeWriter) link(entity string, id uuid.UUID, role string) {
	k := linkKey{entity, id}
	switch prev := w.links[k]; {
	case prev == "":
		w.links[k] = role
		if role == "merged" {
			w.summary.of(entity).Merged++
		} else {
			w.summary.of(entity).Synthesized++
		}
	case prev == "synthesized" && role == "merged":
		delete(w.links, k)
		w.summary.of(entity).Synthesized--
		w.summary.of(entity).Created++
	}
}

// writeFile writes one file's (or chunk's) records, type by type.
func (w *nativeWriter) writeFile(ctx context.Context, f *native.File) error {
	byType := make(map[string][]*native.Record, len(native.Types))
	for i := range f.Records {
		r := &f.Records[i]
		byType[r.Type] = append(byType[r.Type], r)
	}
	w.noteFlows(byType["Account"], byType["Transaction"])
	writers := map[string]func(context.Context, []*native.Record) error{
		"Account": w.writeAccounts, "Balance": w.writeBalances,
		"Category": w.writeTaxonomy, "Tag": w.writeTaxonomy, "Merchant": w.writeTaxonomy,
		"RecurringTransaction": w.writeRecurring, "Transaction": w.writeTransactions,
		"Transfer": w.writeTransfers, "RejectedTransfer": w.writeTransfers,
		"Trade": w.writeTrades, "Holding": w.writeHoldings, "Valuation": w.writeValuations,
		"Budget": w.writeBudgets, "BudgetCategory": w.writeBudgetCategories, "Rule": w.writeRules,
	}
	for _, typ := range native.Types {
		if recs := byType[typ]; len(recs) > 0 {
			if err := writers[typ](ctx, recs); err != nil {
				return fmt.Errorf("write %s records: %w", typ, err)
			}
		}
	}
	return nil
}

func (w *nativeWriter) copy(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := w.tx.Pgx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("copy into %s: %w", table, err)
	}
	return nil
}

func (w *nativeWriter) skip(entity string) { w.summary.of(entity).Skipped++ }

// accountOf resolves a record's account_id among the accounts this import created.
func (w *nativeWriter) accountOf(r *native.Record) (uuid.UUID, *nativeAccount, bool) {
	id, ok := w.lookup("Account", r.ID("account_id"))
	if !ok {
		return uuid.Nil, nil, false
	}
	return id, w.accounts[id], true
}

// currencyOf is a record's currency, else its account's, else the family's.
func (w *nativeWriter) currencyOf(r *native.Record, a *nativeAccount) string {
	if c := strings.ToUpper(r.String("currency")); c != "" {
		return c
	}
	if a != nil {
		return a.currency
	}
	return w.currency
}

// sawDate widens the account's dated range with a record's date.
func (a *nativeAccount) sawDate(d time.Time) {
	if a != nil && (a.earliest == nil || d.Before(*a.earliest)) {
		a.earliest = &d
	}
}

var accountStatuses = map[string]bool{"active": true, "disabled": true, "draft": true}

func (w *nativeWriter) writeAccounts(ctx context.Context, recs []*native.Record) error {
	rows := make([][]any, 0, len(recs))
	for _, r := range recs {
		if merged, err := w.mergeAccount(ctx, r); merged || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		typ, _ := models.AccountTypeByName(r.String("accountable_type"))
		id := uuid.Must(uuid.NewV7())
		balance, _ := r.Decimal("balance")
		cash, ok := r.Decimal("cash_balance")
		if !ok {
			cash = balance
		}
		a := &nativeAccount{typ: typ, currency: w.currencyOf(r, nil), balance: balance,
			skipOpening: r.Bool("skip_opening_balance_import") || r.Bool("authoritative_balance_history")}
		for _, key := range []string{"opening_balance_date", "opening_balance_on"} {
			if d, ok := r.Date(key); ok {
				a.openingDate = &d
				break
			}
		}
		subtype := r.String("subtype")
		locked := []byte("{}")
		if acc, ok := r.Data["accountable"].(map[string]any); ok {
			if s := native.Text(acc, "subtype"); s != "" {
				subtype = s
			}
			if la, ok := acc["locked_attributes"].(map[string]any); ok {
				locked, _ = json.Marshal(la)
			}
		}
		status := r.String("status")
		if !accountStatuses[status] {
			status = "active"
		}
		w.accounts[id] = a
		w.mapID("Account", r.SourceID, id)
		w.summary.of("accounts").Created++
		rows = append(rows, []any{pgUUID(id), pgUUID(w.im.FamilyID), r.String("name"), typ.Name, subtype, a.currency,
			numeric(&balance), numeric(&cash), status, r.String("institution_name"), r.String("institution_domain"),
			r.String("notes"), locked, pgUUID(w.im.ID), nullString(r.String("external_id")), nullString(r.String("source"))})
	}
	return w.copy(ctx, "accounts", []string{"id", "family_id", "name", "accountable_type", "subtype", "currency",
		"balance", "cash_balance", "status", "institution_name", "institution_domain", "notes", "locked_attributes",
		"import_id", "external_id", "source"}, rows)
}

var balanceComponents = []string{"cash_balance", "start_cash_balance", "start_non_cash_balance", "cash_inflows",
	"cash_outflows", "non_cash_inflows", "non_cash_outflows", "net_market_flows", "cash_adjustments", "non_cash_adjustments"}

func (w *nativeWriter) writeBalances(ctx context.Context, recs []*native.Record) error {
	cols := append([]string{"id", "family_id", "account_id", "date", "currency", "balance"}, balanceComponents...)
	cols = append(cols, "flows_factor", "import_id")
	var rows [][]any
	at := map[string]int{} // a later line for the same account, date and currency wins
	for _, r := range recs {
		acct, a, ok := w.accountOf(r)
		date, okDate := r.Date("date")
		balance, okBal := r.Decimal("balance")
		if !ok || !okDate || !okBal {
			w.skip("balances")
			continue
		}
		a.sawDate(date)
		cur := w.currencyOf(r, a)
		row := []any{pgUUID(uuid.Must(uuid.NewV7())), pgUUID(w.im.FamilyID), pgUUID(acct), pgDate(date), cur, numeric(&balance)}
		for _, c := range balanceComponents {
			v, ok := r.Decimal(c)
			if !ok && c == "cash_balance" {
				v = balance
			}
			row = append(row, numeric(&v))
		}
		factor := int16(1)
		if f, ok := r.Decimal("flows_factor"); ok && f.Equal(decimal.NewFromInt(-1)) {
			factor = -1
		}
		row = append(row, factor, pgUUID(w.im.ID))
		key := "balance|" + acct.String() + "|" + date.Format(time.DateOnly) + "|" + cur
		if i, dup := at[key]; dup {
			rows[i] = row
			w.skip("balances")
			continue
		}
		if w.seen[key] { // an earlier chunk wrote it: this line replaces it
			if _, err := w.tx.NewRaw("DELETE FROM balances WHERE account_id = ? AND date = ? AND currency = ?", acct, date, cur).Exec(ctx); err != nil {
				return err
			}
			w.skip("balances")
		} else {
			w.summary.of("balances").Created++
		}
		w.seen[key] = true
		at[key] = len(rows)
		rows = append(rows, row)
	}
	return w.copy(ctx, "balances", cols, rows)
}

// taxonomy describes the three record types merged by name.
var taxonomy = map[string]struct{ table, entity string }{
	"Category": {"categories", "categories"}, "Tag": {"tags", "tags"}, "Merchant": {"merchants", "merchants"},
}

func (w *nativeWriter) writeTaxonomy(ctx context.Context, recs []*native.Record) error {
	typ := recs[0].Type
	t := taxonomy[typ]
	type candidate struct {
		src, name, color, icon, class, logo, website, parent, rollover string
		id                                                             uuid.UUID
	}
	var fresh []candidate
	for _, r := range recs {
		name := r.String("name")
		if id, ok := w.names[t.table][name]; ok {
			w.mapID(typ, r.SourceID, id)
			w.link(t.entity, id, "merged")
			continue
		}
		c := candidate{src: r.SourceID, name: name, id: uuid.Must(uuid.NewV7()), color: r.String("color"),
			logo: r.String("logo_url"), website: r.String("website_url"), parent: r.ID("parent_id")}
		switch typ {
		case "Category":
			c.color, c.icon = orDefault(c.color, "#737373"), orDefault(r.String("lucide_icon"), "shapes")
			c.class = orDefault(r.String("classification"), r.String("classification_unused"))
			if c.class != "income" {
				c.class = "expense"
			}
			// Tally's own export carries the budget rollover; Sure's has none.
			if c.rollover = r.String("budget_rollover"); !slices.Contains(budgets.Rollovers, c.rollover) {
				c.rollover = budgets.RolloverOff
			}
		case "Tag":
			c.color = orDefault(c.color, "#e99537")
		}
		w.names[t.table][name] = c.id
		w.mapID(typ, c.src, c.id)
		fresh = append(fresh, c)
	}
	if len(fresh) == 0 {
		return nil
	}
	cols := map[string][]string{"ids": nil}
	ids := make([]uuid.UUID, len(fresh))
	for i, c := range fresh {
		ids[i] = c.id
		for k, v := range map[string]string{"name": c.name, "color": c.color, "icon": c.icon, "class": c.class, "logo": c.logo, "website": c.website,
			"rollover": c.rollover} {
			cols[k] = append(cols[k], v)
		}
	}
	arr := func(k string) any { return pgdialect.Array(cols[k]) }
	// A name someone else gives the family meanwhile is merged into, not a failure.
	var insert string
	var args []any
	switch typ {
	case "Category":
		insert = `INSERT INTO categories (id, family_id, name, color, lucide_icon, classification, budget_rollover, import_id)
			SELECT x.id, ?, x.name, x.color, x.icon, x.class, x.rollover, ?
			FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS x(id, name, color, icon, class, rollover)`
		args = []any{w.im.FamilyID, w.im.ID, pgdialect.Array(ids), arr("name"), arr("color"), arr("icon"), arr("class"), arr("rollover")}
	case "Tag":
		insert = `INSERT INTO tags (id, family_id, name, color, import_id)
			SELECT x.id, ?, x.name, x.color, ? FROM unnest(?::uuid[], ?::text[], ?::text[]) AS x(id, name, color)`
		args = []any{w.im.FamilyID, w.im.ID, pgdialect.Array(ids), arr("name"), arr("color")}
	default:
		insert = `INSERT INTO merchants (id, family_id, name, color, logo_url, website_url, import_id)
			SELECT x.id, ?, x.name, x.color, x.logo, x.website, ? FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[]) AS x(id, name, color, logo, website)`
		args = []any{w.im.FamilyID, w.im.ID, pgdialect.Array(ids), arr("name"), arr("color"), arr("logo"), arr("website")}
	}
	var inserted []uuid.UUID
	if err := w.tx.NewRaw(insert+` ON CONFLICT (family_id, name) DO NOTHING RETURNING id`, args...).Scan(ctx, &inserted); err != nil && !db.IsNoRows(err) {
		return err
	}
	made := make(map[uuid.UUID]bool, len(inserted))
	for _, id := range inserted {
		made[id] = true
	}
	for i := range fresh {
		c := &fresh[i]
		if made[c.id] {
			w.summary.of(t.entity).Created++
			continue
		}
		if err := w.tx.NewRaw("SELECT id FROM ? WHERE family_id = ? AND name = ?", bun.Ident(t.table), w.im.FamilyID, c.name).Scan(ctx, &c.id); err != nil {
			return err
		}
		w.names[t.table][c.name] = c.id
		w.mapID(typ, c.src, c.id)
		w.link(t.entity, c.id, "merged")
		c.parent = "" // an existing category keeps its parent
	}
	// Parents are linked once every category of the file exists: a parent may come later.
	var children, parents []uuid.UUID
	for _, c := range fresh {
		if pid, ok := w.lookup("Category", c.parent); ok && c.parent != "" && pid != c.id {
			children, parents = append(children, c.id), append(parents, pid)
		}
	}
	if len(children) == 0 {
		return nil
	}
	_, err := w.tx.NewRaw(`UPDATE categories c SET parent_id = x.parent_id
		FROM unnest(?::uuid[], ?::uuid[]) AS x(id, parent_id) WHERE c.id = x.id`,
		pgdialect.Array(children), pgdialect.Array(parents)).Exec(ctx)
	return err
}

func (w *nativeWriter) writeRecurring(ctx context.Context, recs []*native.Record) error {
	var rows [][]any
	for _, r := range recs {
		if w.mergeNamed("RecurringTransaction", "recurring_transactions", func(m *moveInMerge) map[string]uuid.UUID { return m.series }, r) {
			continue
		}
		acct := w.optional("Account", r.ID("account_id"))
		merchant := w.optional("Merchant", r.ID("merchant_id"))
		amount, okAmount := r.Decimal("amount")
		day, okDay := r.Decimal("expected_day_of_month")
		last, ok1 := r.Date("last_occurrence_date")
		next, ok2 := r.Date("next_expected_date")
		if (r.ID("account_id") != "" && !acct.Valid) || (r.ID("merchant_id") != "" && !merchant.Valid) ||
			!okAmount || !okDay || !ok1 || !ok2 || day.IntPart() < 1 || day.IntPart() > 31 {
			w.skip("recurring_transactions")
			continue
		}
		var a *nativeAccount
		if acct.Valid {
			a = w.accounts[acct.Bytes]
		}
		status := models.RecurringStatusOf(r.String("tally_status"), r.String("status"))
		interval := r.String("interval")
		if !slices.Contains(models.RecurringIntervals, interval) {
			interval = models.IntervalMonthly // Sure's series are monthly, on a day
		}
		confidence, okConfidence := r.Decimal("confidence")
		if !okConfidence || confidence.IsNegative() || confidence.GreaterThan(decimal.NewFromInt(1)) {
			confidence = decimal.NewFromInt(1)
		}
		count, _ := r.Decimal("occurrence_count")
		id := uuid.Must(uuid.NewV7())
		w.mapID("RecurringTransaction", r.SourceID, id)
		w.summary.of("recurring_transactions").Created++
		rows = append(rows, []any{pgUUID(id), pgUUID(w.im.FamilyID), acct, merchant, r.String("name"), numeric(&amount),
			w.currencyOf(r, a), int16(day.IntPart()), pgDate(last), pgDate(next), status, int32(count.IntPart()), r.Bool("manual"),
			optNumeric(r, "expected_amount_min"), optNumeric(r, "expected_amount_max"), optNumeric(r, "expected_amount_avg"), pgUUID(w.im.ID),
			interval, w.optional("Category", r.ID("category_id")), numeric(&confidence)})
	}
	if err := w.roomForRecurring(ctx, len(rows)); err != nil {
		return err
	}
	return w.copy(ctx, "recurring_transactions", []string{"id", "family_id", "account_id", "merchant_id", "name", "amount",
		"currency", "expected_day_of_month", "last_occurrence_date", "next_expected_date", "status", "occurrence_count",
		"manual", "expected_amount_min", "expected_amount_max", "expected_amount_avg", "import_id",
		"interval", "category_id", "confidence"}, rows)
}

// roomForRecurring refuses n more series when the family has no room for them, asked under
// the series' lock (held until the publish ends) so that a detection running meanwhile cannot
// take the same room.
func (w *nativeWriter) roomForRecurring(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	if err := models.LockRecurringSeries(ctx, w.tx, w.im.FamilyID); err != nil {
		return err
	}
	return checkRecurringRoom(ctx, w.tx, w.im.FamilyID, n)
}

// entryBatch collects entries, and the trade and valuation rows keyed by them, for COPY.
type entryBatch struct {
	entries, trades, valuations [][]any
}

var entryCols = []string{"id", "family_id", "account_id", "kind", "date", "amount", "currency", "name", "notes",
	"excluded", "category_id", "merchant_id", "tag_ids", "transaction_kind", "parent_id", "import_id", "external_id", "source",
	"original_name", "created_at", "locked_fields"}

// flushEntries writes the collected entries, then what hangs off them.
func (w *nativeWriter) flushEntries(ctx context.Context) error {
	b := &w.entries
	if err := w.copy(ctx, "entries", entryCols, b.entries); err != nil {
		return err
	}
	if err := w.copy(ctx, "trades", []string{"entry_id", "security_id", "qty", "price", "fee", "currency"}, b.trades); err != nil {
		return err
	}
	if err := w.copy(ctx, "valuations", []string{"entry_id", "kind", "as_of"}, b.valuations); err != nil {
		return err
	}
	*b = entryBatch{}
	return nil
}

// maybeFlush bounds the memory a large chunk takes.
func (w *nativeWriter) maybeFlush(ctx context.Context) error {
	if len(w.entries.entries) >= publishBatch {
		return w.flushEntries(ctx)
	}
	return nil
}

func (w *nativeWriter) entry(id, acct uuid.UUID, kind string, date time.Time, amount decimal.Decimal, cur, name, notes string,
	excluded bool, category, merchant pgtype.UUID, tags []pgtype.UUID, txKind string, parent pgtype.UUID, ext, src string) {
	if tags == nil {
		tags = []pgtype.UUID{}
	}
	w.entries.entries = append(w.entries.entries, []any{pgUUID(id), pgUUID(w.im.FamilyID), pgUUID(acct), kind, pgDate(date),
		numeric(&amount), cur, name, notes, excluded, category, merchant, tags, txKind, parent, pgUUID(w.im.ID),
		nullString(ext), nullString(src), pgtype.Text{}, pgtype.Timestamptz{Time: w.now, Valid: true}, []string{}})
}

// set gives the entry collected last the value v in its column col (of entryCols).
func (w *nativeWriter) set(col string, v any) {
	w.entries.entries[len(w.entries.entries)-1][slices.Index(entryCols, col)] = v
}

// renamed gives the entry collected last the bank's text its export kept beside its name
// (original_name), for the next import or sync to compare with the bank's.
func (w *nativeWriter) renamed(original string) { w.set("original_name", nullString(original)) }

// stamped gives the entry collected last what its record m says of its history: when it
// was made (created_at), which orders a day's entries and places them before or after a
// balance typed that day, and the fields a person set by hand (locked_fields), which rules
// and a bank's corrections then leave alone. Without them it is made now, locked nowhere.
func (w *nativeWriter) stamped(m map[string]any) {
	if t, ok := native.TimeOf(m, "created_at"); ok {
		w.set("created_at", pgtype.Timestamptz{Time: t, Valid: true})
	}
	locked := []string{}
	for _, f := range native.Strings(m, "locked_fields") {
		if slices.Contains(rules.LockableFields, f) && !slices.Contains(locked, f) {
			locked = append(locked, f)
		}
	}
	w.set("locked_fields", locked)
}

// tagIDs translates a tag_ids array; tags that do not resolve are left out.
func (w *nativeWriter) tagIDs(m map[string]any) []pgtype.UUID {
	var out []pgtype.UUID
	for _, src := range native.IDList(m, "tag_ids") {
		if id, ok := w.lookup("Tag", src); ok {
			out = append(out, pgUUID(id))
		}
	}
	return out
}

func kindOr(k string) string {
	if slices.Contains(models.TransactionKinds, k) {
		return k
	}
	return models.KindStandard
}

// ledgerRecord reads the account, date and amount every ledger record needs; a record without
// them is skipped and counted as such.
func (w *nativeWriter) ledgerRecord(r *native.Record, entity string) (uuid.UUID, *nativeAccount, time.Time, decimal.Decimal, bool) {
	acct, a, ok := w.accountOf(r)
	date, okDate := r.Date("date")
	amount, okAmount := r.Decimal("amount")
	if !ok || !okDate || !okAmount {
		w.skip(entity)
		return uuid.Nil, nil, time.Time{}, decimal.Decimal{}, false
	}
	a.sawDate(date)
	return acct, a, date, amount, true
}

func (w *nativeWriter) writeTransactions(ctx context.Context, recs []*native.Record) error {
	for _, r := range recs {
		acct, a, date, amount, ok := w.ledgerRecord(r, "transactions")
		if !ok || w.mergeTransaction(r, acct, date, amount) {
			continue
		}
		a.flows, a.hasFlows = a.flows.Add(amount), true
		id := uuid.Must(uuid.NewV7())
		w.mapID("Transaction", r.SourceID, id)
		w.summary.of("transactions").Created++
		cur := w.currencyOf(r, a)
		tags := w.tagIDs(r.Data)
		w.entry(id, acct, "transaction", date, amount, cur, orDefault(r.String("name"), "Imported transaction"), r.String("notes"),
			r.Bool("excluded"), w.optional("Category", r.ID("category_id")), w.optional("Merchant", r.ID("merchant_id")),
			tags, kindOr(r.String("kind")), pgtype.UUID{}, r.String("external_id"), r.String("source"))
		w.renamed(r.String("original_name"))
		w.stamped(r.Data)
		for _, s := range r.SplitLines() {
			part := uuid.Must(uuid.NewV7())
			w.mapID("Transaction", native.IDOf(s, "id"), part)
			name := native.Text(s, "name")
			for _, alt := range []string{"memo", "description"} {
				if name == "" {
					name = native.Text(s, alt)
				}
			}
			splitAmount, _ := native.SplitAmount(s)
			partTags := tags
			if _, has := s["tag_ids"]; has {
				partTags = w.tagIDs(s)
			}
			// A part is excluded, and of a kind, as its transaction is unless it says otherwise:
			// budgets count a split through its parts (migration 20261208000010).
			w.entry(part, acct, "transaction", date, splitAmount, cur, orDefault(name, "Imported split"), native.Text(s, "notes"),
				r.Bool("excluded") || native.Truthy(s["excluded"]), w.optional("Category", native.IDOf(s, "category_id")),
				w.optional("Merchant", native.IDOf(s, "merchant_id")), partTags, kindOr(orDefault(native.Text(s, "kind"), r.String("kind"))),
				pgUUID(id), w.partExternalID(s), w.partSource(r))
			w.stamped(s)
		}
		if err := w.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return w.flushEntries(ctx)
}

func (w *nativeWriter) writeTransfers(ctx context.Context, recs []*native.Record) error {
	rejected := recs[0].Type == "RejectedTransfer"
	entity, table := "transfers", "transfers"
	if rejected {
		entity, table = "rejected_transfers", "rejected_transfers"
	}
	var rows [][]any
	for _, r := range recs {
		in, ok1 := w.lookup("Transaction", r.ID("inflow_transaction_id"))
		out, ok2 := w.lookup("Transaction", r.ID("outflow_transaction_id"))
		key := entity + "|" + in.String() + "|" + out.String()
		// A transaction is one side of one transfer at most: a second is skipped.
		inKey, outKey := entity+"|in|"+in.String(), entity+"|out|"+out.String()
		if !rejected && ok1 && ok2 && w.mergeTransfer(in, out) {
			continue
		}
		if !ok1 || !ok2 || in == out || w.seen[key] || (!rejected && (w.seen[inKey] || w.seen[outKey])) {
			w.skip(entity)
			continue
		}
		w.seen[key], w.seen[inKey], w.seen[outKey] = true, true, true
		w.summary.of(entity).Created++
		if rejected {
			rows = append(rows, []any{pgUUID(uuid.Must(uuid.NewV7())), pgUUID(w.im.FamilyID), pgUUID(in), pgUUID(out), pgUUID(w.im.ID)})
			continue
		}
		status := r.String("status")
		if status != "confirmed" {
			status = "pending"
		}
		rows = append(rows, []any{pgUUID(uuid.Must(uuid.NewV7())), pgUUID(w.im.FamilyID), pgUUID(in), pgUUID(out), status,
			r.String("notes"), pgUUID(w.im.ID)})
	}
	cols := []string{"id", "family_id", "inflow_entry_id", "outflow_entry_id", "status", "notes", "import_id"}
	if rejected {
		cols = []string{"id", "family_id", "inflow_entry_id", "outflow_entry_id", "import_id"}
	}
	return w.copy(ctx, table, cols, rows)
}

// security finds the record's security: by the source's security id when seen before, else
// by ticker and exchange, creating it when the catalogue lacks it, and fills in what the
// catalogue does not know yet.
func (w *nativeWriter) security(ctx context.Context, r *native.Record) (uuid.UUID, error) {
	ticker := strings.ToUpper(r.String("ticker"))
	mic := strings.ToUpper(r.String("exchange_operating_mic"))
	srcKey := "id:" + r.ID("security_id")
	if id, ok := w.securities[srcKey]; ok && srcKey != "id:" {
		return id, nil
	}
	key := "t:" + ticker + "|" + mic
	id, ok := w.securities[key]
	if !ok {
		var err error
		if id, err = w.findSecurity(ctx, r, ticker, mic); err != nil {
			return uuid.Nil, err
		}
		w.securities[key] = id
	}
	if srcKey != "id:" {
		w.securities[srcKey] = id
	}
	return id, nil
}

// findSecurity finds the catalogue's security for a ticker and exchange, or adds it with the
// file's description of it. Securities are shared by every family, so a file never changes
// one that exists.
func (w *nativeWriter) findSecurity(ctx context.Context, r *native.Record, ticker, mic string) (uuid.UUID, error) {
	var id uuid.UUID
	q := `SELECT id FROM securities WHERE ticker = ? AND exchange_operating_mic = ?`
	args := []any{ticker, mic}
	if mic == "" {
		// Without an exchange: the one without an exchange, else the oldest with the ticker.
		q = `SELECT id FROM securities WHERE ticker = ? ORDER BY exchange_operating_mic IS NOT NULL, created_at LIMIT 1`
		args = []any{ticker}
	}
	err := w.tx.NewRaw(q, args...).Scan(ctx, &id)
	if err == nil || !db.IsNoRows(err) {
		return id, err
	}
	err = w.tx.NewRaw(`INSERT INTO securities (id, ticker, exchange_operating_mic, name, exchange_mic, exchange_acronym, country_code, website_url)
		VALUES (?, ?, ?, ?, nullif(?, ''), nullif(?, ''), nullif(?, ''), nullif(?, ''))
		ON CONFLICT (ticker, (coalesce(exchange_operating_mic, ''))) DO UPDATE SET updated_at = securities.updated_at
		RETURNING id`, uuid.Must(uuid.NewV7()), ticker, nullString(mic), orDefault(r.String("security_name"), ticker),
		r.String("exchange_mic"), r.String("exchange_acronym"), r.String("country_code"), r.String("website_url")).Scan(ctx, &id)
	return id, err
}

func (w *nativeWriter) writeTrades(ctx context.Context, recs []*native.Record) error {
	for _, r := range recs {
		acct, a, ok := w.accountOf(r)
		date, okDate := r.Date("date")
		amount, ok1 := r.Decimal("amount")
		qty, ok2 := r.Decimal("qty")
		price, ok3 := r.Decimal("price")
		ticker := strings.ToUpper(r.String("ticker"))
		if !ok || !okDate || !ok1 || !ok2 || !ok3 || ticker == "" {
			w.skip("trades")
			continue
		}
		sec, err := w.security(ctx, r)
		if err != nil {
			return err
		}
		a.sawDate(date)
		fee, _ := r.Decimal("fee")
		name := r.String("name")
		if name == "" {
			name = "Buy " + ticker
			if qty.IsNegative() {
				name = "Sell " + ticker
			}
		}
		id := uuid.Must(uuid.NewV7())
		cur := w.currencyOf(r, a)
		w.summary.of("trades").Created++
		w.entry(id, acct, "trade", date, amount, cur, name, r.String("notes"), false, pgtype.UUID{}, pgtype.UUID{}, nil,
			models.KindStandard, pgtype.UUID{}, r.String("external_id"), r.String("source"))
		w.stamped(r.Data)
		w.entries.trades = append(w.entries.trades, []any{pgUUID(id), pgUUID(sec), numeric(&qty), numeric(&price), numeric(&fee), cur})
		if err := w.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return w.flushEntries(ctx)
}

var costBasisSources = map[string]bool{"manual": true, "calculated": true, "provider": true}

func (w *nativeWriter) writeHoldings(ctx context.Context, recs []*native.Record) error {
	var rows [][]any
	for _, r := range recs {
		acct, a, ok := w.accountOf(r)
		date, okDate := r.Date("date")
		amount, ok1 := r.Decimal("amount")
		qty, ok2 := r.Decimal("qty")
		price, ok3 := r.Decimal("price")
		if !ok || !okDate || !ok1 || !ok2 || !ok3 || r.String("ticker") == "" {
			w.skip("holdings")
			continue
		}
		sec, err := w.security(ctx, r)
		if err != nil {
			return err
		}
		cur := w.currencyOf(r, a)
		key := "holding|" + acct.String() + "|" + sec.String() + "|" + date.Format(time.DateOnly) + "|" + cur
		if w.seen[key] {
			w.skip("holdings")
			continue
		}
		w.seen[key] = true
		a.sawDate(date)
		var source pgtype.Text
		if s := r.String("cost_basis_source"); costBasisSources[s] {
			source = pgtype.Text{String: s, Valid: true}
		}
		w.summary.of("holdings").Created++
		rows = append(rows, []any{pgUUID(uuid.Must(uuid.NewV7())), pgUUID(w.im.FamilyID), pgUUID(acct), pgUUID(sec), pgDate(date),
			numeric(&qty), numeric(&price), numeric(&amount), cur, optNumeric(r, "cost_basis"), source,
			r.Bool("cost_basis_locked"), r.Bool("security_locked"), pgUUID(w.im.ID),
			nullString(r.String("external_id")), nullString(r.String("source"))})
	}
	return w.copy(ctx, "holdings", []string{"id", "family_id", "account_id", "security_id", "date", "qty", "price", "amount",
		"currency", "cost_basis", "cost_basis_source", "cost_basis_locked", "security_locked", "import_id", "external_id", "source"}, rows)
}

var valuationKinds = map[string]bool{models.ValuationValue: true, models.ValuationOpeningAnchor: true, models.ValuationCurrentAnchor: true,
	models.ValuationCheckpoint: true}

func (w *nativeWriter) writeValuations(ctx context.Context, recs []*native.Record) error {
	for _, r := range recs {
		acct, a, date, amount, ok := w.ledgerRecord(r, "valuations")
		if !ok {
			continue
		}
		kind := r.String("kind")
		if !valuationKinds[kind] {
			kind = "reconciliation"
		}
		if kind == "opening_anchor" {
			a.hasOpening = true
		}
		id := uuid.Must(uuid.NewV7())
		w.summary.of("valuations").Created++
		w.entry(id, acct, "valuation", date, amount, w.currencyOf(r, a), orDefault(r.String("name"), "Valuation"), r.String("notes"),
			false, pgtype.UUID{}, pgtype.UUID{}, nil, models.KindStandard, pgtype.UUID{}, r.String("external_id"), r.String("source"))
		w.stamped(r.Data)
		// The moment a typed balance was typed: the day's entries made before it are in it.
		var asOf pgtype.Timestamptz
		if t, ok := r.Time("as_of"); ok {
			asOf = pgtype.Timestamptz{Time: t, Valid: true}
		}
		w.entries.valuations = append(w.entries.valuations, []any{pgUUID(id), kind, asOf})
		if err := w.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return w.flushEntries(ctx)
}

func (w *nativeWriter) writeBudgets(ctx context.Context, recs []*native.Record) error {
	var rows [][]any
	for _, r := range recs {
		start, ok1 := r.Date("start_date")
		end, ok2 := r.Date("end_date")
		if !ok1 || !ok2 {
			w.skip("budgets")
			continue
		}
		if id, ok := w.budgets[budgetKey(start, end)]; ok {
			w.mapID("Budget", r.SourceID, id)
			w.link("budgets", id, "merged")
			continue
		}
		id := uuid.Must(uuid.NewV7())
		cur := w.currencyOf(r, nil)
		w.budgets[budgetKey(start, end)], w.budgetCur[id] = id, cur
		w.mapID("Budget", r.SourceID, id)
		w.summary.of("budgets").Created++
		rows = append(rows, []any{pgUUID(id), pgUUID(w.im.FamilyID), pgDate(start), pgDate(end),
			optNumeric(r, "budgeted_spending"), optNumeric(r, "expected_income"), cur, pgUUID(w.im.ID)})
	}
	return w.copy(ctx, "budgets", []string{"id", "family_id", "start_date", "end_date", "budgeted_spending",
		"expected_income", "currency", "import_id"}, rows)
}

func (w *nativeWriter) writeBudgetCategories(ctx context.Context, recs []*native.Record) error {
	var rows [][]any
	for _, r := range recs {
		budget, ok1 := w.lookup("Budget", r.ID("budget_id"))
		category, ok2 := w.lookup("Category", r.ID("category_id"))
		key := "budget_category|" + budget.String() + "|" + category.String()
		if !ok1 || !ok2 || w.seen[key] {
			w.skip("budget_categories")
			continue
		}
		w.seen[key] = true
		if existing, ok := w.budgetCats[[2]uuid.UUID{budget, category}]; ok {
			w.link("budget_categories", existing, "merged")
			continue
		}
		spending, _ := r.Decimal("budgeted_spending")
		w.summary.of("budget_categories").Created++
		rows = append(rows, []any{pgUUID(uuid.Must(uuid.NewV7())), pgUUID(w.im.FamilyID), pgUUID(budget), pgUUID(category),
			numeric(&spending), w.budgetCur[budget], pgUUID(w.im.ID)})
	}
	return w.copy(ctx, "budget_categories", []string{"id", "family_id", "budget_id", "category_id", "budgeted_spending",
		"currency", "import_id"}, rows)
}

// ruleOperandTables are the rule condition and action types whose operand names a record.
var ruleOperandTables = map[string]struct{ kind, table string }{
	"transaction_category": {"Category", "categories"}, "set_transaction_category": {"Category", "categories"},
	"transaction_merchant": {"Merchant", "merchants"}, "set_transaction_merchant": {"Merchant", "merchants"},
	"transaction_tag": {"Tag", "tags"}, "set_transaction_tags": {"Tag", "tags"},
}

func (w *nativeWriter) writeRules(ctx context.Context, recs []*native.Record) error {
	for _, r := range recs {
		if w.mergeNamed("Rule", "rules", func(m *moveInMerge) map[string]uuid.UUID { return m.rules }, r) {
			continue
		}
		conditions, err := w.ruleItems(ctx, r.Data["conditions"], "condition_type")
		if err != nil {
			return err
		}
		actions, err := w.ruleItems(ctx, r.Data["actions"], "action_type")
		if err != nil {
			return err
		}
		cj, _ := json.Marshal(conditions)
		aj, _ := json.Marshal(actions)
		var eff *time.Time
		if d, ok := r.Date("effective_date"); ok {
			eff = &d
		}
		id := uuid.Must(uuid.NewV7())
		w.mapID("Rule", r.SourceID, id)
		w.summary.of("rules").Created++
		_, err = w.tx.NewRaw(`INSERT INTO rules (id, family_id, name, resource_type, active, effective_date, conditions, actions, import_id)
			VALUES (?, ?, ?, 'transaction', ?, ?, ?, ?, ?)`, id, w.im.FamilyID, r.String("name"), r.Bool("active"), eff,
			string(cj), string(aj), w.im.ID).Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

// ruleItems translates a rule's conditions or actions: an operand naming a category, merchant
// or tag becomes that record's id. The operand is the record the file defines under that
// source id, else the record of that name (value_ref.name, or a value that is not an id),
// which is created when the family has none. An operand that names nothing is dropped, as the
// preflight warned.
func (w *nativeWriter) ruleItems(ctx context.Context, v any, typeKey string) ([]any, error) {
	items, _ := v.([]any)
	out := make([]any, 0, len(items))
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if subs, ok := obj["sub_conditions"]; ok {
			translated, err := w.ruleItems(ctx, subs, typeKey)
			if err != nil {
				return nil, err
			}
			obj["sub_conditions"] = translated
		}
		kind, _ := obj[typeKey].(string)
		target, ok := ruleOperandTables[kind]
		if !ok {
			out = append(out, obj)
			continue
		}
		ref, _ := obj["value_ref"].(map[string]any)
		delete(obj, "value_ref")
		value := native.IDOf(obj, "value")
		if id, ok := w.lookup(target.kind, value); ok {
			obj["value"] = id.String()
			out = append(out, obj)
			continue
		}
		if id, ok := w.lookup(target.kind, native.IDOf(ref, "id")); ok {
			obj["value"] = id.String()
			out = append(out, obj)
			continue
		}
		name := native.Text(ref, "name")
		if name == "" && !uuidLike(value) {
			name = value
		}
		if name == "" {
			continue
		}
		id, err := w.nameID(ctx, target.table, name)
		if err != nil {
			return nil, err
		}
		obj["value"] = id.String()
		out = append(out, obj)
	}
	return out, nil
}

func uuidLike(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// nameID returns the family's category, merchant or tag called name, creating it (as a record
// the import made itself) when there is none.
func (w *nativeWriter) nameID(ctx context.Context, table, name string) (uuid.UUID, error) {
	if id, ok := w.names[table][name]; ok {
		return id, nil
	}
	id := uuid.Must(uuid.NewV7())
	var got []uuid.UUID
	if err := w.tx.NewRaw("INSERT INTO ? (id, family_id, name, import_id) VALUES (?, ?, ?, ?) ON CONFLICT (family_id, name) DO NOTHING RETURNING id",
		bun.Ident(table), id, w.im.FamilyID, name, w.im.ID).Scan(ctx, &got); err != nil && !db.IsNoRows(err) {
		return uuid.Nil, err
	}
	if len(got) == 0 { // someone gave the family this name meanwhile
		if err := w.tx.NewRaw("SELECT id FROM ? WHERE family_id = ? AND name = ?", bun.Ident(table), w.im.FamilyID, name).Scan(ctx, &id); err != nil {
			return uuid.Nil, err
		}
		w.names[table][name] = id
		return id, nil
	}
	w.names[table][name] = id
	w.link(table, id, "synthesized")
	return id, nil
}

// finish does what needs every chunk written: transfer kinds, opening balances, account
// balances, and the record of merged and synthesized records.
func (w *nativeWriter) finish(ctx context.Context) error {
	if err := transfers.SetImportKinds(ctx, w.tx, w.im.ID); err != nil {
		return err
	}
	if err := w.openingBalances(ctx); err != nil {
		return err
	}
	if err := w.flushEntries(ctx); err != nil {
		return err
	}
	ids := make([]uuid.UUID, 0, len(w.accounts))
	for id := range w.accounts {
		ids = append(ids, id)
	}
	if err := models.RecomputeBalances(ctx, w.tx, ids); err != nil {
		return err
	}
	rows := make([][]any, 0, len(w.links))
	for k, role := range w.links {
		rows = append(rows, []any{pgUUID(w.im.ID), k.entity, pgUUID(k.id), role})
	}
	return w.copy(ctx, "import_links", []string{"import_id", "entity", "record_id", "role"}, rows)
}

// openingBalances gives each account the import created an opening valuation when the file
// has none for it (and does not say to skip it). It is dated the day before the account's
// oldest record, or at its stated opening date if that is earlier, or two years back when the
// file dates nothing, and its amount makes the account's balance come out as the file states.
func (w *nativeWriter) openingBalances(ctx context.Context) error {
	for id, a := range w.accounts {
		if a.hasOpening || a.skipOpening || (a.balance.IsZero() && !a.hasFlows) {
			continue
		}
		date := w.now.AddDate(-2, 0, 0)
		if a.earliest != nil {
			date = a.earliest.AddDate(0, 0, -1)
		}
		if a.openingDate != nil && (a.earliest == nil || a.openingDate.Before(date)) {
			date = *a.openingDate
		}
		date = time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, time.UTC)
		// Transactions after the anchor move the balance: outflows lower an asset and raise
		// what a liability owes.
		amount := a.balance.Add(a.flows)
		if a.typ.Liability {
			amount = a.balance.Sub(a.flows)
		}
		entry := uuid.Must(uuid.NewV7())
		w.entry(entry, id, "valuation", date, amount, a.currency, "Opening balance", "", false, pgtype.UUID{}, pgtype.UUID{}, nil,
			models.KindStandard, pgtype.UUID{}, "", "")
		w.entries.valuations = append(w.entries.valuations, []any{pgUUID(entry), "opening_anchor", pgtype.Timestamptz{}})
		w.link("valuations", entry, "synthesized")
	}
	return nil
}

func pgUUID(id uuid.UUID) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }

func pgDate(t time.Time) pgtype.Date { return pgtype.Date{Time: t, Valid: true} }

func optNumeric(r *native.Record, key string) pgtype.Numeric {
	if d, ok := r.Decimal(key); ok {
		return numeric(&d)
	}
	return pgtype.Numeric{}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
