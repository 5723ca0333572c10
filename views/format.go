package views

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/internal/i18n"
	"tally/models"
)

type currencyInfo struct {
	symbol   string
	decimals int32
}

// currencies lists the symbols and minor units of common currencies; others show their code.
var currencies = map[string]currencyInfo{
	"USD": {"$", 2}, "EUR": {"€", 2}, "GBP": {"£", 2}, "JPY": {"¥", 0}, "CAD": {"CA$", 2},
	"AUD": {"A$", 2}, "NZD": {"NZ$", 2}, "CHF": {"CHF ", 2}, "INR": {"₹", 2}, "CNY": {"CN¥", 2},
	"KRW": {"₩", 0}, "BRL": {"R$", 2}, "MXN": {"MX$", 2}, "SEK": {"SEK ", 2}, "NOK": {"NOK ", 2},
	"DKK": {"DKK ", 2}, "PLN": {"zł ", 2}, "HKD": {"HK$", 2}, "SGD": {"S$", 2}, "ZAR": {"R ", 2},
	"BHD": {"BHD ", 3}, "KWD": {"KWD ", 3}, "CZK": {"Kč ", 2}, "HUF": {"Ft ", 2}, "ISK": {"kr ", 0},
}

// FormatMoney formats amount in currency with its symbol, thousands separators and exactly
// the currency's number of decimals: FormatMoney(-1234.5, "USD") is "-$1,234.50".
func FormatMoney(amount decimal.Decimal, currency string) string {
	return formatMoney(amount, currency, models.Locales[0])
}

// UserMoney formats amount in currency as the signed-in person reads numbers (their locale,
// else their family's): "-1.234,50 €" in de-DE.
func UserMoney(ctx context.Context, amount decimal.Decimal, currency string) string {
	return formatMoney(amount, currency, userLocale(ctx))
}

// userLocale is how the signed-in person reads numbers: their locale, else their family's.
func userLocale(ctx context.Context) models.Locale {
	if u := StateOf(ctx).User; u != nil {
		return u.NumberLocale()
	}
	return models.Locales[0]
}

func formatMoney(amount decimal.Decimal, currency string, l models.Locale) string {
	info := currencyOf(currency)
	return formatFigure(amount, info.symbol, info.decimals, "", l)
}

// currencyOf is the symbol and minor units of currency: its code and two decimals when the
// table does not list it.
func currencyOf(currency string) currencyInfo {
	if info, ok := currencies[currency]; ok {
		return info
	}
	return currencyInfo{symbol: currency + " ", decimals: 2}
}

// formatFigure writes amount with places decimals, then unit (such as "k"), with symbol
// where l puts a currency's symbol and l's separators.
func formatFigure(amount decimal.Decimal, symbol string, places int32, unit string, l models.Locale) string {
	s := amount.Abs().StringFixed(places)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(l.Group)
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac != "" {
		out += l.Decimal + frac
	}
	out += unit
	if trimmed := strings.TrimSpace(symbol); l.SymbolAfter {
		out += "\u00a0" + trimmed
	} else {
		out = symbol + out
	}
	if amount.Round(places).IsNegative() {
		return "-" + out
	}
	return out
}

// rateSignificant is how many significant digits a computed rate shows: enough for any
// amount a person converts by eye, where the twelve decimals stored would only be noise.
const rateSignificant = 6

// FormatRate writes an exchange rate with rateSignificant significant digits and no trailing
// zeros: 1.284829721362 is "1.28483", 0.0000570633 stays, 17524.69 is "17524.7".
func FormatRate(r decimal.Decimal) string {
	whole := r.NumDigits() + int(r.Exponent()) // digits before the point; 0 or less below 1
	return r.Round(int32(max(0, rateSignificant-whole))).String()
}

// InputAmount writes amount in currency for a field the signed-in person edits, in their
// number style without thousands separators: "-3498,10" in de-DE, "-3498.10" in en-US.
func InputAmount(ctx context.Context, amount decimal.Decimal, currency string) string {
	return userLocale(ctx).EditNumber(amount, int32(models.CurrencyDecimals(currency)))
}

// amountHelp is the help under an amount field: no sign, and an example in the person's style.
func amountHelp(ctx context.Context, currency string) string {
	return i18n.T(ctx, "field.amount_help", "Example", InputAmount(ctx, decimal.NewFromFloat(12.5), currency))
}

// UserRate writes an exchange rate as FormatRate does, with the signed-in person's decimal
// mark: "0,8584" in de-DE.
func UserRate(ctx context.Context, r decimal.Decimal) string {
	return strings.Replace(FormatRate(r), ".", userLocale(ctx).Decimal, 1)
}

// UserDate formats a date as the signed-in person writes dates (their date format, else
// their family's); the default is 2026-01-31.
func UserDate(ctx context.Context, t time.Time) string {
	if u := StateOf(ctx).User; u != nil {
		if layout, ok := dateLayouts[u.DatePattern()]; ok {
			return t.Format(layout)
		}
	}
	return FormatDate(t)
}

// userISODate formats a date held as text in ISO form (2026-10-31, as a statement file's
// summary keeps it) as UserDate does; text that is no such date stays as it is.
func userISODate(ctx context.Context, iso string) string {
	d, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		return iso
	}
	return UserDate(ctx, d)
}

// UserDay formats the day of moment t for the signed-in person: in their family's time zone,
// with their date format.
func UserDay(ctx context.Context, t time.Time) string {
	return UserDate(ctx, t.In(familyLocation(ctx)))
}

// familyLocation is the signed-in person's family's time zone, UTC without one.
func familyLocation(ctx context.Context) *time.Location {
	if u := StateOf(ctx).User; u != nil && u.Family != nil {
		return u.Family.Location()
	}
	return time.UTC
}

// dateLayouts are models.DateFormats as Go layouts.
var dateLayouts = map[string]string{"%Y-%m-%d": "2006-01-02", "%d.%m.%Y": "02.01.2006", "%d/%m/%Y": "02/01/2006", "%m/%d/%Y": "01/02/2006"}

// FormatDate formats a date as 2026-01-05, the way tables show dates.
func FormatDate(t time.Time) string { return t.Format("2006-01-02") }

// UserTime formats a moment for the signed-in person, or "Never" for nil: in their family's
// time zone, with their date format and the zone's abbreviation ("31.01.2026 14:05 CET"). With
// no one signed in it is UTC.
func UserTime(ctx context.Context, t *time.Time) string {
	if t == nil {
		return "Never"
	}
	at := t.In(familyLocation(ctx))
	return UserDate(ctx, at) + " " + at.Format("15:04 MST")
}

// Plural returns "1 account" or "3 accounts".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func yesNo(ctx context.Context, b bool) string {
	if b {
		return i18n.T(ctx, "common_words.yes")
	}
	return i18n.T(ctx, "common_words.no")
}

func groupsText(ctx context.Context, groups []string) string {
	if len(groups) == 0 {
		return i18n.T(ctx, "common_words.none")
	}
	return strings.Join(groups, ", ")
}

func claimsJSON(claims map[string]any) string {
	b, err := json.MarshalIndent(claims, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}
