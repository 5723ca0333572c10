package fx

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// DayRate is the rate that converts a currency on one day of a series, by Quote's rules.
type DayRate struct {
	Conversion
	// Found is false on a day no rate converts the currency.
	Found bool
}

// DailyRates returns, for each currency of from, the rate that converts it into to on each
// day from start to end (Quote's rules, day by day), in one query: the family's own rates of
// the pairs, and the fetched rates from EUR into each currency over the range with the latest
// one before it. A day before any rate of the pair takes the first there is after it, so that
// a rate entered today converts the history before it too (its Date says how far it is from
// the day). A currency no stored rate converts has no day Found.
func DailyRates(ctx context.Context, db bun.IDB, familyID uuid.UUID, from []string, to string, start, end time.Time) (map[string][]DayRate, error) {
	start, end = day(start), day(end)
	b, err := readRates(ctx, db, familyID, from, to, start, end)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]DayRate, len(from))
	for _, code := range from {
		series := make([]DayRate, 0, int(end.Sub(start).Hours()/24)+1)
		for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
			series = append(series, b.on(code, d))
		}
		out[code] = series
	}
	return out, nil
}

// DayRates are the rates of some currencies on some days, as RatesOn reads them.
type DayRates map[string]map[time.Time]DayRate

// On is the rate of currency code on d's date; not Found for a day or currency not read.
func (r DayRates) On(code string, d time.Time) DayRate { return r[code][day(d)] }

// RatesOn returns, for each currency of from, the rate that converts it into to on each of
// days, by DailyRates' rules. It costs the days asked and the rates stored between them,
// however far apart they are: for a few days spread over years, such as the month ends a
// budget's carry converts.
func RatesOn(ctx context.Context, db bun.IDB, familyID uuid.UUID, from []string, to string, days []time.Time) (DayRates, error) {
	out := make(DayRates, len(from))
	if len(days) == 0 {
		return out, nil
	}
	start, end := day(slices.MinFunc(days, time.Time.Compare)), day(slices.MaxFunc(days, time.Time.Compare))
	b, err := readRates(ctx, db, familyID, from, to, start, end)
	if err != nil {
		return nil, err
	}
	for _, code := range from {
		out[code] = make(map[time.Time]DayRate, len(days))
		for _, d := range days {
			out[code][day(d)] = b.on(code, day(d))
		}
	}
	return out, nil
}

// rateBook is what converts some currencies into to from one day to another, read at once:
// the family's own rates of each pair and the fetched legs through EUR, oldest first.
type rateBook struct {
	to     string
	family map[string][]leg
	legs   map[string][]leg
}

// on is the rate that converts code into the book's currency on day d.
func (b *rateBook) on(code string, d time.Time) DayRate {
	return rateOn(code, b.to, d, b.family[code], b.legs)
}

// readRates reads, in one query, the family's own rates of the pairs up to end, and the
// fetched rates from EUR into each currency from start to end with the latest one before.
func readRates(ctx context.Context, db bun.IDB, familyID uuid.UUID, from []string, to string, start, end time.Time) (*rateBook, error) {
	legCodes := append(slices.Clone(from), to)
	var rows []struct {
		Source string          `bun:"source"`
		Base   string          `bun:"base"`
		Quote  string          `bun:"quote"`
		Date   time.Time       `bun:"date"`
		Rate   decimal.Decimal `bun:"rate"`
	}
	err := db.NewRaw(`
		SELECT 'family' AS source, base, quote, date, rate FROM exchange_rates
		WHERE family_id = ?0 AND date <= ?3::date AND ((base = ANY (?1::text[]) AND quote = ?2) OR (base = ?2 AND quote = ANY (?1::text[])))
		UNION ALL
		SELECT 'ecb', base, quote, date, rate FROM exchange_rates
		WHERE family_id IS NULL AND base = 'EUR' AND quote = ANY (?4::text[]) AND date > ?5::date AND date <= ?3::date
		UNION ALL
		SELECT 'ecb', 'EUR', c.code, r.date, r.rate FROM unnest(?4::text[]) AS c(code)
		JOIN LATERAL (SELECT date, rate FROM exchange_rates
			WHERE family_id IS NULL AND base = 'EUR' AND quote = c.code AND date <= ?5::date
			ORDER BY date DESC LIMIT 1) r ON true
		ORDER BY date`,
		familyID, pgdialect.Array(from), to, dateText(end), pgdialect.Array(legCodes), dateText(start)).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	// Each pair's rates, oldest first: the family's by currency (inverted ones turned round;
	// the direct one first on a day both exist), the fetched legs by code.
	b := &rateBook{to: to, family: map[string][]leg{}, legs: map[string][]leg{}}
	for _, r := range rows {
		switch {
		case r.Source == SourceECB:
			b.legs[r.Quote] = append(b.legs[r.Quote], leg{Date: r.Date, Rate: r.Rate})
		case r.Quote == to:
			b.family[r.Base] = appendDay(b.family[r.Base], leg{Date: r.Date, Rate: r.Rate}, true)
		default:
			b.family[r.Quote] = appendDay(b.family[r.Quote], leg{Date: r.Date, Rate: decimal.NewFromInt(1).DivRound(r.Rate, Precision)}, false)
		}
	}
	return b, nil
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

// rateOn is Quote's rules on day d over rates read already: the family's own rate of the pair,
// else the fetched legs crossed through EUR, each the latest on or before d; and when neither
// has one that old, the first there is after d, the family's first.
func rateOn(from, to string, d time.Time, family []leg, legs map[string][]leg) DayRate {
	if from == to {
		return DayRate{Conversion: Conversion{From: from, To: to, Rate: decimal.NewFromInt(1), Date: d}, Found: true}
	}
	own := func(after bool) (DayRate, bool) {
		l, ok := pick(family, d, after)
		return DayRate{Conversion: Conversion{From: from, To: to, Rate: l.Rate, Date: l.Date, Source: SourceFamily}, Found: ok}, ok
	}
	fetched := func(after bool) (DayRate, bool) {
		day := map[string]leg{}
		for _, code := range []string{from, to} {
			if l, ok := pick(legs[code], d, after); ok {
				day[code] = l
			}
		}
		c, ok := cross(from, to, day)
		return DayRate{Conversion: c, Found: ok}, ok
	}
	for _, after := range []bool{false, true} {
		if r, ok := own(after); ok {
			return r
		}
		if r, ok := fetched(after); ok {
			return r
		}
	}
	return DayRate{}
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
