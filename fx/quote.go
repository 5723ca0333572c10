package fx

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

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
// rules, which the SQL of charts follows too:
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
	if from == to {
		return Conversion{From: from, To: to, Rate: decimal.NewFromInt(1), Date: on}, nil
	}
	if c, ok, err := familyQuote(ctx, db, familyID, from, to, on); err != nil || ok {
		return c, err
	}
	legs, err := fetchedLegs(ctx, db, []string{from, to}, on)
	if err != nil {
		return Conversion{}, err
	}
	if c, ok := cross(from, to, legs); ok {
		return c, nil
	}
	return Conversion{}, apperr.Wrap(apperr.NotFound, ErrNoRate,
		"No exchange rate converts "+from+" to "+to+" on or before "+on.Format(time.DateOnly)+": add one of the family's own.").
		WithSlug("no_exchange_rate")
}

// familyQuote is rule 2 of Quote: each direction's latest rate on or before the day, read
// from the top of exchange_rates_family_key, and the later of the two.
func familyQuote(ctx context.Context, db bun.IDB, familyID uuid.UUID, from, to string, on time.Time) (Conversion, bool, error) {
	var found []struct {
		Date     time.Time       `bun:"date"`
		Rate     decimal.Decimal `bun:"rate"`
		Inverted bool            `bun:"inverted"`
	}
	err := db.NewRaw(`(SELECT date, rate, false AS inverted FROM exchange_rates
			WHERE family_id = ? AND base = ? AND quote = ? AND date <= ?::date ORDER BY date DESC LIMIT 1)
		UNION ALL
		(SELECT date, rate, true FROM exchange_rates
			WHERE family_id = ? AND base = ? AND quote = ? AND date <= ?::date ORDER BY date DESC LIMIT 1)
		ORDER BY date DESC, inverted LIMIT 1`,
		familyID, from, to, dateText(on), familyID, to, from, dateText(on)).Scan(ctx, &found)
	if err != nil || len(found) == 0 {
		return Conversion{}, false, err
	}
	r := found[0]
	c := Conversion{From: from, To: to, Rate: r.Rate, Date: r.Date, Source: SourceFamily}
	if r.Inverted {
		c.Rate = decimal.NewFromInt(1).DivRound(r.Rate, Precision)
	}
	return c, true, nil
}

// leg is a fetched rate from EUR.
type leg struct {
	Date time.Time
	Rate decimal.Decimal
}

// fetchedLegs returns the latest fetched rate from EUR into each of codes on or before the
// day, by code; a code with none, and EUR, are not in the map.
func fetchedLegs(ctx context.Context, db bun.IDB, codes []string, on time.Time) (map[string]leg, error) {
	var rows []struct {
		Code string          `bun:"code"`
		Date time.Time       `bun:"date"`
		Rate decimal.Decimal `bun:"rate"`
	}
	err := db.NewRaw(`SELECT c.code, r.date, r.rate FROM unnest(?::text[]) AS c(code)
		JOIN LATERAL (SELECT date, rate FROM exchange_rates
			WHERE family_id IS NULL AND base = 'EUR' AND quote = c.code AND date <= ?::date
			ORDER BY date DESC LIMIT 1) r ON true`, pgdialect.Array(codes), dateText(on)).Scan(ctx, &rows)
	legs := make(map[string]leg, len(rows))
	for _, r := range rows {
		legs[r.Code] = leg{Date: r.Date, Rate: r.Rate}
	}
	return legs, err
}

// cross is rule 3 of Quote over the legs fetchedLegs found; false when a leg is missing.
func cross(from, to string, legs map[string]leg) (Conversion, bool) {
	rate := func(code string) (leg, bool) {
		if code == "EUR" {
			return leg{Rate: decimal.NewFromInt(1)}, true
		}
		l, ok := legs[code]
		return l, ok
	}
	f, okFrom := rate(from)
	t, okTo := rate(to)
	if !okFrom || !okTo {
		return Conversion{}, false
	}
	date := f.Date
	if date.IsZero() || (!t.Date.IsZero() && t.Date.Before(date)) {
		date = t.Date
	}
	return Conversion{From: from, To: to, Rate: t.Rate.DivRound(f.Rate, Precision), Date: date, Source: SourceECB}, true
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
	on = day(on)
	legs, err := fetchedLegs(ctx, db, append(slices.Clone(fam.Currencies), fam.Currency), on)
	if err != nil {
		return nil, nil, err
	}
	var rates []Conversion
	var missing []string
	for _, code := range fam.Currencies {
		if c, ok := cross(code, fam.Currency, legs); ok {
			rates = append(rates, c)
		} else {
			missing = append(missing, code)
		}
	}
	return rates, missing, nil
}
