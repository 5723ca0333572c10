package imports

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/models"
)

// RowDiagnostic is one row as the rows endpoint and the import page show it.
type RowDiagnostic struct {
	RowNumber int      `bun:"row_number"`
	Line      int      `bun:"line"`
	Raw       []string `bun:"raw,array"`
	Errors    []string `bun:"errors,array"`
	Duplicate bool     `bun:"duplicate"`
	Valid     bool     `bun:"valid"`
	// MatchedBy names the rule that matched the row to an existing entry (MatchBankID, ...),
	// "" when none did.
	MatchedBy string `bun:"matched_by"`
	// Date, Amount (in the ledger's sign: positive is money out), Currency and Name are what
	// the row reads as; nil or "" where it has none.
	Date     *time.Time       `bun:"date"`
	Amount   *decimal.Decimal `bun:"amount"`
	Currency string           `bun:"currency"`
	Name     string           `bun:"name"`
	// Clipped names the texts of the row that were over their bound and are kept cut
	// (clipRow); Warnings says so.
	Clipped []string `bun:"clipped,array"`
	// Details are a statement entry's references and codes, apart from its notes.
	Details []RowDetail `bun:"details,type:jsonb"`
}

// clippedTexts are the labels and bounds of the texts clipRow cuts, by its field names.
var clippedTexts = map[string]struct {
	label string
	max   int
}{
	"name": {"The name", models.MaxName}, "notes": {"The notes", models.MaxNotes}, "account": {"The account", models.MaxName},
	"category": {"The category", models.MaxName}, "tags": {"A tag", models.MaxName}, "entity_type": {"The type", models.MaxName},
	"ticker": {"The ticker", models.MaxName}, "mic": {"The exchange", models.MaxName}, "parent": {"The parent category", models.MaxName},
	"website": {"The website", models.MaxName},
}

// Warnings says what of the row was cut to fit, and how far.
func (r *RowDiagnostic) Warnings() []string {
	out := []string{}
	for _, f := range r.Clipped {
		if t, ok := clippedTexts[f]; ok {
			out = append(out, models.ClipNote(t.label, t.max))
		}
	}
	return out
}

// Fields returns the row's raw cells by column key, leaving out columns the type does not read.
func (r *RowDiagnostic) Fields(t Type) map[string]string {
	out := map[string]string{}
	for _, col := range specs[t].columns {
		if col < len(r.Raw) {
			out[columnKeys[col]] = r.Raw[col]
		}
	}
	if len(specs[t].columns) == 0 && len(r.Raw) > ColName {
		out["name"] = r.Raw[ColName]
	}
	return out
}

// RowFilter selects a page of an import's rows.
type RowFilter struct {
	ImportID uuid.UUID
	// Only is "invalid", "duplicate" or "" for every row.
	Only    string
	Page    int
	PerPage int
}

// Rows returns a page of the import's rows in file order, and how many match.
func Rows(ctx context.Context, idb bun.IDB, f RowFilter) ([]RowDiagnostic, int, error) {
	var rows []RowDiagnostic
	q := idb.NewSelect().TableExpr("import_rows").
		Column("row_number", "line", "errors", "duplicate", "date", "amount").
		// Rows read before raw cells were bounded may hold huge ones: the page shows a bounded
		// part of each.
		ColumnExpr("ARRAY(SELECT left(u.cell, ?) FROM unnest(raw) WITH ORDINALITY AS u(cell, n) ORDER BY u.n) AS raw", models.MaxNotes).
		ColumnExpr("ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(extra->'clipped') = 'array' THEN extra->'clipped' END)) AS clipped").
		ColumnExpr("coalesce(currency, '') AS currency").ColumnExpr("coalesce(name, '') AS name").
		ColumnExpr("cardinality(errors) = 0 AS valid").
		ColumnExpr("coalesce(extra->>'matched_by', '') AS matched_by").
		ColumnExpr("extra->'details' AS details").
		Where("import_id = ?", f.ImportID).
		OrderExpr("row_number").
		Limit(int64(f.PerPage)).Offset(int64((f.Page - 1) * f.PerPage))
	switch f.Only {
	case "invalid":
		q = q.Where("cardinality(errors) > 0")
	case "duplicate":
		q = q.Where("duplicate")
	}
	n, err := q.ScanAndCount(ctx, &rows)
	return rows, int(n), err
}

// Mapping is a name in the file and what it stands for, as pages and the API show it.
type Mapping struct {
	Kind            string     `bun:"kind" json:"kind"`
	Key             string     `bun:"key" json:"key"`
	TargetID        *uuid.UUID `bun:"target_id" json:"target_id"`
	TargetName      *string    `bun:"target_name" json:"target_name"`
	Value           *string    `bun:"value" json:"value"`
	CreateWhenEmpty bool       `bun:"create_when_empty" json:"create_when_empty"`
	Created         bool       `bun:"created" json:"created"`
}

// Mappings lists the import's mappings with the names of their targets.
func Mappings(ctx context.Context, idb bun.IDB, importID uuid.UUID) ([]Mapping, error) {
	var ms []Mapping
	err := idb.NewRaw(`
		SELECT m.kind, m.key, m.target_id, m.value, m.create_when_empty, m.created,
			coalesce(a.name, c.name, t.name) AS target_name
		FROM import_mappings m
		LEFT JOIN accounts a ON m.kind = 'account' AND a.id = m.target_id
		LEFT JOIN categories c ON m.kind = 'category' AND c.id = m.target_id
		LEFT JOIN tags t ON m.kind = 'tag' AND t.id = m.target_id
		WHERE m.import_id = ? ORDER BY m.kind, m.key`, importID).Scan(ctx, &ms)
	return ms, err
}
