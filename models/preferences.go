package models

import (
	"context"
	"net/mail"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"golang.org/x/text/language"

	"tally/internal/apperr"
	"tally/internal/i18n"
)

// Locale is how a person writes numbers: its thousands and decimal separators, and whether a
// currency symbol follows the amount ("1.234,56 €"). Currency and DateFormat (one of
// DateFormats) are what its people usually keep their money in and write dates as: what a new
// family is offered first.
type Locale struct {
	Code, Label          string
	Group, Decimal       string
	SymbolAfter          bool
	Currency, DateFormat string
}

// Locales are the number styles people choose from; the first is the default.
var Locales = []Locale{
	{Code: "en-US", Label: "English (United States): $1,234.56", Group: ",", Decimal: ".", Currency: "USD", DateFormat: "%Y-%m-%d"},
	{Code: "en-GB", Label: "English (United Kingdom): £1,234.56", Group: ",", Decimal: ".", Currency: "GBP", DateFormat: "%d/%m/%Y"},
	{Code: "de-DE", Label: "Deutsch (Deutschland): 1.234,56 €", Group: ".", Decimal: ",", SymbolAfter: true, Currency: "EUR", DateFormat: "%d.%m.%Y"},
	{Code: "de-CH", Label: "Deutsch (Schweiz): CHF 1'234.56", Group: "'", Decimal: ".", Currency: "CHF", DateFormat: "%d.%m.%Y"},
	{Code: "fr-FR", Label: "Français (France): 1 234,56 €", Group: "\u202f", Decimal: ",", SymbolAfter: true, Currency: "EUR", DateFormat: "%d/%m/%Y"},
	{Code: "nl-NL", Label: "Nederlands: € 1.234,56", Group: ".", Decimal: ",", Currency: "EUR", DateFormat: "%d/%m/%Y"},
	{Code: "es-ES", Label: "Español (España): 1.234,56 €", Group: ".", Decimal: ",", SymbolAfter: true, Currency: "EUR", DateFormat: "%d/%m/%Y"},
	{Code: "it-IT", Label: "Italiano: 1.234,56 €", Group: ".", Decimal: ",", SymbolAfter: true, Currency: "EUR", DateFormat: "%d/%m/%Y"},
}

// EditNumber writes d with places decimals for a field a person edits: with the locale's
// decimal mark and no thousands separators ("-3498,10" in de-DE), as ParseAmount and
// PlainNumber read it back.
func (l Locale) EditNumber(d decimal.Decimal, places int32) string {
	return strings.Replace(d.StringFixed(places), ".", l.Decimal, 1)
}

// PlainNumber is a number typed in the locale's style ("0,8584", "1.234,5" in de-DE) in the
// plain form the API takes ("0.8584", "1234.5"); the plain form itself stays as it is, and
// what is no number is left for the reader to refuse.
func (l Locale) PlainNumber(s string) string {
	s = strings.TrimSpace(s)
	if l.Decimal == "." || !strings.Contains(s, l.Decimal) {
		return s
	}
	for _, group := range []string{l.Group, " ", "\u00a0", "\u202f"} {
		s = strings.ReplaceAll(s, group, "")
	}
	return strings.Replace(s, l.Decimal, ".", 1)
}

// LocaleOf is the locale with code, or the default.
func LocaleOf(code string) Locale {
	for _, l := range Locales {
		if l.Code == code {
			return l
		}
	}
	return Locales[0]
}

// DateFormats are the ways of writing dates people choose from, as strftime patterns with an
// example; the first is the default.
var DateFormats = []struct{ Pattern, Label string }{
	{"%Y-%m-%d", "2026-01-31"}, {"%d.%m.%Y", "31.01.2026"}, {"%d/%m/%Y", "31/01/2026"}, {"%m/%d/%Y", "01/31/2026"},
}

// LocaleFor is the locale that best fits a browser's Accept-Language header ("de-AT,de;q=0.9"
// is de-DE), or the default when none does.
func LocaleFor(acceptLanguage string) Locale {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return Locales[0]
	}
	if _, i, confidence := localeMatcher.Match(tags...); confidence != language.No {
		return Locales[i]
	}
	return Locales[0]
}

var localeMatcher = func() language.Matcher {
	tags := make([]language.Tag, len(Locales))
	for i, l := range Locales {
		tags[i] = language.MustParse(l.Code)
	}
	return language.NewMatcher(tags)
}()

func validLocale(code string) bool { return LocaleOf(code).Code == code }

func validDateFormat(pattern string) bool {
	return slices.ContainsFunc(DateFormats, func(f struct{ Pattern, Label string }) bool { return f.Pattern == pattern })
}

// NumberLocale is how the user reads numbers: their own choice, else their family's.
func (u *User) NumberLocale() Locale {
	if u.Locale == "" && u.Family != nil {
		return LocaleOf(u.Family.Locale)
	}
	return LocaleOf(u.Locale)
}

// Lang is the language the user reads Tally in: their own choice, else their family's.
func (u *User) Lang() string {
	switch {
	case u.Language != "":
		return u.Language
	case u.Family != nil && u.Family.Language != "":
		return u.Family.Language
	}
	return i18n.Default
}

// SetFamilyLanguage makes code, one of i18n.Languages(), the language of family's pages and
// mails.
func SetFamilyLanguage(ctx context.Context, db bun.IDB, family *Family, code string) error {
	if !i18n.Supported(code) {
		var v apperr.Validation
		v.Add("language", "Choose one of the languages offered")
		return v.Err()
	}
	if _, err := db.NewUpdate().Model(family).Set("language = ?", code).WherePK().Exec(ctx); err != nil {
		return err
	}
	family.Language = code
	return nil
}

// DatePattern is how the user reads dates, one of DateFormats: their own choice, else their
// family's.
func (u *User) DatePattern() string {
	switch {
	case u.DateFormat != "":
		return u.DateFormat
	case u.Family != nil && u.Family.DateFormat != "":
		return u.Family.DateFormat
	}
	return DateFormats[0].Pattern
}

// ProfileInput is what a person changes on their profile page. An empty Locale, DateFormat
// or Language follows the family's.
type ProfileInput struct {
	FirstName, LastName, Email, Locale, DateFormat, Language string
}

// UpdateProfile changes the user's name, email, locale, date format and language after
// checking every field ("" for the family's locale, date format or language); a taken email is Invalid on the email
// field.
func UpdateProfile(ctx context.Context, db bun.IDB, userID uuid.UUID, in ProfileInput) error {
	email := NormalizeEmail(in.Email)
	var v apperr.Validation
	if email == "" {
		v.AddText("email", "validation.email_blank")
	} else if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		v.AddText("email", "validation.email_invalid")
	}
	checkPerson(&v, strings.TrimSpace(in.FirstName), strings.TrimSpace(in.LastName), email)
	if in.Locale != "" && !validLocale(in.Locale) {
		v.Add("locale", "Choose one of the number styles offered")
	}
	if in.DateFormat != "" && !validDateFormat(in.DateFormat) {
		v.Add("date_format", "Choose one of the date formats offered")
	}
	if in.Language != "" && !i18n.Supported(in.Language) {
		v.Add("language", "Choose one of the languages offered")
	}
	if err := v.Err(); err != nil {
		return err
	}
	_, err := db.NewUpdate().Model((*User)(nil)).
		Set("first_name = ?", strings.TrimSpace(in.FirstName)).Set("last_name = ?", strings.TrimSpace(in.LastName)).
		Set("email = ?", email).Set("locale = ?", in.Locale).Set("date_format = ?", in.DateFormat).
		Set("language = NULLIF(?, '')", in.Language).Set("updated_at = now()").Where("id = ?", userID).Exec(ctx)
	if c, ok := apperr.UniqueViolation(err); ok && c == "users_email_key" {
		v.AddText("email", "validation.email_taken")
		return v.Err()
	}
	return err
}
