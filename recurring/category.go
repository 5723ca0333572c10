package recurring

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/models"
)

// paymentCategory is the category a series' payments carry most.
type paymentCategory struct {
	SeriesID uuid.UUID `bun:"series_id,type:uuid"`
	ID       uuid.UUID `bun:"category_id,type:uuid"`
	Name     string    `bun:"name"`
}

// paymentCategories returns, of each of the family's series ids, the category its payments in
// the detection window as of today carry most (the latest paid among equals); a series whose
// payments carry none is left out. The window's transactions are read once, as for payments,
// of the accounts v can see: a category is not to tell of a private account's payments.
func paymentCategories(ctx context.Context, db bun.IDB, v models.Viewer, ids []uuid.UUID, today time.Time) (map[uuid.UUID]paymentCategory, error) {
	out := map[uuid.UUID]paymentCategory{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []paymentCategory
	err := db.NewRaw(`WITH e AS MATERIALIZED (
			SELECT e.account_id, e.date, e.amount, e.currency, e.category_id, recurring_key(e.merchant_id, e.name) AS key
			FROM entries e WHERE e.family_id = ?0 AND `+ledgerFilter+` AND e.category_id IS NOT NULL AND e.date >= ?2::date AND ?4
		), counted AS (
			SELECT r.id AS series_id, e.category_id, count(*) AS n, max(e.date) AS last FROM recurring_transactions r
			JOIN e ON `+seriesPayment+`
			WHERE r.family_id = ?0 AND r.id IN (?3)
			GROUP BY r.id, e.category_id
		)
		SELECT DISTINCT ON (k.series_id) k.series_id, k.category_id, c.name FROM counted k JOIN categories c ON c.id = k.category_id
		ORDER BY k.series_id, k.n DESC, k.last DESC, k.category_id`,
		v.FamilyID, bun.In(models.TransferKinds), windowStart(today), bun.In(ids), v.VisibleQuery("e.account_id")).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("categories of the series' payments: %w", err)
	}
	for _, r := range rows {
		out[r.SeriesID] = r
	}
	return out, nil
}

// takesPaymentCategory reports whether confirming r gives it its payments' category: unless a
// person chose its category.
func takesPaymentCategory(r *models.Recurring) bool { return !(r.Manual && r.CategoryID != nil) }

// WithPaymentCategories shows each series of list not yet confirmed with the category a
// confirmation gives it: the one its payments carry most. A person sees it before confirming,
// and may choose another on the series' edit form.
func WithPaymentCategories(ctx context.Context, db bun.IDB, v models.Viewer, list []models.Recurring, today time.Time) error {
	var ids []uuid.UUID
	for _, r := range list {
		if r.Status != models.RecurringConfirmed && takesPaymentCategory(&r) {
			ids = append(ids, r.ID)
		}
	}
	cats, err := paymentCategories(ctx, db, v, ids, today)
	if err != nil {
		return err
	}
	for i := range list {
		if c, ok := cats[list[i].ID]; ok {
			list[i].CategoryID, list[i].CategoryName = &c.ID, c.Name
		}
	}
	return nil
}

// Update applies a person's change to a series (models.UpdateRecurring). Confirming it
// without naming a category gives it the category its payments carry most, so that the
// budget knows its bills in the category they are spent in (unless a person chose the
// series' category); the series stays detection's to keep up to date.
func Update(ctx context.Context, db bun.IDB, v models.Viewer, id uuid.UUID, in models.RecurringInput) (*models.Recurring, error) {
	if in.Status != nil && *in.Status == models.RecurringConfirmed && in.CategoryID == nil {
		r, err := models.RecurringByID(ctx, db, v, id)
		if err != nil {
			return nil, err
		}
		if takesPaymentCategory(r) {
			cats, err := paymentCategories(ctx, db, v, []uuid.UUID{id}, time.Now().UTC())
			if err != nil {
				return nil, err
			}
			if c, ok := cats[id]; ok {
				in.PaymentsCategory = &c.ID
			}
		}
	}
	return models.UpdateRecurring(ctx, db, v, id, in)
}
