package models

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/i18n"
)

// WeekStarts are the days a family's week may start on; the first is the default.
var WeekStarts = []struct{ Value, Label string }{{"monday", "Monday"}, {"sunday", "Sunday"}}

// FamilySettings are what a family's admins change on Settings › Family.
type FamilySettings struct {
	Name string
	// Currency is an ISO 4217 code: new accounts' currency, and the family's totals'.
	Currency string
	// Locale and DateFormat are the number style (one of Locales) and date format (one of
	// DateFormats) of the members who chose none on their profile.
	Locale, DateFormat string
	// WeekStart is one of WeekStarts.
	WeekStart string
	// Timezone is an IANA name such as Europe/Berlin: it decides what "today" is and when
	// the daily bank sync runs.
	Timezone string
	// Language is one of i18n.Languages(): the language of the pages and mails of the members
	// who chose none on their profile, and of the family's invitations; "" leaves it as it is.
	Language string
}

// Validate trims the settings and upper-cases the currency, then checks every field; the
// error is Invalid and names each bad field.
func (s *FamilySettings) Validate() error {
	s.Name, s.Timezone = strings.TrimSpace(s.Name), strings.TrimSpace(s.Timezone)
	s.Currency = strings.ToUpper(strings.TrimSpace(s.Currency))
	var v apperr.Validation
	if s.Name == "" {
		v.AddText("name", "validation.family_name_blank")
	}
	CheckText(&v, "name", "Family name", s.Name, MaxName)
	if !ValidCurrency(s.Currency) {
		v.AddText("currency", "validation.currency_code")
	}
	if !validLocale(s.Locale) {
		v.Add("locale", "Choose one of the number styles offered")
	}
	if !validDateFormat(s.DateFormat) {
		v.Add("date_format", "Choose one of the date formats offered")
	}
	if !slices.ContainsFunc(WeekStarts, func(w struct{ Value, Label string }) bool { return w.Value == s.WeekStart }) {
		v.Add("week_start", "The week starts on Monday or Sunday")
	}
	if !validZone(s.Timezone) {
		v.AddText("timezone", "validation.time_zone")
	}
	if s.Language != "" && !i18n.Supported(s.Language) {
		v.Add("language", "Choose one of the languages offered")
	}
	return v.Err()
}

// validZone reports whether name is a time zone Go knows by its IANA name. "Local" (the
// server's zone) and "" (which Go reads as UTC) are not names a family can mean.
func validZone(name string) bool {
	if name == "" || name == "Local" {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// UpdateFamilySettings saves the family's settings after checking them. The database must
// know the time zone too, as the bank sync's schedule reads it there: one it does not know
// is refused on the field like any other.
func UpdateFamilySettings(ctx context.Context, db bun.IDB, familyID uuid.UUID, in FamilySettings) error {
	if err := in.Validate(); err != nil {
		return err
	}
	known, err := knownZone(ctx, db, in.Timezone)
	if err != nil {
		return err
	}
	if !known {
		var v apperr.Validation
		v.AddText("timezone", "validation.time_zone")
		return v.Err()
	}
	res, err := db.NewUpdate().Model((*Family)(nil)).
		Set("name = ?", in.Name).Set("currency = ?", in.Currency).Set("locale = ?", in.Locale).
		Set("date_format = ?", in.DateFormat).Set("week_start = ?", in.WeekStart).Set("timezone = ?", in.Timezone).
		Set("language = COALESCE(NULLIF(?, ''), language)", in.Language).Set("updated_at = now()").Where("id = ?", familyID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, "Family not found")
	}
	return nil
}
