package fx

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/dates"
	"tally/models"
)

// RateInput is a family's own rate as a person or a client writes it, every field as text,
// so that each problem is reported on its field.
type RateInput struct {
	Date  string // YYYY-MM-DD
	Base  string // ISO code; lower case is taken as upper
	Quote string
	Rate  string // 1 Base buys Rate Quote: digits with an optional point
}

// Filter narrows the family's own rates: each field that is set must match.
type Filter struct {
	Base, Quote string
	Date        *time.Time
}

func notFound() error { return apperr.New(apperr.NotFound, "Exchange rate not found") }

// mayNotSet is the answer to anyone but an admin who sets or deletes a rate.
func mayNotSet() error {
	return apperr.New(apperr.Forbidden, "Only an admin of the family can set or delete its exchange rates")
}

// SetRate stores, for the user by, their family's own rate for a pair on a date, replacing the
// rate it had for that pair and date, either way round (EUR→USD and USD→EUR are one pair), so
// that a day never has two rates for a pair. Only an admin may (models.User.MaySetRates;
// anyone else is Forbidden). Every problem is an Invalid error naming its field: a date
// that is not one of those Tally takes (dates.Day) or is more than a day ahead, a currency that is not an ISO code, a quote
// that is the base, a rate that is not a positive number of at most 12 decimals.
func SetRate(ctx context.Context, db bun.IDB, by *models.User, in RateInput) (*Rate, error) {
	if !by.MaySetRates() {
		return nil, mayNotSet()
	}
	familyID := by.FamilyID
	r, err := in.validate(time.Now())
	if err != nil {
		return nil, err
	}
	r.ID, r.FamilyID, r.Source = uuid.Must(uuid.NewV7()), &familyID, SourceFamily
	// The inverse goes in the same statement as the upsert: the two never touch one row.
	err = db.NewRaw(`WITH inverse AS (
			DELETE FROM exchange_rates WHERE family_id = ? AND base = ? AND quote = ? AND date = ?::date)
		INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source)
		VALUES (?, ?, ?::date, ?, ?, ?, ?)
		ON CONFLICT (family_id, base, quote, date) WHERE family_id IS NOT NULL
		DO UPDATE SET rate = EXCLUDED.rate, updated_at = now()
		RETURNING *`,
		familyID, r.Quote, r.Base, dateText(r.Date),
		r.ID, familyID, dateText(r.Date), r.Base, r.Quote, r.Rate, r.Source).Scan(ctx, r)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// validate reads the input, normalised, as a rate, or returns every problem with it. A rate
// may be dated up to a day after now's UTC date, for families east of UTC.
func (in RateInput) validate(now time.Time) (*Rate, error) {
	var v apperr.Validation
	r := &Rate{Base: normalCode(in.Base), Quote: normalCode(in.Quote)}
	switch date, err := dates.Day("date", in.Date); {
	case strings.TrimSpace(in.Date) == "":
		v.Add("date", "Enter the date the rate is for.")
	case err != nil:
		v.Merge(err)
	case date.After(day(now.UTC()).AddDate(0, 0, 1)):
		v.Add("date", "The date is in the future: a rate can be dated up to tomorrow.")
	default:
		r.Date = date
	}
	for _, f := range []struct{ field, label, code string }{{"base", "Base", r.Base}, {"quote", "Quote", r.Quote}} {
		if !models.ValidCurrency(f.code) {
			v.Add(f.field, f.label+" must be a three-letter ISO currency code such as EUR.")
		}
	}
	if r.Base != "" && r.Base == r.Quote {
		v.Add("quote", "The quote currency must differ from the base: one currency converts to itself at 1.")
	}
	if s := strings.TrimSpace(in.Rate); s == "" {
		v.Add("rate", "Enter how much of the quote currency 1 of the base buys.")
	} else if rate, msg := parseRate(s); msg != "" {
		v.Add("rate", "Rate "+msg+".")
	} else {
		r.Rate = rate
	}
	return r, v.Err()
}

func normalCode(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// Rates returns one page of the family's own rates that match f, newest first (then by pair),
// and how many match.
func Rates(ctx context.Context, db bun.IDB, familyID uuid.UUID, f Filter, p models.Page) ([]Rate, int, error) {
	list := []Rate{}
	q := db.NewSelect().Model(&list).Where("family_id = ?", familyID)
	if f.Base != "" {
		q = q.Where("base = ?", f.Base)
	}
	if f.Quote != "" {
		q = q.Where("quote = ?", f.Quote)
	}
	if f.Date != nil {
		q = q.Where("date = ?::date", dateText(*f.Date))
	}
	total, err := q.OrderExpr("date DESC, base, quote").Offset(int64(p.Offset())).Limit(int64(p.Size)).ScanAndCount(ctx)
	return list, int(total), err
}

// DeleteRate deletes, for the user by, their family's own rate id: an admin only, as SetRate;
// another family's, or a fetched one, is not found.
func DeleteRate(ctx context.Context, db bun.IDB, by *models.User, id uuid.UUID) error {
	if !by.MaySetRates() {
		return mayNotSet()
	}
	res, err := db.NewDelete().Model((*Rate)(nil)).Where("id = ? AND family_id = ?", id, by.FamilyID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound()
	}
	return nil
}
