package views

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"tally/models"
)

func joined(values []decimal.Decimal) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = v.String()
	}
	return strings.Join(parts, " ")
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi string
		places int32
		want   string
	}{
		{"a balance between two round numbers", "1234.56", "4321.09", 2, "1000 2000 3000 4000 5000"},
		{"a narrow range high above zero keeps its own scale", "10010", "10480", 2, "10000 10200 10400 10600"},
		{"a range across zero has zero among its ticks", "-1500", "2500", 2, "-2000 0 2000 4000"},
		{"a negative net worth", "-48210.5", "-45100", 2, "-49000 -48000 -47000 -46000 -45000"},
		{"an all-zero series is drawn from zero to one unit", "0", "0", 2, "0 0.5 1"},
		{"an all-zero series in yen keeps whole yen", "0", "0", 0, "0 1 2"},
		{"a flat positive series is drawn from zero", "1000", "1000", 2, "0 500 1000"},
		{"a flat negative series is drawn up to zero", "-250", "-250", 2, "-300 -200 -100 0"},
		{"a cent's difference stays in cents", "10.00", "10.01", 2, "10 10.01 10.02"},
		{"small amounts get cents", "0.13", "0.87", 2, "0 0.5 1"},
		{"millions", "1200000", "2650000", 2, "1000000 1500000 2000000 2500000 3000000"},
		{"a wide range", "-1234", "98765", 2, "-50000 0 50000 100000"},
		{"bounds given the wrong way round", "400", "100", 2, "100 200 300 400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ticks, s := niceTicks(decimal.RequireFromString(tc.lo), decimal.RequireFromString(tc.hi), tc.places)
			if got := joined(ticks); got != tc.want {
				t.Fatalf("ticks %s, want %s", got, tc.want)
			}
			if n := len(ticks); n < 3 || n > 5 {
				t.Errorf("%d ticks", n)
			}
			lo, hi := decimal.Min(decimal.RequireFromString(tc.lo), decimal.RequireFromString(tc.hi)), decimal.Max(decimal.RequireFromString(tc.lo), decimal.RequireFromString(tc.hi))
			if ticks[0].GreaterThan(lo) || ticks[len(ticks)-1].LessThan(hi) {
				t.Errorf("ticks %s do not cover %s to %s", joined(ticks), lo, hi)
			}
			for i := 1; i < len(ticks); i++ {
				if !ticks[i].Sub(ticks[i-1]).Equal(s.value()) {
					t.Errorf("ticks %s are not %s apart", joined(ticks), s.value())
				}
			}
		})
	}
}

func TestAxisMoney(t *testing.T) {
	de := models.LocaleOf("de-DE")
	for _, tc := range []struct {
		name     string
		lo, hi   string
		currency string
		locale   models.Locale
		want     string
	}{
		{"whole dollars", "0", "1000", "USD", models.Locales[0], "$0 $500 $1,000"},
		{"thousands", "0", "39000", "USD", models.Locales[0], "$0 $10k $20k $30k $40k"},
		{"thousands with a step under a thousand", "10010", "10480", "USD", models.Locales[0], "$10.0k $10.2k $10.4k $10.6k"},
		{"negative millions", "-2000000", "-10", "USD", models.Locales[0], "-$2.0M -$1.5M -$1.0M -$0.5M $0"},
		{"a step under one unit shows the currency's decimals", "0", "0", "USD", models.Locales[0], "$0.00 $0.50 $1.00"},
		{"the person's locale", "-0.75", "0.75", "EUR", de, "-1,00\u00a0€ -0,50\u00a0€ 0,00\u00a0€ 0,50\u00a0€ 1,00\u00a0€"},
		{"thousands in the person's locale", "0", "12000", "EUR", de, "0\u00a0€ 5k\u00a0€ 10k\u00a0€ 15k\u00a0€"},
		{"yen", "0", "0", "JPY", models.Locales[0], "¥0 ¥1 ¥2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ticks, s := niceTicks(decimal.RequireFromString(tc.lo), decimal.RequireFromString(tc.hi), currencyOf(tc.currency).decimals)
			var got []string
			for _, v := range ticks {
				got = append(got, axisMoney(v, ticks, s, tc.currency, tc.locale))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Fatalf("labels %q, want %q", g, tc.want)
			}
		})
	}
}

func TestScale(t *testing.T) {
	s := newScale(decimal.NewFromInt(-100), decimal.NewFromInt(300))
	for _, tc := range []struct{ v, want float64 }{{-100, plotHeight}, {300, 0}, {100, plotHeight / 2}, {0, plotHeight * 0.75}, {-500, plotHeight}, {900, 0}} {
		if got := s.y(decimal.NewFromFloat(tc.v)); got != tc.want {
			t.Errorf("y(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestLinePaths(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ys         []float64
		base       float64
		line, area string
	}{
		{"points spread across the plot", []float64{160, 80, 0}, 160, "M0,160 L500,80 L1000,0", "M0,160 L500,80 L1000,0 L1000,160 L0,160 Z"},
		{"a single day is a level line", []float64{42.25}, 160, "M0,42.3 L1000,42.3", "M0,42.3 L1000,42.3 L1000,160 L0,160 Z"},
		{"a negative series closes on zero at the top", []float64{100, 120}, 0, "M0,100 L1000,120", "M0,100 L1000,120 L1000,0 L0,0 Z"},
		{"nothing", nil, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := linePath(tc.ys); got != tc.line {
				t.Errorf("line %q, want %q", got, tc.line)
			}
			if got := areaPath(tc.ys, tc.base); got != tc.area {
				t.Errorf("area %q, want %q", got, tc.area)
			}
		})
	}
}

func TestLabelIndexes(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "[]"}, {1, "[0]"}, {2, "[0 1]"}, {4, "[0 1 2 3]"}, {30, "[0 10 19 29]"}, {90, "[0 30 59 89]"}} {
		if got := fmt.Sprint(labelIndexes(tc.n, 4)); got != tc.want {
			t.Errorf("%d points: %s, want %s", tc.n, got, tc.want)
		}
	}
}

// series is n days of balances from start, each the day's index times step.
func series(start time.Time, n int, step int64) []models.DailyBalance {
	out := make([]models.DailyBalance, n)
	for i := range out {
		out[i] = models.DailyBalance{Date: start.AddDate(0, 0, i), Balance: decimal.NewFromInt(int64(i) * step)}
	}
	return out
}

func TestMonthEnds(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, thinned := monthEnds(series(start, 400, 1), 400); len(got) != 400 || thinned {
		t.Fatalf("400 days were thinned to %d", len(got))
	}
	got, thinned := monthEnds(series(start, 500, 1), 400) // 2024-01-01 to 2025-05-14
	var dates []string
	for _, p := range got {
		dates = append(dates, p.Date.Format("01-02"))
	}
	want := "01-31 02-29 03-31 04-30 05-31 06-30 07-31 08-31 09-30 10-31 11-30 12-31 01-31 02-28 03-31 04-30 05-14"
	if !thinned || strings.Join(dates, " ") != want {
		t.Fatalf("month ends %s", strings.Join(dates, " "))
	}
	if !got[1].Balance.Equal(decimal.NewFromInt(59)) {
		t.Errorf("the end of February keeps its own balance, got %s", got[1].Balance)
	}
}

func TestBarChart(t *testing.T) {
	c := newBarChart([]BarRow{
		{Label: "Groceries", Amount: decimal.NewFromInt(300), Previous: decimal.NewFromInt(400)},
		{Label: "A category with a name far too long for a phone", Amount: decimal.NewFromInt(100), Previous: decimal.Zero},
		{Label: "Refunded", Amount: decimal.NewFromInt(-20), Previous: decimal.NewFromInt(50)},
	})
	var got []string
	for _, r := range c.Rows {
		got = append(got, fmt.Sprintf("%s %s/%s", r.Short, r.Width, r.PrevWidth))
	}
	want := "Groceries 75%/100%, A category with a name far… 25%/0%, Refunded 0%/12.5%"
	if g := strings.Join(got, ", "); g != want || c.Height != 3*barRowHeight {
		t.Fatalf("rows %s (height %d)\nwant %s", g, c.Height, want)
	}
	if z := newBarChart([]BarRow{{Label: "Nothing", Amount: decimal.Zero}}); z.Rows[0].Width != "0%" {
		t.Errorf("an all-zero chart has a bar of %s", z.Rows[0].Width)
	}
}

// TestLineChartRenders checks the drawn chart: an image with a title and a summary, its ticks
// as money, its dates, a line, and a data table of every point.
func TestLineChartRenders(t *testing.T) {
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	points := series(start, 30, -100) // from $0 down to -$2,900: a negative net worth
	h := BalanceHistory{ID: "net-worth-history", Title: "Net worth", Path: "/", Range: ChartRangeOf("30d", "30d"),
		Series: []models.BalanceSeries{{Currency: "USD", Points: points}}}
	var buf bytes.Buffer
	if err := BalanceHistoryCard(h).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	svg := doc.Find(`[data-testid="chart-svg"]`)
	label, _ := svg.Attr("aria-label")
	if role, _ := svg.Attr("role"); role != "img" || svg.Find("title").First().Text() != "Net worth (USD)" {
		t.Errorf("the chart is a %q titled %q", role, svg.Find("title").Text())
	}
	wantLabel := "Net worth (USD) daily from 2026-03-01 to 2026-03-30: $0.00 at the start and -$2,900.00 at the end; lowest -$2,900.00 on 2026-03-30, highest $0.00 on 2026-03-01."
	if label != wantLabel {
		t.Errorf("aria-label %q\nwant %q", label, wantLabel)
	}
	var ticks, dates []string
	svg.Find(`[data-testid="chart-tick"]`).Each(func(_ int, s *goquery.Selection) { ticks = append(ticks, s.Text()) })
	svg.Find(`[data-testid="chart-date"]`).Each(func(_ int, s *goquery.Selection) { dates = append(dates, s.Text()) })
	if g := strings.Join(ticks, " "); g != "-$3,000 -$2,000 -$1,000 $0" {
		t.Errorf("ticks %s", g)
	}
	if g := strings.Join(dates, " "); g != "2026-03-01 2026-03-08 2026-03-16 2026-03-23 2026-03-30" {
		t.Errorf("dates %s", g)
	}
	if d, _ := svg.Find(`[data-testid="chart-line"]`).Attr("d"); !strings.HasPrefix(d, "M0,0 L34.5,5.3") {
		t.Errorf("line %q", d)
	}
	// A phone shows the first, middle and last dates; the others wait for a wider screen.
	narrow := svg.Find(`[data-testid="chart-date"]`).Map(func(_ int, s *goquery.Selection) string { return fmt.Sprint(!s.HasClass("max-sm:hidden")) })
	if g := strings.Join(narrow, " "); g != "true false true false true" {
		t.Errorf("dates shown on a phone: %s", g)
	}
	rows := doc.Find(`[data-testid="chart-data-row"]`)
	last := rows.Last().Find("td").Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
	if rows.Length() != 30 || strings.Join(last, " ") != "2026-03-30 -$2,900.00" {
		t.Errorf("%d rows of data, the last %q", rows.Length(), last)
	}
	if cur, _ := doc.Find(`[data-testid="range-30d"]`).Attr("aria-current"); cur != "true" {
		t.Errorf("the chosen range is not marked")
	}
	if href, _ := doc.Find(`[data-testid="range-all"]`).Attr("href"); href != "/?range=all" {
		t.Errorf("the link to all of it goes to %q", href)
	}
}
