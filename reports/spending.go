// Package reports answers what a family's money did over a period: where it went, month by
// month. The numbers are read from the ledger with set-based queries, one per report.
package reports

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/fx"
	"tally/internal/dates"
	"tally/models"
)

// Month is a calendar month, as ?month=2026-10 names it.
type Month struct {
	Year  int
	Month time.Month
}

// MonthOf is the month of day.
func MonthOf(day time.Time) Month {
	return Month{Year: day.Year(), Month: day.Month()}
}

// ParseMonth reads a month written as 2026-10 from 1970-01 to 2100-12 (dates.Month),
// reporting a problem on field.
func ParseMonth(field, s string) (Month, error) {
	t, err := dates.Month(field, s)
	if err != nil {
		return Month{}, err
	}
	return MonthOf(t), nil
}

// String writes the month as 2026-10.
func (m Month) String() string { return m.First().Format("2006-01") }

// First is the month's first day, at midnight UTC as Tally keeps dates.
func (m Month) First() time.Time { return time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, time.UTC) }

// Last is the month's last day.
func (m Month) Last() time.Time { return m.Next().First().AddDate(0, 0, -1) }

// Prev is the month before.
func (m Month) Prev() Month { return MonthOf(m.First().AddDate(0, -1, 0)) }

// Next is the month after.
func (m Month) Next() Month { return MonthOf(m.First().AddDate(0, 1, 0)) }

// CategorySpending is what the family spent in one category in a month and in the month
// before. CategoryID is nil for the transactions without a category.
type CategorySpending struct {
	CategoryID *uuid.UUID `bun:"category_id"`
	// Name is the category's, "Parent › Child" for a subcategory; "" without a category.
	Name     string          `bun:"name"`
	Color    string          `bun:"color"`
	Amount   decimal.Decimal `bun:"amount"`
	Previous decimal.Decimal `bun:"previous"`
}

// Spending is a month's spending in one currency, by category, beside the month before.
type Spending struct {
	Currency   string
	Month      Month
	Categories []CategorySpending
	// Total and PreviousTotal are the sums of the categories' amounts.
	Total, PreviousTotal decimal.Decimal
}

// MonthSpending returns what the family spent in month and in the month before, by category,
// one Spending per currency (Tally converts none) in the order of the currencies' codes; the
// categories come in the order of this month's amount, then the previous month's, largest
// first. A family that spent nothing in either month has none.
//
// Spending is the money that went out (a positive amount, by the ledger's sign) less the
// refunds: money that came back in a category classified as an expense. Money in without a
// category or in an income category is income, not a refund, and is left out, as are
// transfers between the family's own accounts (models.TransferKinds), transactions marked excluded,
// valuations and trades. A split transaction counts through its parts, each in its own category
// (and excluded or a transfer as the part is, which it is when its transaction is), as Actual
// and YNAB count one; the transaction itself is not counted again.
// So a category's amount can be negative in a month that refunded more than it spent.
// Transactions of every account the viewer can see count, closed ones included: the money was
// spent. A private account kept from the viewer counts nothing (models.Viewer).
//
// It is one query over the two months' entries of the family, through entries_family_date_idx.
func MonthSpending(ctx context.Context, db bun.IDB, v models.Viewer, month Month) ([]Spending, error) {
	var rows []struct {
		Currency string `bun:"currency"`
		CategorySpending
	}
	err := db.NewRaw(`
		SELECT e.currency, e.category_id,
			coalesce(CASE WHEN p.name IS NULL THEN c.name ELSE p.name || ' › ' || c.name END, '') AS name,
			coalesce(c.color, '') AS color,
			coalesce(sum(e.amount) FILTER (WHERE e.date >= ?2::date), 0) AS amount,
			coalesce(sum(e.amount) FILTER (WHERE e.date < ?2::date), 0) AS previous
		FROM entries e
		LEFT JOIN categories c ON c.id = e.category_id
		LEFT JOIN categories p ON p.id = c.parent_id
		WHERE e.family_id = ?0 AND e.kind = 'transaction' AND NOT e.split AND NOT e.excluded
			AND e.transaction_kind NOT IN (?4)
			AND e.date >= ?1::date AND e.date < ?3::date
			AND (e.amount > 0 OR c.classification = 'expense') AND ?5
		GROUP BY e.currency, e.category_id, c.name, p.name, c.color
		ORDER BY e.currency, amount DESC, previous DESC, name`,
		v.FamilyID, month.Prev().First().Format(time.DateOnly), month.First().Format(time.DateOnly),
		month.Next().First().Format(time.DateOnly), bun.In(models.TransferKinds), v.VisibleQuery("e.account_id")).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) { // a raw scan may report no rows so
		return nil, fmt.Errorf("spending of %s: %w", month, err)
	}
	var out []Spending
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].Currency != r.Currency {
			out = append(out, Spending{Currency: r.Currency, Month: month})
		}
		s := &out[len(out)-1]
		s.Categories = append(s.Categories, r.CategorySpending)
		s.Total = s.Total.Add(r.Amount)
		s.PreviousTotal = s.PreviousTotal.Add(r.Previous)
	}
	return out, nil
}

// SpendingPart is one currency's spending in a month, in its own money and converted.
type SpendingPart struct {
	Currency  string
	Amount    decimal.Decimal
	Converted decimal.Decimal
	Rate      fx.Conversion // the rate of the month's last day (today's for this month)
}

// InCurrency merges a month's spending in several currencies (MonthSpending) into one in
// currency, each currency's category amounts converted at the rate of its month's last day
// (today, for a month not over yet: MonthConverter), the same category's amounts added. It returns the merged
// spending first, then those of the currencies no rate converts, which are never summed as if
// one to one; and each converted currency's part of this month, when there is more than one.
func InCurrency(ctx context.Context, db bun.IDB, familyID uuid.UUID, currency string, list []Spending, today time.Time) ([]Spending, []SpendingPart, error) {
	if len(list) == 0 || len(list) == 1 && list[0].Currency == currency {
		return list, nil, nil
	}
	month := list[0].Month
	var others []string
	for _, s := range list {
		if s.Currency != currency {
			others = append(others, s.Currency)
		}
	}
	rates, err := NewMonthConverter(ctx, db, familyID, others, currency, []Month{month.Prev(), month}, today)
	if err != nil {
		return nil, nil, err
	}
	merged := Spending{Currency: currency, Month: month}
	byCategory := map[string]int{} // by category id, "" for none
	var parts []SpendingPart
	var apart []Spending
	for _, s := range list {
		part := SpendingPart{Currency: s.Currency, Amount: s.Total, Converted: s.Total,
			Rate: fx.Conversion{From: currency, To: currency, Rate: decimal.NewFromInt(1), Date: rates.Day(month)}}
		if s.Currency != currency {
			rate := rates.Rate(s.Currency, month)
			if !rate.Found {
				apart = append(apart, s)
				continue
			}
			part.Rate = rate.Conversion
			part.Converted, _ = rates.Convert(s.Total, s.Currency, month)
		}
		parts = append(parts, part)
		for _, c := range s.Categories {
			// A rate found for the month converts the month before too: the first rate
			// there is, when that month is older than any.
			c.Amount, _ = rates.Convert(c.Amount, s.Currency, month)
			c.Previous, _ = rates.Convert(c.Previous, s.Currency, month.Prev())
			key := ""
			if c.CategoryID != nil {
				key = c.CategoryID.String()
			}
			i, ok := byCategory[key]
			if !ok {
				i = len(merged.Categories)
				byCategory[key] = i
				merged.Categories = append(merged.Categories, CategorySpending{CategoryID: c.CategoryID, Name: c.Name, Color: c.Color})
			}
			m := &merged.Categories[i]
			m.Amount, m.Previous = m.Amount.Add(c.Amount), m.Previous.Add(c.Previous)
			merged.Total, merged.PreviousTotal = merged.Total.Add(c.Amount), merged.PreviousTotal.Add(c.Previous)
		}
	}
	slices.SortStableFunc(merged.Categories, func(x, y CategorySpending) int {
		if c := y.Amount.Cmp(x.Amount); c != 0 {
			return c
		}
		if c := y.Previous.Cmp(x.Previous); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	out := []Spending{merged}
	if len(parts) == 0 {
		out = nil
	}
	if len(parts) < 2 {
		parts = nil
	}
	return append(out, apart...), parts, nil
}
