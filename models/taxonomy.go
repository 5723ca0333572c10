package models

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"

	"tally/internal/apperr"
)

// What categories, tags and merchants share: a name unique in the family, a colour, and the
// rules that may refer to them.

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// ValidColor reports whether s is a colour as Tally stores them: #rrggbb.
func ValidColor(s string) bool { return hexColor.MatchString(s) }

// nameKeys are the family-wide unique names, by constraint, with the noun of their record.
var nameKeys = map[string]string{
	"categories_family_id_name_key": "category",
	"tags_family_id_name_key":       "tag",
	"merchants_family_id_name_key":  "merchant",
}

// nameTaken turns the unique violation of a family's category, tag or merchant name into a
// validation error on name; other errors pass through.
func nameTaken(err error, name string) error {
	if c, ok := apperr.UniqueViolation(err); ok {
		if noun, ok := nameKeys[c]; ok {
			var v apperr.Validation
			v.Add("name", fmt.Sprintf("A %s named “%s” already exists", noun, name))
			return v.Err()
		}
	}
	return err
}

// assign sets *dst to *src when src is given.
func assign(dst, src *string) {
	if src != nil {
		*dst = *src
	}
}

// validName trims *name and records a blank one.
func validName(v *apperr.Validation, name *string, creating bool) {
	if name == nil {
		if creating {
			v.Add("name", "Name can't be blank")
		}
		return
	}
	*name = strings.TrimSpace(*name)
	if *name == "" {
		v.Add("name", "Name can't be blank")
	}
	CheckText(v, "name", "Name", *name, MaxName)
}

// validColor trims *color and records one that is not #rrggbb (or empty, where allowed).
func validColor(v *apperr.Validation, color *string, emptyOK bool) {
	if color == nil {
		return
	}
	*color = strings.TrimSpace(*color)
	if (*color != "" || !emptyOK) && !ValidColor(*color) {
		v.Add("color", fmt.Sprintf("Color %q must be a hex colour such as #407706", *color))
	}
}

// validURL trims *u, makes a bare host ("example.com") its https address, and records one that
// is neither empty nor an http(s) address of a named host, in words for a person about what
// (the "website").
func validURL(v *apperr.Validation, field, what string, u *string) {
	if u == nil {
		return
	}
	*u = strings.TrimSpace(*u)
	if *u == "" {
		return
	}
	typed := *u
	if !strings.Contains(*u, "://") {
		// A person types a website as "example.com": it is the https address of that host.
		*u = "https://" + *u
	}
	if len(*u) > MaxURL {
		v.Add(field, TextTooLong(field, MaxURL))
		return
	}
	p, err := url.Parse(*u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || !strings.Contains(p.Hostname(), ".") && p.Hostname() != "localhost" {
		v.Add(field, fmt.Sprintf("“%s” is not a web address. Type the %s as example.com or https://example.com/shop.", typed, what))
	}
}

// taxon is one of the family's named lists (categories, tags or merchants) as it is read: its
// table's alias and a grouped query over the family's entries yielding (id, count), which is
// joined once rather than run per record to give each its transactions_count. counts takes the
// family's id, and has a %s where the condition that the entry's account (accountColumn) is one
// the viewer sees goes: a count says nothing of the accounts kept from them. use, when set, says
// how entries use a record: a merchant or a tag that only the accounts kept from the viewer use
// is kept from them too (taxonUses).
type taxon[T any] struct {
	noun, alias, counts, accountColumn string
	use                                *taxonUse
}

// query selects the family's records the viewer may see into model with their counts of the
// viewer's entries.
func (x taxon[T]) query(db bun.IDB, model any, v Viewer) *bun.SelectQuery {
	a := x.alias
	visible, args := v.VisibleSQL(x.accountColumn)
	q := db.NewSelect().Model(model).ColumnExpr(a+".*").
		ColumnExpr("coalesce(n.count, 0) AS transactions_count").
		Join("LEFT JOIN ("+fmt.Sprintf(x.counts, visible)+") AS n ON n.id = "+a+".id", append([]any{v.FamilyID}, args...)...).
		Where(a+".family_id = ?", v.FamilyID)
	return x.visible(q, v, a+".id")
}

// visible adds to q the condition that the record with the id in column is one v may see.
func (x taxon[T]) visible(q *bun.SelectQuery, v Viewer, column string) *bun.SelectQuery {
	if x.use == nil || !v.HidesAny() {
		return q
	}
	cond, args := x.use.visibleSQL(v, column)
	return q.Where(cond, args...)
}

// byName selects the family's records by name, case aside.
func (x taxon[T]) byName(db bun.IDB, list *[]T, v Viewer) *bun.SelectQuery {
	a := x.alias
	return x.query(db, list, v).OrderExpr("lower(" + a + ".name), " + a + ".name, " + a + ".id")
}

// page returns one page of the family's records by name, and how many there are.
func (x taxon[T]) page(ctx context.Context, db bun.IDB, v Viewer, p Page) ([]T, int, error) {
	list := []T{}
	if err := x.byName(db, &list, v).Offset(int64(p.Offset())).Limit(int64(p.Size)).Scan(ctx); err != nil {
		return nil, 0, err
	}
	q := db.NewSelect().Model((*T)(nil)).Where(x.alias+".family_id = ?", v.FamilyID)
	total, err := x.visible(q, v, x.alias+".id").Count(ctx)
	return list, int(total), err
}

// byID returns the family's record with id, or NotFound naming the noun: also when the viewer
// may not see it, as for another family's.
func (x taxon[T]) byID(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) (*T, error) {
	r := new(T)
	err := x.query(db, r, v).Where(x.alias+".id = ?", id).Scan(ctx)
	return r, notFound(err, x.noun)
}

// seen is byID's NotFound when the family's record id is kept from v, so that changing it
// answers as changing another family's does; nil otherwise.
func (x taxon[T]) seen(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) error {
	if x.use == nil || !v.HidesAny() {
		return nil
	}
	_, err := x.byID(ctx, db, v, id)
	return err
}

// claim is what creating a record named name does when the family already has one so named
// that only accounts kept from v use: that record, marked claimed so that every member sees it
// from then on, and returned as v reads it. Saying the name is taken would tell v of
// transactions kept from them; v gets what a new record would have shown them, one their
// accounts do not use yet. The record keeps its own colour and addresses. nil, nil when there
// is none such: the caller inserts, and a name taken by a record v sees is refused as before.
func (x taxon[T]) claim(ctx context.Context, db bun.IDB, v Viewer, name string) (*T, error) {
	if x.use == nil || !v.HidesAny() {
		return nil, nil
	}
	kept, args := x.use.keptSQL(v)
	var id uuid.UUID
	err := db.NewRaw("UPDATE ? SET claimed = true, updated_at = now() WHERE family_id = ? AND name = ? AND NOT claimed AND "+kept+" RETURNING id",
		append([]any{bun.Ident(x.use.table), v.FamilyID, name}, args...)...).Scan(ctx, &id)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return x.byID(ctx, db, v, id)
}

// taxonUse is how the family's entries use its merchants or its tags, for the rule that a
// merchant or a tag used only by transactions of accounts kept from a viewer is kept from them
// too (its name would tell of those transactions), while one nobody uses yet, made by hand,
// is everyone's. onlyBy selects those ids, each once, of the accounts in its arguments (the
// same array twice): the ids the hidden accounts' entries use, read through their account
// index, bounded by what those accounts hold; then of these few, those no entry of another
// account uses, each looked up in the index on the record's column. A record a member claimed
// (taxon.claim) is everyone's, whoever uses it. table is the records' own.
type taxonUse struct{ table, onlyBy string }

// visibleSQL is the condition that the record with the id in column is one v may see, and its
// arguments: one subquery, run once per query.
func (u *taxonUse) visibleSQL(v Viewer, column string) (string, []any) {
	return column + " <> ALL(ARRAY(" + u.onlyBy + "))", u.args(v)
}

// keptSQL is visibleSQL's opposite, on the id column of a query of the records' own table.
func (u *taxonUse) keptSQL(v Viewer) (string, []any) {
	return "id = ANY(ARRAY(" + u.onlyBy + "))", u.args(v)
}

// args are onlyBy's arguments: the accounts kept from v, twice.
func (u *taxonUse) args(v Viewer) []any {
	hidden := pgdialect.Array(v.Hidden)
	return []any{hidden, hidden}
}

// taxonUses are the uses of the merchants and the tags, by table.
var taxonUses = map[string]*taxonUse{
	"merchants": {table: "merchants", onlyBy: `SELECT h.id FROM (SELECT DISTINCT e.merchant_id AS id FROM entries e
		WHERE e.account_id = ANY(?::uuid[]) AND e.merchant_id IS NOT NULL) AS h
		WHERE NOT EXISTS (SELECT 1 FROM entries o WHERE o.merchant_id = h.id AND o.account_id <> ALL(?::uuid[]))
		AND NOT EXISTS (SELECT 1 FROM merchants c WHERE c.id = h.id AND c.claimed)`},
	"tags": {table: "tags", onlyBy: `SELECT h.id FROM (SELECT DISTINCT u.id FROM entries e, unnest(e.tag_ids) AS u(id)
		WHERE e.account_id = ANY(?::uuid[]) AND e.tag_ids <> '{}') AS h
		WHERE NOT EXISTS (SELECT 1 FROM entries o WHERE o.tag_ids <> '{}' AND o.tag_ids @> ARRAY[h.id] AND o.account_id <> ALL(?::uuid[]))
		AND NOT EXISTS (SELECT 1 FROM tags c WHERE c.id = h.id AND c.claimed)`},
}

// VisibleNamedSQL is the condition that the family's record of table ("categories", "merchants"
// or "tags") whose id is in column is one v may see, as SQL text and its arguments, for queries
// written by hand: a merchant or a tag that only transactions of accounts kept from v use is
// kept from v as well. "TRUE" when nothing is hidden, and for the categories, which are the
// family's whoever uses them.
func (v Viewer) VisibleNamedSQL(table, column string) (string, []any) {
	use := taxonUses[table]
	if use == nil || !v.HidesAny() {
		return "TRUE", nil
	}
	return use.visibleSQL(v, column)
}

// VisibleNamedQuery is VisibleNamedSQL as one argument of a query whose placeholders are
// numbered, as VisibleQuery is VisibleSQL.
func (v Viewer) VisibleNamedQuery(table, column string) schema.QueryWithArgs {
	cond, args := v.VisibleNamedSQL(table, column)
	return bun.SafeQuery(cond, args...)
}

// ruleRefersTo is the condition on rules r that their conditions or actions name the id given
// as its argument. Rules keep ids inside JSON, where no foreign key reaches (imports' revert
// asks the same).
const ruleRefersTo = `(r.conditions::text || r.actions::text) LIKE '%' || ?::text || '%'`

// ruleRef is a rule that names a record.
type ruleRef struct {
	ID   uuid.UUID `bun:"id"`
	Name string    `bun:"name"`
}

// rulesReferringTo are the family's rules that name id, in the order they run.
func rulesReferringTo(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) ([]ruleRef, error) {
	var refs []ruleRef
	err := idb.NewRaw("SELECT r.id, coalesce(nullif(r.name, ''), 'unnamed') AS name FROM rules r WHERE r.family_id = ? AND "+
		ruleRefersTo+" ORDER BY r.position, r.id", familyID, id).Scan(ctx, &refs)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	return refs, nil
}

// refusedByRules is the conflict of deleting a record that rules still name: a rule setting a
// deleted merchant would fail every later import, and a deleted tag would reappear on entries.
func refusedByRules(noun string, rules []ruleRef) error {
	return apperr.Errorf(apperr.Conflict, "%s use%s this %s (%s): change or delete %s first",
		usedBy(0, len(rules)), plural(len(rules), "s", ""), noun, quoteList(rules), plural(len(rules), "it", "them"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoteList(rules []ruleRef) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = "“" + r.Name + "”"
	}
	return strings.Join(q, ", ")
}

// forgetMappings clears (or, with to, moves) the family's import mappings of kind that point
// at id, so that an import published later neither writes a deleted id nor fails on it.
func forgetMappings(ctx context.Context, idb bun.IDB, familyID uuid.UUID, kind string, id uuid.UUID, to *uuid.UUID) error {
	_, err := idb.NewRaw(`UPDATE import_mappings m SET target_id = ? FROM imports i
		WHERE i.id = m.import_id AND i.family_id = ? AND m.kind = ? AND m.target_id = ?`, to, familyID, kind, id).Exec(ctx)
	return err
}

// updateNamed sets the given columns (a nil value is left alone) on the family's row of q's
// model, a tag or a merchant: a duplicate name is named, a row of another family not found.
func updateNamed(ctx context.Context, q *bun.UpdateQuery, noun string, familyID, id uuid.UUID, columns map[string]*string) error {
	q.Set("updated_at = now()").Where("id = ? AND family_id = ?", id, familyID)
	for column, v := range columns {
		if v != nil {
			q.Set("? = ?", bun.Ident(column), *v)
		}
	}
	res, err := q.Exec(ctx)
	if err != nil {
		if name := columns["name"]; name != nil {
			return nameTaken(err, *name)
		}
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, noun+" not found")
	}
	return nil
}

// deleteUnreferenced deletes the family's row of table (tags or merchants) in tx, refused
// (Conflict) while a rule names it: the rule would go on setting the deleted id.
func deleteUnreferenced(ctx context.Context, tx bun.Tx, table, noun string, familyID, id uuid.UUID) error {
	res, err := tx.NewRaw("DELETE FROM ? WHERE id = ? AND family_id = ?", bun.Ident(table), id, familyID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, noun+" not found")
	}
	rules, err := rulesReferringTo(ctx, tx, familyID, id)
	if err != nil {
		return err
	}
	if len(rules) > 0 {
		return refusedByRules(noun, rules)
	}
	return nil
}
