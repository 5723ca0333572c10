package fx

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Conversion is a rate Quote found: 1 From buys Rate units of To.
type Conversion struct {
	From, To string
	Rate     decimal.Decimal
	// Date is the date of the rate used: the family's rate's, or the older of the two
	// fetched rates crossed; the day asked for when From and To are the same currency.
	Date time.Time
	// Source is SourceFamily or SourceECB; "" when From and To are the same currency.
	Source string
}

// Quote is the rate that converts from into to on the day on (its calendar date), by these
// rules (Converter.Latest, which Converter.On, and so every conversion, starts from):
//
//  1. The same currency converts at 1.
//  2. The family's own rate for the pair wins whenever one exists: direct (base from, quote
//     to) or inverted (base to, quote from, and 1/rate), the latest dated on or before the
//     day; on the same date the direct one wins.
//  3. Else the fetched rates, crossed through EUR: rate(EUR→to) / rate(EUR→from), with
//     EUR→EUR 1 and each leg the latest on or before the day; Date is the older leg's.
//  4. Else NotFound, wrapping ErrNoRate.
//
// An inverted or crossed rate is rounded to Precision decimals.
func Quote(ctx context.Context, db bun.IDB, familyID uuid.UUID, from, to string, on time.Time) (Conversion, error) {
	on = day(on)
	rates, err := NewConverter(ctx, db, familyID, []string{from}, to, on)
	if err != nil {
		return Conversion{}, err
	}
	if c, ok := rates.Latest(from, on); ok {
		return c, nil
	}
	return Conversion{}, apperr.Wrap(apperr.NotFound, ErrNoRate,
		"No exchange rate converts "+from+" to "+to+" on or before "+on.Format(time.DateOnly)+": add one of the family's own.").
		WithSlug("no_exchange_rate")
}

// AccountRates returns the latest fetched rate on or before on (crossed through EUR, as
// Quote's rule 3) from each currency the family's accounts use into the family's currency,
// by currency, and the currencies no fetched rate converts. The family's own rates are left
// out: this is what the ECB says.
func AccountRates(ctx context.Context, db bun.IDB, familyID uuid.UUID, on time.Time) ([]Conversion, []string, error) {
	var fam struct {
		Currency   string   `bun:"currency"`
		Currencies []string `bun:"currencies,array"`
	}
	if err := db.NewRaw(`SELECT f.currency, array(SELECT DISTINCT a.currency FROM accounts a
			WHERE a.family_id = f.id AND a.currency <> f.currency ORDER BY 1) AS currencies
		FROM families f WHERE f.id = ?`, familyID).Scan(ctx, &fam); err != nil {
		return nil, nil, err
	}
	if len(fam.Currencies) == 0 {
		return nil, nil, nil
	}
	fetched, err := NewConverter(ctx, db, uuid.Nil, fam.Currencies, fam.Currency, on)
	if err != nil {
		return nil, nil, err
	}
	var rates []Conversion
	var missing []string
	for _, code := range fam.Currencies {
		if c, ok := fetched.Latest(code, on); ok {
			rates = append(rates, c)
		} else {
			missing = append(missing, code)
		}
	}
	return rates, missing, nil
}
