package rules

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/db"
	"tally/models"
)

// PreviewRow is a transaction a rule matches, as a preview lists it.
type PreviewRow struct {
	ID       uuid.UUID       `bun:"id"`
	Date     time.Time       `bun:"date"`
	Name     string          `bun:"name"`
	Amount   decimal.Decimal `bun:"amount"`
	Currency string          `bun:"currency"`
	Account  string          `bun:"account"`
}

// Preview counts the family's transactions rule r matches in the accounts v may see, newest
// first, and lists the first limit of them. It reads as Stage does and writes nothing.
func Preview(ctx context.Context, d *db.DB, v models.Viewer, r Rule, limit int) (int, []PreviewRow, error) {
	r.Active = true
	set, err := Compile([]Rule{r})
	if err != nil {
		return 0, nil, err
	}
	c := set.rules[0]
	count := 0
	var first []uuid.UUID
	err = d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		visible, args := v.VisibleNumbered("account_id", 2)
		rows, err := tx.Pgx.Query(ctx, `SELECT `+Columns+` FROM entries WHERE family_id = $1 AND kind = 'transaction' AND `+visible+`
			ORDER BY date DESC, id DESC`, append([]any{v.FamilyID}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanTxn(rows)
			if err != nil {
				return err
			}
			t.prepare(&set.texts)
			if (c.gate < 0 || t.textBits[c.gate/64]&(1<<(c.gate%64)) != 0) && c.test(&t) {
				count++
				if len(first) < limit {
					first = append(first, t.ID)
				}
			}
		}
		return rows.Err()
	})
	if err != nil || len(first) == 0 {
		return count, nil, err
	}
	var out []PreviewRow
	err = d.NewRaw(`SELECT e.id, e.date, e.name, e.amount, e.currency, a.name AS account FROM entries e
		JOIN accounts a ON a.id = e.account_id WHERE e.family_id = ? AND e.id IN (?) ORDER BY e.date DESC, e.id DESC`,
		v.FamilyID, bun.In(first)).Scan(ctx, &out)
	return count, out, err
}
