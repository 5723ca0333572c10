package fx

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/models"
)

// DayRate is the rate that converts a currency on one day, by Converter.On.
type DayRate struct {
	Conversion
	// Found is false on a day no rate converts the currency.
	Found bool
}

// Converter holds the rates that convert some currencies into one currency from one day to
// another, read in one query: the family's own rates of each pair and the fetched rates from
// EUR, oldest first. Its methods are the one rule of which rate converts a currency on a day,
// which every conversion of Tally's follows: Latest (Quote's rules), and On (Latest, or on a
// day before any rate, the first after it).
type Converter struct {
	to     string
	places int32
	family map[string][]leg // by currency, inverted rates turned round
	legs   map[string][]leg // by currency, the fetched rates from EUR
}

// leg is a rate of one pair: a family's own rate into the Converter's currency, or a fetched
// one from EUR.
type leg struct {
	Date time.Time
	Rate decimal.Decimal
}

// NewConverter reads the rates that convert each currency of from into to on any of days
// (their calendar dates), in one query. It costs the rates stored from the first of days to
// the last and the one before; a familyID of uuid.Nil reads the fetched rates alone.
func NewConverter(ctx context.Context, db bun.IDB, familyID uuid.UUID, from []string, to string, days ...time.Time) (*Converter, error) {
	c := &Converter{to: to, places: int32(models.CurrencyDecimals(to)), family: map[string][]leg{}, legs: map[string][]leg{}}
	if len(days) == 0 || len(from) == 0 {
		return c, nil
	}
	start, end := day(slices.MinFunc(days, time.Time.Compare)), day(slices.MaxFunc(days, time.Time.Compare))
	var rows []struct {
		Source string          `bun:"source"`
		Base   string          `bun:"base"`
		Quote  string          `bun:"quote"`
		Date   time.Time       `bun:"date"`
		Rate   decimal.Decimal `bun:"rate"`
	}
	// Each pair (the family's own, either way round, and the fetched legs from EUR): the latest
	// rate on or before start, read from the top of its index, and those after it up to end.
	err := db.NewRaw(`WITH own (base, quote) AS (
			SELECT c, ?2 FROM unnest(?1::text[]) AS c UNION ALL SELECT ?2, c FROM unnest(?1::text[]) AS c),
		fetched (quote) AS (SELECT unnest(?1::text[] || ?2::text))
		SELECT 'family' AS source, o.base, o.quote, r.date, r.rate FROM own o
		JOIN LATERAL (SELECT date, rate FROM exchange_rates
			WHERE family_id = ?0 AND base = o.base AND quote = o.quote AND date <= ?3::date
			ORDER BY date DESC LIMIT 1) r ON true
		UNION ALL
		SELECT 'family', base, quote, date, rate FROM exchange_rates
		WHERE family_id = ?0 AND (base, quote) IN (SELECT base, quote FROM own) AND date > ?3::date AND date <= ?4::date
		UNION ALL
		SELECT 'ecb', 'EUR', f.quote, r.date, r.rate FROM fetched f
		JOIN LATERAL (SELECT date, rate FROM exchange_rates
			WHERE family_id IS NULL AND base = 'EUR' AND quote = f.quote AND date <= ?3::date
			ORDER BY date DESC LIMIT 1) r ON true
		UNION ALL
		SELECT 'ecb', base, quote, date, rate FROM exchange_rates
		WHERE family_id IS NULL AND base = 'EUR' AND quote IN (SELECT quote FROM fetched) AND date > ?3::date AND date <= ?4::date
		ORDER BY date`,
		familyID, pgdialect.Array(from), to, dateText(start), dateText(end)).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		switch {
		case row.Source == SourceECB:
			c.legs[row.Quote] = append(c.legs[row.Quote], leg{Date: row.Date, Rate: row.Rate})
		case row.Quote == to:
			c.family[row.Base] = appendDay(c.family[row.Base], leg{Date: row.Date, Rate: row.Rate}, true)
		default:
			c.family[row.Quote] = appendDay(c.family[row.Quote], leg{Date: row.Date, Rate: decimal.NewFromInt(1).DivRound(row.Rate, Precision)}, false)
		}
	}
	return c, nil
}

// appendDay adds l to a pair's rates, oldest first; of two of the same day the direct one
// stays.
func appendDay(list []leg, l leg, direct bool) []leg {
	if n := len(list); n > 0 && list[n-1].Date.Equal(l.Date) {
		if direct {
			list[n-1] = l
		}
		return list
	}
	return append(list, l)
}

// Latest is the rate that converts code into the Converter's currency on d by Quote's rules: the
// same currency at 1; else the family's own rate of the pair, else the fetched legs crossed
// through EUR, each the latest on or before d; false when there is none that old.
func (c *Converter) Latest(code string, d time.Time) (Conversion, bool) {
	return c.find(code, day(d), false)
}

// On is the rate that converts code on d for a conversion: Latest, or, on a day before any
// rate of the pair, the first one after it (the family's first), so that a rate entered
// today converts the history before it too; its Date says how far it is from the day. Not
// Found when no rate read converts code.
func (c *Converter) On(code string, d time.Time) DayRate {
	d = day(d)
	for _, after := range []bool{false, true} {
		if conv, ok := c.find(code, d, after); ok {
			return DayRate{Conversion: conv, Found: true}
		}
	}
	return DayRate{}
}

// Convert converts v in code into the Converter's currency at On's rate of day d, rounded to that
// currency's decimals; false when no rate converts code. An amount already in the currency,
// or zero, needs no rate.
func (c *Converter) Convert(v decimal.Decimal, code string, d time.Time) (decimal.Decimal, bool) {
	if code == c.to || v.IsZero() {
		return v, true
	}
	rate := c.On(code, d)
	if !rate.Found {
		return decimal.Zero, false
	}
	return v.Mul(rate.Rate).Round(c.places), true
}

// find is the family's own rate of code, else the fetched legs crossed, each the latest on
// or before d; with after, a pair with none that old takes its first.
func (c *Converter) find(code string, d time.Time, after bool) (Conversion, bool) {
	if code == c.to {
		return Conversion{From: code, To: c.to, Rate: decimal.NewFromInt(1), Date: d}, true
	}
	if l, ok := pick(c.family[code], d, after); ok {
		return Conversion{From: code, To: c.to, Rate: l.Rate, Date: l.Date, Source: SourceFamily}, true
	}
	legs := map[string]leg{}
	for _, cur := range []string{code, c.to} {
		if l, ok := pick(c.legs[cur], d, after); ok {
			legs[cur] = l
		}
	}
	return cross(code, c.to, legs)
}

// pick is the latest of rates (oldest first) dated on or before d; with after, the first of
// them when none is that old.
func pick(rates []leg, d time.Time, after bool) (leg, bool) {
	i, found := slices.BinarySearchFunc(rates, d, func(l leg, d time.Time) int { return l.Date.Compare(d) })
	switch {
	case found:
		return rates[i], true
	case i > 0:
		return rates[i-1], true
	case after && len(rates) > 0:
		return rates[0], true
	}
	return leg{}, false
}

// cross converts from into to through EUR, rate(EUR→to) / rate(EUR→from), over one fetched
// leg of each (EUR→EUR is 1), dated by the older leg; false when a leg is missing.
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
