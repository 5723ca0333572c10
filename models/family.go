package models

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/i18n"
)

// Family is a household: the unit that owns accounts and data, and the tenant of every query.
type Family struct {
	bun.BaseModel `bun:"table:families,alias:f"`

	ID         uuid.UUID `bun:"id,pk,type:uuid"`
	Name       string    `bun:"name"`
	Currency   string    `bun:"currency"`
	Locale     string    `bun:"locale"`
	DateFormat string    `bun:"date_format"`
	Timezone   string    `bun:"timezone"`
	// WeekStart is the week's first day, "monday" or "sunday".
	WeekStart string    `bun:"week_start"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()"`

	// Language is the language of the family's pages and mails, one of i18n.Languages(): its
	// members' unless they chose their own.
	Language string `bun:"language"`
}

// Location is the family's time zone, or UTC when it names none Go knows.
func (f *Family) Location() *time.Location {
	loc, err := time.LoadLocation(f.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Today is the date in the family's time zone, at midnight UTC as Tally keeps dates.
func (f *Family) Today() time.Time {
	y, m, d := time.Now().In(f.Location()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// CreateFamily inserts a family named name with locale, one of Locales (the first when empty),
// and currency (the locale's usual when empty); it writes dates as the locale's people do
// (SetDateFormat changes that) and speaks the default language (SetFamilyLanguage changes
// that). Its time zone is zone, the one a person's browser said, when the database knows
// it, else the usual one of the currency (UTC when none is usual).
func CreateFamily(ctx context.Context, db bun.IDB, name, currency, locale, zone string) (*Family, error) {
	name = strings.TrimSpace(name)
	if locale == "" {
		locale = Locales[0].Code
	}
	if currency == "" {
		currency = LocaleOf(locale).Currency
	}
	var v apperr.Validation
	if name == "" {
		v.Add("family_name", "Family name can't be blank")
	}
	CheckText(&v, "family_name", "Family name", name, MaxName)
	if !ValidCurrency(currency) {
		v.Add("currency", "Currency must be a three-letter ISO code such as USD")
	}
	if !validLocale(locale) {
		v.Add("locale", "Choose one of the number styles offered")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	known, err := knownZone(ctx, db, zone)
	if err != nil {
		return nil, err
	}
	if !known {
		zone = currencyZone(currency)
	}
	f := &Family{ID: newID(), Name: name, Currency: currency, Locale: locale, DateFormat: LocaleOf(locale).DateFormat,
		Timezone: zone, WeekStart: "monday", Language: i18n.Default}
	if _, err := db.NewInsert().Model(f).Exec(ctx); err != nil {
		return nil, err
	}
	return f, nil
}

// SetDateFormat makes family write dates as pattern, one of DateFormats.
func SetDateFormat(ctx context.Context, db bun.IDB, family *Family, pattern string) error {
	if !validDateFormat(pattern) {
		var v apperr.Validation
		v.Add("date_format", "Choose one of the date formats offered")
		return v.Err()
	}
	if _, err := db.NewUpdate().Model(family).Set("date_format = ?", pattern).WherePK().Exec(ctx); err != nil {
		return err
	}
	family.DateFormat = pattern
	return nil
}

// currencyZones are the time zones most people who keep their money in a currency live in,
// for a family whose browser named none.
var currencyZones = map[string]string{
	"USD": "America/New_York", "EUR": "Europe/Berlin", "GBP": "Europe/London", "CAD": "America/Toronto",
	"AUD": "Australia/Sydney", "CHF": "Europe/Zurich", "JPY": "Asia/Tokyo", "INR": "Asia/Kolkata",
	"NZD": "Pacific/Auckland", "SEK": "Europe/Stockholm", "NOK": "Europe/Oslo", "DKK": "Europe/Copenhagen",
	"PLN": "Europe/Warsaw", "BRL": "America/Sao_Paulo", "MXN": "America/Mexico_City", "SGD": "Asia/Singapore",
	"HKD": "Asia/Hong_Kong", "ZAR": "Africa/Johannesburg",
}

func currencyZone(currency string) string {
	if z, ok := currencyZones[currency]; ok {
		return z
	}
	return "UTC"
}

// knownZone reports whether zone names a time zone both Go and the database know: the bank
// sync's schedule reads it in the database.
func knownZone(ctx context.Context, db bun.IDB, zone string) (bool, error) {
	if !validZone(zone) {
		return false, nil
	}
	if _, ok := zonesKnown.Load(zone); ok {
		return true, nil
	}
	var known bool
	err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = ?)", zone).Scan(ctx, &known)
	if known {
		zonesKnown.Store(zone, struct{}{})
	}
	return known, err
}

// zonesKnown holds the zones the database was found to know. pg_timezone_names reads and
// parses every file of the server's time zone database, tens of milliseconds each time, and
// every sign-up asks; the server's zones do not change while it runs.
var zonesKnown sync.Map

// FamilyByID returns the family with id.
func FamilyByID(ctx context.Context, db bun.IDB, id uuid.UUID) (*Family, error) {
	f := new(Family)
	err := db.NewSelect().Model(f).Where("id = ?", id).Scan(ctx)
	return f, notFound(err, "family")
}

// FamilyByName returns the family called name.
func FamilyByName(ctx context.Context, db bun.IDB, name string) (*Family, error) {
	f := new(Family)
	err := db.NewSelect().Model(f).Where("name = ?", name).OrderExpr("created_at").Limit(1).Scan(ctx)
	return f, notFound(err, "family")
}

// ValidCurrency reports whether c is written as an ISO 4217 code: three capital letters.
func ValidCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for _, r := range c {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
