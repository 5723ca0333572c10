package imports

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"iter"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports/parse"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// The columns of the taxonomy types, by normalised header, with their alternative spellings.
var (
	categoryColumns = map[string][]string{"name": {"name"}, "color": {"color"}, "parent": {"parent_category", "parent"}, "icon": {"lucide_icon", "icon"}}
	merchantColumns = map[string][]string{"name": {"name"}, "color": {"color"}, "website": {"website_url", "website"}}
)

// taxonomyRows reads a CategoryImport, MerchantImport or RuleImport file. Its rows are built
// one at a time as they are stored, so that a large file's rows are never all held.
func taxonomyRows(text string, rc *rowContext, p *prepared) error {
	if rc.typ == RuleImport {
		p.required = []string{"resource_type", "conditions", "actions"}
		ruleRows(text, rc.cfg.ColSep, p)
		return nil
	}
	table, err := readCSV(text, rc.cfg, rc.typ)
	if err != nil {
		return err
	}
	p.headers = table.Headers
	idx := table.Index()
	cols := categoryColumns
	if rc.typ == MerchantImport {
		cols = merchantColumns
	}
	p.required = []string{"name"}
	find := map[string]int{}
	for key, names := range cols {
		for _, n := range names {
			if i, ok := idx[n]; ok {
				find[key] = i
				break
			}
		}
	}
	if _, ok := find["name"]; !ok {
		return missingHeadersError([]string{"name"}, table.Headers)
	}
	p.each = func(yield func(*Row) bool) {
		for i, rec := range table.Records {
			if !yield(taxonomyRow(i+1, rec, find)) {
				return
			}
		}
	}
	return nil
}

// taxonomyRow reads record rec as row n, its values found by column at find.
func taxonomyRow(n int, rec parse.CSVRecord, find map[string]int) *Row {
	r := &Row{Number: n, Line: rec.Line, RecordID: uuid.Must(uuid.NewV7()), Extra: map[string]any{}}
	for key, col := range find {
		if col < len(rec.Fields) {
			v := strings.TrimSpace(rec.Fields[col])
			if key == "name" {
				r.Name, r.Raw[ColName] = v, v
			} else if v != "" {
				r.Extra[key] = v
			}
		}
	}
	if r.Name == "" {
		r.fail("Name is required")
	}
	if c, ok := r.Extra["color"].(string); ok && !models.ValidColor(c) {
		r.fail(fmt.Sprintf("Color %q must be a hex colour such as #407706", c))
	}
	if parent, ok := r.Extra["parent"].(string); ok && parent == r.Name && r.Name != "" {
		r.fail(fmt.Sprintf("Category '%s' cannot be its own parent", r.Name))
	}
	return r
}

// ruleRows reads rules line by line: the first line with text is the header, and each one
// after it is a rule. Conditions and actions are JSON arrays that files often hold unquoted, so
// their quotes and commas would confuse a CSV reader: the first four fields are read as CSV,
// and the rest of the line is cut after its first complete JSON array.
func ruleRows(text, sep string, p *prepared) {
	if sep == "" {
		sep = ","
	}
	header := 0
	for n, line := range ruleLines(text) {
		if strings.TrimSpace(line) != "" {
			header, p.headers = n, strings.Split(line, sep)
			for j := range p.headers {
				p.headers[j] = strings.TrimSpace(p.headers[j])
			}
			break
		}
	}
	p.each = func(yield func(*Row) bool) {
		number := 0
		for n, line := range ruleLines(text) {
			if n <= header || strings.TrimSpace(line) == "" {
				continue
			}
			number++
			if !yield(ruleRow(number, n, line, sep)) {
				return
			}
		}
	}
}

// ruleLines yields the lines of a rule file with their numbers from 1: the text cut at each
// "\n", less the "\r" of a "\r\n".
func ruleLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		n := 0
		for line := range strings.Lines(text) {
			n++
			if l, ok := strings.CutSuffix(line, "\n"); ok {
				line = strings.TrimSuffix(l, "\r")
			}
			if !yield(n, line) {
				return
			}
		}
	}
}

// ruleRow reads the rule on line lineNo as row n.
func ruleRow(n, lineNo int, line, sep string) *Row {
	head, tail := leadingFields(line, sep, 4)
	for len(head) < 4 {
		head = append(head, "")
	}
	r := &Row{Number: n, Line: lineNo, RecordID: uuid.Must(uuid.NewV7()), Extra: map[string]any{}}
	r.Name, r.Raw[ColName] = head[0], head[0]
	resource, active, effective := head[1], strings.ToLower(head[2]), head[3]
	conditions, actions := splitJSONArrays(unquoteCSV(tail, sep))
	r.Extra["resource_type"] = resource
	r.Extra["active"] = active == "true" || active == "1" || active == "yes" || active == "y"
	if effective != "" {
		if d, err := time.Parse(time.DateOnly, effective); err == nil {
			r.Extra["effective_date"] = d.Format(time.DateOnly)
		} else {
			r.fail(fmt.Sprintf("Effective date %q must be written YYYY-MM-DD", effective))
		}
	}
	switch {
	case resource == "":
		r.fail("Resource type is required")
	case resource != "transaction":
		r.fail("Unsupported resource type: " + resource)
	}
	for _, part := range []struct{ name, text string }{{"Conditions", conditions}, {"Actions", actions}} {
		var arr []map[string]any
		switch {
		case part.text == "":
			r.fail(part.name + " is required")
		case json.Unmarshal([]byte(part.text), &arr) != nil:
			r.fail(part.name + " must be a JSON array of objects: " + truncate(part.text, 80))
		case part.name == "Actions" && len(arr) == 0:
			r.fail("Rule must have at least one action")
		default:
			r.Extra[strings.ToLower(part.name)] = arr
		}
	}
	return r
}

// leadingFields reads n CSV fields from the start of line (quotes allowed) and returns them
// with the rest of the line.
func leadingFields(line, sep string, n int) ([]string, string) {
	var fields []string
	rest := line
	for len(fields) < n && rest != "" {
		rest = strings.TrimLeft(rest, " ")
		if strings.HasPrefix(rest, `"`) {
			end := 1
			var b strings.Builder
			for end < len(rest) {
				if rest[end] == '"' {
					if end+1 < len(rest) && rest[end+1] == '"' {
						b.WriteByte('"')
						end += 2
						continue
					}
					break
				}
				b.WriteByte(rest[end])
				end++
			}
			fields = append(fields, strings.TrimSpace(b.String()))
			rest = rest[min(end+1, len(rest)):]
			rest = strings.TrimPrefix(strings.TrimLeft(rest, " "), sep)
			continue
		}
		field, after, found := strings.Cut(rest, sep)
		fields = append(fields, strings.TrimSpace(field))
		if !found {
			return fields, ""
		}
		rest = after
	}
	return fields, rest
}

// unquoteCSV undoes CSV quoting of the conditions and actions when a file did quote them:
// "[{""a"":1}]","[...]" becomes [{"a":1}],[...].
func unquoteCSV(tail, sep string) string {
	t := strings.TrimSpace(tail)
	if !strings.HasPrefix(t, `"`) {
		return t
	}
	parts, rest := leadingFields(t, sep, 2)
	return strings.Join(parts, sep) + rest
}

// splitJSONArrays cuts s after its first complete JSON array (brackets counted outside
// strings); the rest, less a leading separator, is the second.
func splitJSONArrays(s string) (string, string) {
	s = strings.TrimSpace(s)
	depth, inString, escaped := 0, false, false
	for i, ch := range s {
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '[':
			depth++
		case ch == ']':
			depth--
			if depth == 0 {
				rest := strings.TrimSpace(s[i+1:])
				rest = strings.TrimSpace(strings.TrimLeft(rest, ",;"))
				return s[:i+1], rest
			}
		}
	}
	return s, ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// palette colours new merchants and categories that the file gives no colour.
var palette = []string{"#e99537", "#4da568", "#6471eb", "#db5a54", "#df4e92", "#c44fe9", "#eb5429", "#61c9ea", "#805dee", "#6ad28a"}

func paletteColor(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return palette[h.Sum32()%uint32(len(palette))]
}

// publishTaxonomy writes categories, merchants or rules, one row at a time: these files are
// small, and each row may update a record the previous one created.
func (p *publisher) publishTaxonomy(ctx context.Context) error {
	var rows []struct {
		Name  string         `bun:"name"`
		Extra map[string]any `bun:"extra"`
	}
	if err := p.tx.NewRaw("SELECT name, extra FROM import_rows r WHERE "+validRows+" ORDER BY row_number", p.im.ID).Scan(ctx, &rows); err != nil {
		return err
	}
	for i, r := range rows {
		var err error
		switch p.im.Type {
		case CategoryImport:
			err = p.upsertCategory(ctx, r.Name, r.Extra)
		case MerchantImport:
			err = p.createMerchant(ctx, r.Name, r.Extra)
		case RuleImport:
			err = p.upsertRule(ctx, r.Name, r.Extra)
		}
		if err != nil {
			return err
		}
		if i%500 == 0 {
			p.svc.progress(ctx, p.im.ID, i, len(rows))
		}
	}
	if p.im.Type == CategoryImport {
		// Parents are linked in a second pass, so a row may name a parent listed after it.
		for _, r := range rows {
			parent, _ := r.Extra["parent"].(string)
			if parent == "" {
				continue
			}
			if _, err := p.tx.NewRaw(`UPDATE categories c SET parent_id = par.id, updated_at = now()
				FROM categories par WHERE par.family_id = c.family_id AND par.name = ? AND c.family_id = ? AND c.name = ?`,
				parent, p.im.FamilyID, r.Name).Exec(ctx); err != nil {
				return err
			}
		}
	}
	p.svc.progress(ctx, p.im.ID, len(rows), len(rows))
	return nil
}

// upsertCategory creates the category, or updates the colour and icon of an existing one (the
// last row for a name wins), and makes sure its parent exists.
func (p *publisher) upsertCategory(ctx context.Context, name string, extra map[string]any) error {
	color, _ := extra["color"].(string)
	icon, _ := extra["icon"].(string)
	if err := p.keepPrevious(ctx, "category", "categories", name); err != nil {
		return err
	}
	if _, err := p.tx.NewRaw(`
		INSERT INTO categories (id, family_id, name, color, lucide_icon, import_id)
		VALUES (?, ?, ?, coalesce(nullif(?, ''), '#737373'), coalesce(nullif(?, ''), 'shapes'), ?)
		ON CONFLICT (family_id, name) DO UPDATE SET
			color = coalesce(nullif(EXCLUDED.color, '#737373'), categories.color),
			lucide_icon = CASE WHEN ? <> '' THEN EXCLUDED.lucide_icon ELSE categories.lucide_icon END,
			updated_at = now()`,
		uuid.Must(uuid.NewV7()), p.im.FamilyID, name, color, icon, p.im.ID, icon).Exec(ctx); err != nil {
		return fmt.Errorf("category %q: %w", name, err)
	}
	if parent, _ := extra["parent"].(string); parent != "" {
		_, err := p.tx.NewRaw(`INSERT INTO categories (id, family_id, name, import_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (family_id, name) DO NOTHING`, uuid.Must(uuid.NewV7()), p.im.FamilyID, parent, p.im.ID).Exec(ctx)
		return err
	}
	return nil
}

// createMerchant creates the merchant unless the family has one of that name already.
func (p *publisher) createMerchant(ctx context.Context, name string, extra map[string]any) error {
	color, _ := extra["color"].(string)
	if color == "" {
		color = paletteColor(name)
	}
	website, _ := extra["website"].(string)
	_, err := p.tx.NewRaw(`INSERT INTO merchants (id, family_id, name, color, website_url, import_id)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (family_id, name) DO NOTHING`,
		uuid.Must(uuid.NewV7()), p.im.FamilyID, name, color, website, p.im.ID).Exec(ctx)
	return err
}

// upsertRule creates the rule, or replaces the conditions and actions of the family's rule of
// the same name. Category, merchant and tag names in it become ids, creating what is missing.
func (p *publisher) upsertRule(ctx context.Context, name string, extra map[string]any) error {
	conditions, _ := extra["conditions"].([]any)
	actions, _ := extra["actions"].([]any)
	if err := p.resolveRuleValues(ctx, conditions, "condition_type"); err != nil {
		return err
	}
	if err := p.resolveRuleValues(ctx, actions, "action_type"); err != nil {
		return err
	}
	cj, _ := json.Marshal(conditions)
	aj, _ := json.Marshal(actions)
	active, _ := extra["active"].(bool)
	effective, _ := extra["effective_date"].(string)
	var eff *string
	if effective != "" {
		eff = &effective
	}
	if name != "" {
		if err := p.keepPrevious(ctx, "rule", "rules", name); err != nil {
			return err
		}
		res, err := p.tx.NewRaw(`UPDATE rules SET conditions = ?, actions = ?, active = ?, effective_date = ?, updated_at = now()
			WHERE family_id = ? AND name = ? AND resource_type = 'transaction'`, string(cj), string(aj), active, eff, p.im.FamilyID, name).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
	}
	_, err := p.tx.NewRaw(`INSERT INTO rules (id, family_id, name, resource_type, active, effective_date, conditions, actions, import_id)
		VALUES (?, ?, ?, 'transaction', ?, ?, ?, ?, ?)`, uuid.Must(uuid.NewV7()), p.im.FamilyID, name, active, eff, string(cj), string(aj), p.im.ID).Exec(ctx)
	return err
}

// keepPrevious records the current values of the family's category or rule called name, if
// it existed before this import, so that revert can restore them. Only the first change of a
// record is kept: that is the state before the import.
func (p *publisher) keepPrevious(ctx context.Context, target, table, name string) error {
	_, err := p.tx.NewRaw(`
		INSERT INTO import_undo (import_id, target, record_id, previous)
		SELECT ?, ?, x.id, to_jsonb(x) FROM ? AS x
		WHERE x.family_id = ? AND x.name = ? AND x.import_id IS DISTINCT FROM ?
		ON CONFLICT DO NOTHING`, p.im.ID, target, bun.Ident(table), p.im.FamilyID, name, p.im.ID).Exec(ctx)
	return err
}

// ruleRefs are the condition and action types whose value names a record.
var ruleRefs = map[string]string{
	"transaction_category": "categories", "set_transaction_category": "categories",
	"transaction_merchant": "merchants", "set_transaction_merchant": "merchants",
	"set_transaction_tags": "tags",
}

func (p *publisher) resolveRuleValues(ctx context.Context, items []any, typeKey string) error {
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		kind, _ := obj[typeKey].(string)
		name, _ := obj["value"].(string)
		table := ruleRefs[kind]
		if table == "" || name == "" {
			if subs, ok := obj["sub_conditions"].([]any); ok {
				if err := p.resolveRuleValues(ctx, subs, typeKey); err != nil {
					return err
				}
			}
			continue
		}
		var id uuid.UUID
		var err error
		if given, perr := uuid.Parse(name); perr == nil {
			// An id is kept only when it is one of this family's records: a rule must never
			// point at another family's category, merchant or tag.
			err = p.tx.NewRaw("SELECT id FROM ? WHERE id = ? AND family_id = ?", bun.Ident(table), given, p.im.FamilyID).Scan(ctx, &id)
			if err == nil {
				continue
			}
			if !db.IsNoRows(err) {
				return err
			}
			return apperr.Errorf(apperr.Invalid, "A rule refers to %s %s, which is not one of this family's.", strings.TrimSuffix(table, "s"), given)
		}
		if table == "merchants" {
			err = p.createMerchant(ctx, name, map[string]any{})
			if err == nil {
				err = p.tx.NewRaw("SELECT id FROM merchants WHERE family_id = ? AND name = ?", p.im.FamilyID, name).Scan(ctx, &id)
			}
		} else {
			id, err = p.findOrCreate(ctx, table, name, nil)
		}
		if err != nil {
			return err
		}
		obj["value"] = id.String()
	}
	return nil
}
