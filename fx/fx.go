// Package fx keeps exchange rates by date and converts between currencies with them.
//
// Two kinds of rate are stored in exchange_rates. The European Central Bank's reference rates
// are fetched daily for every family (family_id NULL): 1 EUR buys rate units of each other
// currency, as the ECB publishes them (Fetcher). A family may also set its own rates for any
// pair (SetRate), and whenever one exists for a pair on or before a day, it wins over the
// fetched ones (Quote).
package fx

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
)

// Sources of a rate, as exchange_rates.source and Conversion.Source name them.
const (
	SourceECB    = "ecb"
	SourceFamily = "family"
)

// Precision is how many decimals a stored rate has, and a rate Quote computes (an inverse or
// a cross rate) is rounded to, half away from zero.
const Precision = 12

// maxIntegerDigits is how many digits a rate may have before its point: numeric(28, 12).
const maxIntegerDigits = 28 - Precision

// Rate is a stored exchange rate: on Date, 1 Base buys Rate units of Quote.
type Rate struct {
	bun.BaseModel `bun:"table:exchange_rates,alias:xr"`

	ID uuid.UUID `bun:"id,pk,type:uuid"`
	// FamilyID is the family whose own rate it is; nil for a fetched rate.
	FamilyID  *uuid.UUID      `bun:"family_id,type:uuid"`
	Date      time.Time       `bun:"date,type:date"`
	Base      string          `bun:"base"`
	Quote     string          `bun:"quote"`
	Rate      decimal.Decimal `bun:"rate,type:numeric"`
	Source    string          `bun:"source"`
	CreatedAt time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time       `bun:"updated_at,nullzero,default:now()"`
}

// ErrNoRate is the cause of Quote's NotFound error when no stored rate converts the pair on
// or before the day.
var ErrNoRate = errors.New("no exchange rate")

// rateText is a rate as the ECB and Tally write it: digits, and a point with decimals.
var rateText = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// parseRate reads a rate written as digits with an optional decimal point. It returns what
// is wrong with s, to follow the field's name ("must be …"), or "".
func parseRate(s string) (decimal.Decimal, string) {
	if !rateText.MatchString(s) {
		return decimal.Zero, "must be a number such as 1.0823"
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(strings.TrimLeft(whole, "0")) > maxIntegerDigits {
		return decimal.Zero, "is too large"
	}
	if len(frac) > Precision {
		return decimal.Zero, "has more than 12 decimals"
	}
	d := decimal.RequireFromString(s)
	if !d.IsPositive() {
		return decimal.Zero, "must be greater than zero"
	}
	return d, ""
}

// day is t's calendar date, in t's own location, at midnight UTC as Tally keeps dates.
func day(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dateText is a date as SQL takes it, so that no time zone moves it.
func dateText(t time.Time) string { return t.Format(time.DateOnly) }
