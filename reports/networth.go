package reports

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/fx"
	"tally/models"
)

// NetWorth is a family's net worth in one currency on each day of a range: each currency's
// part converted at that day's rate (fx.Converter), summed. A currency no stored rate
// converts is never summed as if one to one: it stays apart, in its own money.
type NetWorth struct {
	Currency string
	// Points are the total in Currency, of the parts that convert; none when the family has
	// no open account. Monthly as models.DailyNetWorth says.
	Points  []models.DailyBalance
	Monthly bool
	// Parts are each currency's part on the last day, Currency's first, then by code.
	Parts []NetWorthPart
	// Unconverted are the currencies no rate converts, each in its own money.
	Unconverted []models.BalanceSeries
}

// NetWorthPart is one currency's part of a net worth on the last day of its range.
type NetWorthPart struct {
	Currency  string
	Amount    decimal.Decimal // in its own money
	Converted decimal.Decimal // in the net worth's currency
	// Rate is the rate used; its Date may be days before the day (the latest there was) or,
	// for a rate entered after it, days after.
	Rate fx.Conversion
}

// Last is the total on the last day, zero when there are no points.
func (n *NetWorth) Last() decimal.Decimal {
	if len(n.Points) == 0 {
		return decimal.Zero
	}
	return n.Points[len(n.Points)-1].Balance
}

// FamilyNetWorth returns the family's net worth in currency from start to end, as the viewer
// sees it: the daily balances of its open accounts the viewer may see, per currency (models.DailyNetWorth, one query), and the rates
// of each day (fx.NewConverter, one query), multiplied and rounded to the currency's decimals.
func FamilyNetWorth(ctx context.Context, db bun.IDB, v models.Viewer, currency string, start, end time.Time) (*NetWorth, error) {
	series, err := models.DailyNetWorth(ctx, db, v, start, end)
	if err != nil {
		return nil, err
	}
	out := &NetWorth{Currency: currency}
	if len(series) == 0 {
		return out, nil
	}
	var others []string
	for _, s := range series {
		if s.Currency != currency {
			others = append(others, s.Currency)
		}
	}
	rates, err := fx.NewConverter(ctx, db, v.FamilyID, others, currency, start, end)
	if err != nil {
		return nil, err
	}
	var parts []NetWorthPart
	for _, s := range series {
		rate := rates.On(s.Currency, end)
		if !rate.Found {
			out.Unconverted = append(out.Unconverted, s)
			continue
		}
		if out.Points == nil {
			out.Monthly = s.Monthly
			out.Points = make([]models.DailyBalance, len(s.Points))
			for i, p := range s.Points {
				out.Points[i] = models.DailyBalance{Date: p.Date}
			}
		}
		for i, p := range s.Points {
			// Each point at its own day's rate: the points may be month ends. A rate found
			// for the last day converts every day before it too, the first rate there is
			// before any.
			v, _ := rates.Convert(p.Balance, s.Currency, p.Date)
			out.Points[i].Balance = out.Points[i].Balance.Add(v)
		}
		last := s.Points[len(s.Points)-1]
		part := NetWorthPart{Currency: s.Currency, Amount: last.Balance, Converted: last.Balance,
			Rate: fx.Conversion{From: currency, To: currency, Rate: decimal.NewFromInt(1), Date: last.Date}}
		if s.Currency != currency {
			part.Rate = rate.Conversion
			part.Converted, _ = rates.Convert(last.Balance, s.Currency, end)
		}
		parts = append(parts, part)
	}
	// The family's currency first; DailyNetWorth orders the rest by code.
	for _, p := range parts {
		if p.Currency == currency {
			out.Parts = append(out.Parts, p)
		}
	}
	for _, p := range parts {
		if p.Currency != currency {
			out.Parts = append(out.Parts, p)
		}
	}
	return out, nil
}
