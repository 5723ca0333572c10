package views

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/internal/i18n"
	"tally/models"
)

// Charts are SVG drawn on the server, as wide as their container and of a fixed height in
// CSS pixels, so that their text keeps its size on a phone and on a desktop alike. A line
// chart's plot is an inner SVG whose viewBox stretches across (preserveAspectRatio="none",
// its strokes non-scaling); its grid and labels sit in the outer SVG, placed in pixels down
// and in percentages across. Scales and ticks are computed here, in Go; the templates only
// write them out.
const (
	plotWidth       = 1000 // the plot's own units across, stretched to the chart's width
	plotTop         = 20   // room above the plot for the top tick's label
	plotHeight      = 160
	lineChartHeight = 210 // the plot, then the dates under it
	dateLabelY      = 200
	dateLabels      = 5                // at most, the first and the last day among them; 3 on a phone
	maxPoints       = models.ChartDays // a longer series is drawn (and tabled) at its month ends
	barRowHeight    = 44               // a category's name, its bar, the previous month's thin bar
	barLabelLength  = 28               // characters of a category's name before it is cut short
)

// ChartRange is one of the spans of days a balance chart offers.
type ChartRange struct {
	Key  string // as ?range= names it
	Msg  string // the message id of its name
	Days int    // 0 for all of the history
}

// ChartRanges are the spans a balance chart offers, shortest first.
var ChartRanges = []ChartRange{
	{Key: "30d", Msg: "chart.range_30d", Days: 30},
	{Key: "90d", Msg: "chart.range_90d", Days: 90},
	{Key: "1y", Msg: "chart.range_1y", Days: 365},
	{Key: "all", Msg: "chart.range_all"},
}

// ChartRangeOf returns the range that key names, or the one def names when key names none.
func ChartRangeOf(key, def string) ChartRange {
	for _, r := range ChartRanges {
		if r.Key == key {
			return r
		}
	}
	for _, r := range ChartRanges {
		if r.Key == def {
			return r
		}
	}
	return ChartRanges[0]
}

// Start is the first day of the range ending on end; for all of the history, it is first.
func (r ChartRange) Start(end, first time.Time) time.Time {
	if r.Days == 0 {
		return first
	}
	return end.AddDate(0, 0, 1-r.Days)
}

// BalanceHistory is a card of balance charts, one per currency, under a range switch.
type BalanceHistory struct {
	ID    string // the card's id and test id, which the range links swap with htmx
	Title string // "Net worth"
	Path  string // the page whose ?range= the links set
	Range ChartRange
	// Empty is the sentence shown when there is no series.
	Empty  string
	Series []models.BalanceSeries
	// Marks are days the chart points out on its line: a balance the bank stated that differs
	// from the ledger's.
	Marks []ChartMark
}

// ChartMark is a day a line chart points out, with what it says there.
type ChartMark struct {
	Date  time.Time
	Label string
}

// markDot is a ChartMark placed on the drawn line.
type markDot struct {
	X, Y, Label string
}

// RangeURL is the page showing the range with key.
func (h BalanceHistory) RangeURL(key string) string { return h.Path + "?range=" + key }

// lineChart is a series as a line chart draws it.
type lineChart struct {
	Name     string // what the values are, "Net worth"
	Title    string // the chart's title, "Net worth (USD)"
	Currency string
	Points   []models.DailyBalance // the points drawn, as the data table lists them
	Monthly  bool                  // the points are month ends of a longer daily series
	Ticks    []tick                // the value axis, lowest first
	Line     string                // the plot's path of the line
	Area     string                // the plot's path of the area between the line and zero
	Dates    []dateLabel
	Marks    []markDot
}

// tick is one value of an axis and the height it is drawn at, in pixels from the chart's top.
type tick struct {
	Value  decimal.Decimal
	Y      string // the grid line's
	LabelY string // the label's baseline, just above its line
	Label  string
	Zero   bool
}

// dateLabel is a date under a line chart: where across it sits, how its text is anchored, and
// whether a phone's narrow screen has room for it.
type dateLabel struct {
	X, Anchor, Text string
	Narrow          bool
}

// newLineChart lays out a balance series: its points (month ends beyond maxPoints), its ticks
// and paths, and its dates written as the person reads them.
func newLineChart(ctx context.Context, title string, s models.BalanceSeries, marks []ChartMark) lineChart {
	points, monthly := monthEnds(s.Points, maxPoints)
	monthly = monthly || s.Monthly
	c := lineChart{Name: title, Title: title + " (" + s.Currency + ")", Currency: s.Currency, Points: points, Monthly: monthly}
	if len(points) == 0 {
		return c
	}
	lo, hi := points[0].Balance, points[0].Balance
	for _, p := range points {
		lo, hi = decimal.Min(lo, p.Balance), decimal.Max(hi, p.Balance)
	}
	values, step := niceTicks(lo, hi, currencyOf(s.Currency).decimals)
	sc := newScale(values[0], values[len(values)-1])
	l := userLocale(ctx)
	for _, v := range values {
		y := plotTop + sc.y(v)
		c.Ticks = append(c.Ticks, tick{Value: v, Y: coord(y), LabelY: coord(y - 4), Label: axisMoney(v, values, step, s.Currency, l), Zero: v.IsZero()})
	}
	ys := make([]float64, len(points))
	for i, p := range points {
		ys[i] = sc.y(p.Balance)
	}
	c.Line = linePath(ys)
	c.Area = areaPath(ys, sc.y(decimal.Zero))
	n := len(points)
	for _, m := range marks {
		// The first point drawn on or after the day: the day itself, or its month's end.
		i, _ := slices.BinarySearchFunc(points, m.Date, func(p models.DailyBalance, d time.Time) int { return p.Date.Compare(d) })
		if i == n || m.Date.Before(points[0].Date) {
			continue
		}
		x := "50%"
		if n > 1 {
			x = coord(float64(i)*100/float64(n-1)) + "%"
		}
		c.Marks = append(c.Marks, markDot{X: x, Y: coord(plotTop + ys[i]), Label: m.Label})
	}
	at := labelIndexes(n, dateLabels)
	for j, i := range at {
		d := dateLabel{X: "50%", Anchor: "middle", Text: UserDate(ctx, points[i].Date), Narrow: j%2 == 0 || len(at) < dateLabels}
		if n > 1 {
			d.X = coord(float64(i)*100/float64(n-1)) + "%"
			switch j {
			case 0:
				d.Anchor = "start"
			case len(at) - 1:
				d.Anchor = "end"
			}
		}
		c.Dates = append(c.Dates, d)
	}
	return c
}

// Summary says what the chart shows in a sentence, for its accessible name: the span, the
// first and last balances, the lowest and the highest.
func (c lineChart) Summary(ctx context.Context) string {
	if len(c.Points) == 0 {
		return i18n.T(ctx, "chart.no_data", "Title", c.Title)
	}
	first, last := c.Points[0], c.Points[len(c.Points)-1]
	low, high := first, first
	for _, p := range c.Points {
		if p.Balance.LessThan(low.Balance) {
			low = p
		}
		if p.Balance.GreaterThan(high.Balance) {
			high = p
		}
	}
	money := func(p models.DailyBalance) string { return UserMoney(ctx, p.Balance, c.Currency) }
	date := func(p models.DailyBalance) string { return UserDate(ctx, p.Date) }
	if len(c.Points) == 1 {
		return i18n.T(ctx, "chart.one_day", "Title", c.Title, "Date", date(first), "Balance", money(first))
	}
	id := "chart.summary_daily"
	if c.Monthly {
		id = "chart.summary_monthly"
	}
	return i18n.T(ctx, id, "Title", c.Title, "From", date(first), "To", date(last), "First", money(first), "Last", money(last),
		"Low", money(low), "LowDate", date(low), "High", money(high), "HighDate", date(high))
}

// scale maps values from bottom to top onto the plot's height, top at 0.
type scale struct{ bottom, span float64 }

func newScale(bottom, top decimal.Decimal) scale {
	return scale{bottom: bottom.InexactFloat64(), span: top.Sub(bottom).InexactFloat64()}
}

// y is the height of v in pixels from the plot's top, clamped to the plot.
func (s scale) y(v decimal.Decimal) float64 {
	if s.span <= 0 {
		return plotHeight
	}
	f := (v.InexactFloat64() - s.bottom) / s.span
	return plotHeight * (1 - math.Max(0, math.Min(1, f)))
}

// step is the distance between ticks: 1, 2 or 5 times ten to the power exp.
type step struct {
	mant int64
	exp  int32
}

func (s step) value() decimal.Decimal { return decimal.New(s.mant, s.exp) }

// niceTicks returns three to five evenly spaced round values, from at or below lo to at or
// above hi, and their step: 1, 2 or 5 times a power of ten, never finer than places decimals
// (the currency's minor unit), so that no tick needs more decimals than the currency has. The
// step is the smallest of those that needs at most five ticks, which always needs three
// unless the range is within a few minor units. A flat series is drawn from zero, or from
// zero up to one unit when it is zero.
func niceTicks(lo, hi decimal.Decimal, places int32) ([]decimal.Decimal, step) {
	if lo.GreaterThan(hi) {
		lo, hi = hi, lo
	}
	if lo.Equal(hi) {
		switch {
		case lo.IsPositive():
			lo = decimal.Zero
		case lo.IsNegative():
			hi = decimal.Zero
		default:
			hi = decimal.NewFromInt(1)
		}
	}
	s := step{mant: 1, exp: -places}
	var k0, k1 int64
	for {
		sv := s.value()
		k0, k1 = lo.Div(sv).Floor().IntPart(), hi.Div(sv).Ceil().IntPart()
		if k1-k0+1 <= 5 {
			break
		}
		switch s.mant {
		case 1:
			s.mant = 2
		case 2:
			s.mant = 5
		default:
			s = step{mant: 1, exp: s.exp + 1}
		}
	}
	// Only a range within a few minor units needs more ticks than it spans: grow it away from
	// zero, so that a range starting or ending at zero keeps it at its edge.
	for k1-k0+1 < 3 {
		if k1 <= 0 && k0 < 0 {
			k0--
		} else {
			k1++
		}
	}
	ticks := make([]decimal.Decimal, 0, k1-k0+1)
	for k := k0; k <= k1; k++ {
		ticks = append(ticks, decimal.New(k*s.mant, s.exp))
	}
	return ticks, s
}

// axisMoney writes a tick as briefly as its axis allows: in millions or thousands when the
// axis reaches them ("$1.5M", "$40k"), with the decimals its step needs, or with the
// currency's decimals when the step is under one unit ("$0.50").
func axisMoney(v decimal.Decimal, ticks []decimal.Decimal, s step, currency string, l models.Locale) string {
	reach := decimal.Max(ticks[0].Abs(), ticks[len(ticks)-1].Abs())
	shift, unit := int32(0), ""
	switch {
	case reach.GreaterThanOrEqual(decimal.New(1, 6)):
		shift, unit = 6, "M"
	case reach.GreaterThanOrEqual(decimal.New(1, 4)):
		shift, unit = 3, "k"
	}
	places := max(0, shift-s.exp)
	switch {
	case v.IsZero() && unit != "":
		places, unit = 0, "" // "$0" among "$20k"s
	case places > 0 && unit == "":
		places = currencyOf(currency).decimals
	}
	return formatFigure(v.Shift(-shift), currencyOf(currency).symbol, places, unit, l)
}

// linePath is the plot's path through ys, spread evenly across its width. A single point is a
// level line across the whole plot.
func linePath(ys []float64) string {
	if len(ys) == 0 {
		return ""
	}
	if len(ys) == 1 {
		ys = []float64{ys[0], ys[0]}
	}
	var b strings.Builder
	for i, y := range ys {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString(" L")
		}
		b.WriteString(coord(float64(i) * plotWidth / float64(len(ys)-1)))
		b.WriteString(",")
		b.WriteString(coord(y))
	}
	return b.String()
}

// areaPath closes the line through ys along base, the height of zero within the plot.
func areaPath(ys []float64, base float64) string {
	if len(ys) == 0 {
		return ""
	}
	return fmt.Sprintf("%s L%d,%s L0,%s Z", linePath(ys), plotWidth, coord(base), coord(base))
}

// coord writes a coordinate with one decimal at most.
func coord(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// labelIndexes picks up to k of n points, evenly spaced, the first and the last among them.
func labelIndexes(n, k int) []int {
	switch {
	case n <= 0:
		return nil
	case n <= k:
		k = n
	}
	if k == 1 {
		return []int{0}
	}
	out := make([]int, k)
	for j := range k {
		out[j] = int(math.Round(float64(j) * float64(n-1) / float64(k-1)))
	}
	return out
}

// monthEnds keeps a daily series of more than limit points at the last day of each month (and
// its own last day), and reports whether it did.
func monthEnds(points []models.DailyBalance, limit int) ([]models.DailyBalance, bool) {
	if len(points) <= limit {
		return points, false
	}
	var out []models.DailyBalance
	for i, p := range points {
		if i == len(points)-1 || points[i+1].Date.Month() != p.Date.Month() {
			out = append(out, p)
		}
	}
	return out, true
}

// BarRow is one category of a bar chart: this month's amount beside the previous month's.
type BarRow struct {
	Label            string
	Amount, Previous decimal.Decimal
}

// barChart is a bar chart's rows laid out: each row's bars as percentages of the widest.
type barChart struct {
	Height int
	Rows   []barRowLayout
}

type barRowLayout struct {
	BarRow
	Short            string // the label, cut short to fit beside the amount on a phone
	Width, PrevWidth string
	LabelY, BarY     int
	PrevY            int
}

// newBarChart lays out rows, the longest bar as wide as the chart. An amount at or below zero
// (a month that refunded more than it spent) has no bar.
func newBarChart(rows []BarRow) barChart {
	widest := decimal.Zero
	for _, r := range rows {
		widest = decimal.Max(widest, r.Amount, r.Previous)
	}
	width := func(v decimal.Decimal) string {
		if !widest.IsPositive() || !v.IsPositive() {
			return "0%"
		}
		return coord(v.Div(widest).InexactFloat64()*100) + "%"
	}
	c := barChart{Height: len(rows) * barRowHeight}
	for i, r := range rows {
		top := i * barRowHeight
		c.Rows = append(c.Rows, barRowLayout{BarRow: r, Short: shorten(r.Label, barLabelLength),
			Width: width(r.Amount), PrevWidth: width(r.Previous), LabelY: top + 14, BarY: top + 20, PrevY: top + 35})
	}
	return c
}

// shorten cuts s to n characters, the last an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
