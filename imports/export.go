package imports

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/uptrace/bun"

	"tally/models"
	"tally/rules"
)

// exportQueries build the NDJSON lines of a family export, one query per record type, in the
// order an import processes them. Each selects one JSON text per record, built by PostgreSQL;
// its parameters are the family's id; with account, the condition that the account id in that
// column is one the viewer sees, or with list (merchants or tags), that the record whose id is
// in that column is (models.Viewer.VisibleNamedSQL); and the kind of a transaction e as the
// viewer sees it (models.Viewer.KindSQL). Money is written as strings and dates as
// YYYY-MM-DD. Unlike Sure's export, entries keep their provenance (external_id, source), so
// that restored data can still be matched to its bank or file (DECISIONS 11).
var exportQueries = []struct{ typ, sql, account, list string }{
	{"Account", `
		SELECT json_build_object('type', 'Account', 'data', json_build_object(
			'id', a.id, 'name', a.name, 'balance', a.balance::text, 'cash_balance', a.cash_balance::text,
			'currency', a.currency, 'subtype', nullif(a.subtype, ''), 'status', a.status,
			'institution_name', nullif(a.institution_name, ''), 'institution_domain', nullif(a.institution_domain, ''),
			'notes', nullif(a.notes, ''), 'accountable_type', a.accountable_type,
			'accountable', json_build_object('subtype', nullif(a.subtype, ''), 'locked_attributes', a.locked_attributes),
			'external_id', a.external_id, 'source', a.source, 'created_at', a.created_at))::text
		FROM accounts a WHERE a.family_id = ?0 AND ?1 ORDER BY a.created_at, a.id`, "a.id", ""},
	{"Balance", `
		SELECT json_build_object('type', 'Balance', 'data', json_build_object(
			'account_id', b.account_id, 'date', b.date, 'currency', b.currency, 'balance', b.balance::text,
			'cash_balance', b.cash_balance::text, 'start_cash_balance', b.start_cash_balance::text,
			'start_non_cash_balance', b.start_non_cash_balance::text, 'cash_inflows', b.cash_inflows::text,
			'cash_outflows', b.cash_outflows::text, 'non_cash_inflows', b.non_cash_inflows::text,
			'non_cash_outflows', b.non_cash_outflows::text, 'net_market_flows', b.net_market_flows::text,
			'cash_adjustments', b.cash_adjustments::text, 'non_cash_adjustments', b.non_cash_adjustments::text,
			'flows_factor', b.flows_factor))::text
		FROM balances b WHERE b.family_id = ?0 AND ?1 ORDER BY b.date, b.account_id`, "b.account_id", ""},
	{"Category", `
		SELECT json_build_object('type', 'Category', 'data', json_build_object(
			'id', c.id, 'name', c.name, 'color', c.color, 'classification', c.classification,
			'lucide_icon', c.lucide_icon, 'parent_id', c.parent_id, 'budget_rollover', c.budget_rollover))::text
		FROM categories c WHERE c.family_id = ?0 ORDER BY c.parent_id NULLS FIRST, c.name`, "", ""},
	{"Tag", `
		SELECT json_build_object('type', 'Tag', 'data', json_build_object('id', t.id, 'name', t.name, 'color', t.color))::text
		FROM tags t WHERE t.family_id = ?0 AND ?1 ORDER BY t.name`, "t.id", "tags"},
	{"Merchant", `
		SELECT json_build_object('type', 'Merchant', 'data', json_build_object(
			'id', m.id, 'name', m.name, 'color', nullif(m.color, ''), 'logo_url', nullif(m.logo_url, ''),
			'website_url', nullif(m.website_url, '')))::text
		FROM merchants m WHERE m.family_id = ?0 AND ?1 ORDER BY m.name`, "m.id", "merchants"},
	{"RecurringTransaction", `
		SELECT json_build_object('type', 'RecurringTransaction', 'data', json_build_object(
			'id', r.id, 'account_id', r.account_id, 'merchant_id', r.merchant_id, 'name', r.name,
			'amount', r.amount::text, 'currency', r.currency, 'expected_day_of_month', r.expected_day_of_month,
			'last_occurrence_date', r.last_occurrence_date, 'next_expected_date', r.next_expected_date,
			'status', CASE r.status WHEN 'confirmed' THEN 'active' ELSE 'inactive' END, 'tally_status', r.status,
			'occurrence_count', r.occurrence_count, 'manual', r.manual,
			'expected_amount_min', r.expected_amount_min::text, 'expected_amount_max', r.expected_amount_max::text,
			'expected_amount_avg', r.expected_amount_avg::text, 'interval', r.interval, 'category_id', r.category_id,
			'confidence', r.confidence::text))::text
		FROM recurring_transactions r WHERE r.family_id = ?0 AND (r.account_id IS NULL OR ?1) ORDER BY r.created_at, r.id`, "r.account_id", ""},
	{"Transaction", `
		SELECT json_build_object('type', 'Transaction', 'data', json_build_object(
			'id', e.id, 'entry_id', e.id, 'account_id', e.account_id, 'date', e.date, 'amount', e.amount::text,
			'currency', e.currency, 'name', e.name, 'original_name', e.original_name, 'notes', nullif(e.notes, ''), 'excluded', e.excluded,
			'category_id', e.category_id, 'merchant_id', e.merchant_id, 'tag_ids', e.tag_ids,
			'kind', ?2, 'external_id', e.external_id, 'source', e.source,
			'created_at', e.created_at, 'updated_at', e.updated_at, 'locked_fields', e.locked_fields,
			'split_lines', (SELECT json_agg(json_build_object(
				'id', s.id, 'name', s.name, 'amount', s.amount::text, 'category_id', s.category_id,
				'merchant_id', s.merchant_id, 'notes', nullif(s.notes, ''), 'excluded', s.excluded,
				'tag_ids', s.tag_ids, 'kind', s.transaction_kind, 'created_at', s.created_at,
				'locked_fields', s.locked_fields) ORDER BY s.created_at, s.id)
				FROM entries s WHERE s.parent_id = e.id)))::text
		FROM entries e WHERE e.family_id = ?0 AND e.kind = 'transaction' AND e.parent_id IS NULL AND ?1
		ORDER BY e.date, e.created_at, e.id`, "e.account_id", ""},
	{"Transfer", `
		SELECT json_build_object('type', 'Transfer', 'data', json_build_object(
			'id', t.id, 'inflow_transaction_id', t.inflow_entry_id, 'outflow_transaction_id', t.outflow_entry_id,
			'status', t.status, 'notes', nullif(t.notes, '')))::text
		FROM transfers t WHERE t.family_id = ?0
			AND NOT EXISTS (SELECT 1 FROM entries x WHERE x.id IN (t.inflow_entry_id, t.outflow_entry_id) AND NOT ?1) ORDER BY t.created_at, t.id`, "x.account_id", ""},
	{"RejectedTransfer", `
		SELECT json_build_object('type', 'RejectedTransfer', 'data', json_build_object(
			'inflow_transaction_id', t.inflow_entry_id, 'outflow_transaction_id', t.outflow_entry_id))::text
		FROM rejected_transfers t WHERE t.family_id = ?0
			AND NOT EXISTS (SELECT 1 FROM entries x WHERE x.id IN (t.inflow_entry_id, t.outflow_entry_id) AND NOT ?1) ORDER BY t.created_at, t.id`, "x.account_id", ""},
	{"Trade", `
		SELECT json_build_object('type', 'Trade', 'data', json_build_object(
			'id', e.id, 'entry_id', e.id, 'account_id', e.account_id, 'security_id', s.id, 'ticker', s.ticker,
			'security_name', nullif(s.name, ''), 'exchange_operating_mic', s.exchange_operating_mic, 'date', e.date,
			'qty', t.qty::text, 'price', t.price::text, 'fee', t.fee::text, 'amount', e.amount::text,
			'currency', e.currency, 'name', e.name, 'external_id', e.external_id, 'source', e.source,
			'created_at', e.created_at))::text
		FROM entries e JOIN trades t ON t.entry_id = e.id JOIN securities s ON s.id = t.security_id
		WHERE e.family_id = ?0 AND ?1 ORDER BY e.date, e.created_at, e.id`, "e.account_id", ""},
	{"Holding", `
		SELECT json_build_object('type', 'Holding', 'data', json_build_object(
			'id', h.id, 'account_id', h.account_id, 'security_id', s.id, 'ticker', s.ticker,
			'security_name', nullif(s.name, ''), 'exchange_operating_mic', s.exchange_operating_mic,
			'exchange_mic', s.exchange_mic, 'exchange_acronym', s.exchange_acronym, 'country_code', s.country_code,
			'kind', s.kind, 'website_url', s.website_url, 'date', h.date, 'qty', h.qty::text, 'price', h.price::text,
			'amount', h.amount::text, 'currency', h.currency, 'cost_basis', h.cost_basis::text,
			'cost_basis_source', h.cost_basis_source, 'cost_basis_locked', h.cost_basis_locked,
			'security_locked', h.security_locked, 'external_id', h.external_id, 'source', h.source))::text
		FROM holdings h JOIN securities s ON s.id = h.security_id
		WHERE h.family_id = ?0 AND ?1 ORDER BY h.date, h.account_id, s.ticker`, "h.account_id", ""},
	{"Valuation", `
		SELECT json_build_object('type', 'Valuation', 'data', json_build_object(
			'id', e.id, 'entry_id', e.id, 'account_id', e.account_id, 'date', e.date, 'amount', e.amount::text,
			'currency', e.currency, 'name', e.name, 'kind', v.kind, 'as_of', v.as_of, 'external_id', e.external_id,
			'source', e.source, 'created_at', e.created_at))::text
		FROM entries e JOIN valuations v ON v.entry_id = e.id
		WHERE e.family_id = ?0 AND ?1 ORDER BY e.date, e.created_at, e.id`, "e.account_id", ""},
	{"Budget", `
		SELECT json_build_object('type', 'Budget', 'data', json_build_object(
			'id', b.id, 'start_date', b.start_date, 'end_date', b.end_date,
			'budgeted_spending', b.budgeted_spending::text, 'expected_income', b.expected_income::text,
			'currency', b.currency))::text
		FROM budgets b WHERE b.family_id = ?0 ORDER BY b.start_date`, "", ""},
	{"BudgetCategory", `
		SELECT json_build_object('type', 'BudgetCategory', 'data', json_build_object(
			'id', b.id, 'budget_id', b.budget_id, 'category_id', b.category_id,
			'budgeted_spending', b.budgeted_spending::text, 'currency', b.currency))::text
		FROM budget_categories b WHERE b.family_id = ?0 ORDER BY b.budget_id, b.category_id`, "", ""},
	{"Rule", `
		SELECT json_build_object('type', 'Rule', 'version', 1, 'data', json_build_object(
			'id', r.id, 'name', nullif(r.name, ''), 'resource_type', r.resource_type, 'active', r.active,
			'effective_date', r.effective_date, 'conditions', r.conditions, 'actions', r.actions))::text
		FROM rules r WHERE r.family_id = ?0 ORDER BY r.created_at, r.id`, "", ""},
}

// Export writes the family's data as v sees it as native NDJSON: one {"type", "data"} object
// per line, in the order an import processes them, lines joined by newlines. Another family's
// data never appears: every query filters by the family. Nor does a private account kept from
// v, its balances, transactions, trades, holdings, valuations and series, a transfer one of
// whose sides is in it, or a merchant or tag that only its transactions use, and a transfer's
// other side says no more of it than a movement of funds does; the family's categories,
// budgets and rules are the family's plan and come whole. The family's own export (the
// operator's tally export) reads through models.FamilyViewer.
func Export(ctx context.Context, idb bun.IDB, v models.Viewer, w io.Writer) (map[string]int, error) {
	familyID := v.FamilyID
	names, err := operandNames(ctx, idb, v)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(w, 64*1024)
	counts := map[string]int{}
	first := true
	kindSQL, kindArgs := v.KindSQL("e")
	kind := bun.SafeQuery(kindSQL, kindArgs...)
	for _, q := range exportQueries {
		args := []any{familyID, bun.SafeQuery("TRUE"), kind}
		switch {
		case q.list != "":
			args[1] = v.VisibleNamedQuery(q.list, q.account)
		case q.account != "":
			args[1] = v.VisibleQuery(q.account)
		}
		rows, err := idb.QueryContext(ctx, idb.NewRaw(q.sql, args...).String())
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", q.typ, err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return nil, err
			}
			if !first {
				bw.WriteByte('\n')
			}
			first = false
			if q.typ == "Rule" {
				if line, err = nameRuleOperands(line, names); err != nil {
					rows.Close()
					return nil, err
				}
			}
			bw.WriteString(line)
			counts[q.typ]++
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return nil, fmt.Errorf("export %s: %w", q.typ, err)
		}
		rows.Close()
	}
	return counts, bw.Flush()
}

// operandNames maps the ids of the family's categories, merchants and tags to their type and
// name, for rule operands, and those of the accounts v sees to "Account".
func operandNames(ctx context.Context, idb bun.IDB, v models.Viewer) (map[string][2]string, error) {
	var rows []struct {
		ID   string `bun:"id"`
		Type string `bun:"type"`
		Name string `bun:"name"`
	}
	err := idb.NewRaw(`
		SELECT id::text, 'Category' AS type, name FROM categories WHERE family_id = ?0
		UNION ALL SELECT id::text, 'Merchant', name FROM merchants WHERE family_id = ?0
		UNION ALL SELECT id::text, 'Tag', name FROM tags WHERE family_id = ?0
		UNION ALL SELECT id::text, 'Account', '' FROM accounts WHERE family_id = ?0 AND ?1`, v.FamilyID, v.VisibleQuery("id")).Scan(ctx, &rows)
	out := make(map[string][2]string, len(rows))
	for _, r := range rows {
		out[r.ID] = [2]string{r.Type, r.Name}
	}
	return out, err
}

// nameRuleOperands rewrites a Rule line so that an operand naming a category, merchant or tag
// carries its name as the value, with value_ref {type, id, name}: a file imported into another
// family then finds, or creates, the record by name. An operand naming an account that is not
// among names, one deleted or one kept from the reader alike, is null (rules.Get does the
// same).
func nameRuleOperands(line string, names map[string][2]string) (string, error) {
	var rec struct {
		Type    string         `json:"type"`
		Version int            `json:"version"`
		Data    map[string]any `json:"data"`
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&rec); err != nil {
		return "", fmt.Errorf("export rule: %w", err)
	}
	for _, key := range []string{"conditions", "actions"} {
		nameOperands(rec.Data[key], names)
	}
	out, err := json.Marshal(rec)
	return string(out), err
}

func nameOperands(v any, names map[string][2]string) {
	items, _ := v.([]any)
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		nameOperands(obj["sub_conditions"], names)
		kind, _ := obj["condition_type"].(string)
		if kind == "" {
			kind, _ = obj["action_type"].(string)
		}
		if rules.NamesAccount(kind) {
			if id, _ := obj["value"].(string); names[id][0] != "Account" {
				obj["value"] = nil
			}
			continue
		}
		if _, ok := ruleOperandTables[kind]; !ok {
			continue
		}
		id, _ := obj["value"].(string)
		if n, ok := names[id]; ok {
			obj["value"] = n[1]
			obj["value_ref"] = map[string]any{"type": n[0], "id": id, "name": n[1]}
		}
	}
}

// ExportCount is how many records of one kind an export holds.
type ExportCount struct {
	Label string
	N     int
}

// ExportCounts counts the main records of the family's export, for people deciding to
// download it: accounts, transactions, trades, balances, categories, tags, merchants, rules.
// They count what v's export holds (Export).
func ExportCounts(ctx context.Context, idb bun.IDB, v models.Viewer) ([]ExportCount, error) {
	var n [8]int
	err := idb.NewRaw(`SELECT
		(SELECT count(*) FROM accounts a WHERE family_id = ?0 AND ?1),
		(SELECT count(*) FROM entries e WHERE family_id = ?0 AND kind = 'transaction' AND ?2),
		(SELECT count(*) FROM entries e WHERE family_id = ?0 AND kind = 'trade' AND ?2),
		(SELECT count(*) FROM entries e WHERE family_id = ?0 AND kind = 'valuation' AND ?2),
		(SELECT count(*) FROM categories WHERE family_id = ?0),
		(SELECT count(*) FROM tags WHERE family_id = ?0 AND ?3),
		(SELECT count(*) FROM merchants WHERE family_id = ?0 AND ?4),
		(SELECT count(*) FROM rules WHERE family_id = ?0)`, v.FamilyID, v.VisibleQuery("a.id"), v.VisibleQuery("e.account_id"),
		v.VisibleNamedQuery("tags", "tags.id"), v.VisibleNamedQuery("merchants", "merchants.id")).Scan(ctx, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7])
	if err != nil {
		return nil, err
	}
	labels := []string{"Accounts", "Transactions", "Trades", "Balances", "Categories", "Tags", "Merchants", "Rules"}
	out := make([]ExportCount, len(labels))
	for i, l := range labels {
		out[i] = ExportCount{Label: l, N: n[i]}
	}
	return out, nil
}
