package models

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
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

// CreateFamily inserts a family named name with currency (USD when empty) and locale, one of
// Locales (the first when empty).
func CreateFamily(ctx context.Context, db bun.IDB, name, currency, locale string) (*Family, error) {
	name = strings.TrimSpace(name)
	if currency == "" {
		currency = "USD"
	}
	if locale == "" {
		locale = Locales[0].Code
	}
	var v apperr.Validation
	if name == "" {
		v.Add("family_name", "Family name can't be blank")
	}
	if !ValidCurrency(currency) {
		v.Add("currency", "Currency must be a three-letter ISO code such as USD")
	}
	if !validLocale(locale) {
		v.Add("locale", "Choose one of the number styles offered")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	f := &Family{ID: newID(), Name: name, Currency: currency, Locale: locale, DateFormat: DateFormats[0].Pattern,
		Timezone: "UTC", WeekStart: "monday"}
	if _, err := db.NewInsert().Model(f).Exec(ctx); err != nil {
		return nil, err
	}
	return f, nil
}

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
