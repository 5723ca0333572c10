package models_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"tally/internal/apperr"
	"tally/models"
	"tally/testkit"
)

func berlinSettings() models.FamilySettings {
	return models.FamilySettings{Name: "Die Müllers", Currency: "EUR", Locale: "de-DE", DateFormat: "%d.%m.%Y",
		WeekStart: "monday", Timezone: "Europe/Berlin"}
}

func TestFamilySettingsValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*models.FamilySettings)
		fields []string // the fields refused, none for valid settings
	}{
		{"a German family in Berlin", func(*models.FamilySettings) {}, nil},
		{"a lower-case currency with spaces is read as its code", func(s *models.FamilySettings) { s.Currency = " eur " }, nil},
		{"a week that starts on Sunday", func(s *models.FamilySettings) { s.WeekStart = "sunday" }, nil},
		{"UTC is a time zone", func(s *models.FamilySettings) { s.Timezone = "UTC" }, nil},
		{"a blank name", func(s *models.FamilySettings) { s.Name = "  " }, []string{"name"}},
		{"a currency that is no ISO code", func(s *models.FamilySettings) { s.Currency = "EURO" }, []string{"currency"}},
		{"a currency symbol", func(s *models.FamilySettings) { s.Currency = "€" }, []string{"currency"}},
		{"an unknown time zone", func(s *models.FamilySettings) { s.Timezone = "Europe/Atlantis" }, []string{"timezone"}},
		{"an offset is not a zone name", func(s *models.FamilySettings) { s.Timezone = "+02:00" }, []string{"timezone"}},
		{"the server's own zone is not a family's", func(s *models.FamilySettings) { s.Timezone = "Local" }, []string{"timezone"}},
		{"no time zone", func(s *models.FamilySettings) { s.Timezone = "" }, []string{"timezone"}},
		{"an unknown locale", func(s *models.FamilySettings) { s.Locale = "xx-XX" }, []string{"locale"}},
		{"no locale: a family has one", func(s *models.FamilySettings) { s.Locale = "" }, []string{"locale"}},
		{"a date format not offered", func(s *models.FamilySettings) { s.DateFormat = "%j" }, []string{"date_format"}},
		{"a week that starts on Wednesday", func(s *models.FamilySettings) { s.WeekStart = "wednesday" }, []string{"week_start"}},
		{"every field wrong at once", func(s *models.FamilySettings) { *s = models.FamilySettings{} },
			[]string{"currency", "date_format", "locale", "name", "timezone", "week_start"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := berlinSettings()
			tc.change(&s)
			err := s.Validate()
			var got []string
			if e := apperr.As(err); e != nil {
				if e.Code != apperr.Invalid {
					t.Fatalf("error %v, want Invalid", err)
				}
				got = slices.Sorted(maps.Keys(e.Fields))
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.fields) {
				t.Fatalf("refused fields %v, want %v (%v)", got, tc.fields, err)
			}
		})
	}
}

// Saved settings are what the family's members read, and the next page load shows them.
func TestUpdateFamilySettings(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})

	f, err := models.FamilyByID(ctx, d, u.FamilyID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Locale != "en-US" || f.DateFormat != "%Y-%m-%d" || f.WeekStart != "monday" || f.Timezone != "UTC" {
		t.Fatalf("a new family's defaults: %+v", f)
	}
	in := berlinSettings()
	in.Currency, in.WeekStart = "eur", "sunday"
	if err := models.UpdateFamilySettings(ctx, d, u.FamilyID, in); err != nil {
		t.Fatal(err)
	}
	f, err = models.FamilyByID(ctx, d, u.FamilyID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "Die Müllers" || f.Currency != "EUR" || f.Locale != "de-DE" || f.DateFormat != "%d.%m.%Y" ||
		f.WeekStart != "sunday" || f.Timezone != "Europe/Berlin" || f.Location().String() != "Europe/Berlin" {
		t.Fatalf("saved %+v", f)
	}
	if o, _ := models.FamilyByID(ctx, d, other.FamilyID); o.Locale != "en-US" || o.Timezone != "UTC" {
		t.Fatalf("another family changed: %+v", o)
	}

	// A refused change changes nothing.
	bad := berlinSettings()
	bad.Timezone = "Mars/Olympus_Mons"
	if err := models.UpdateFamilySettings(ctx, d, u.FamilyID, bad); !apperr.Is(err, apperr.Invalid) || apperr.As(err).Fields["timezone"] == nil {
		t.Fatalf("an unknown zone: %v", err)
	}
	if f, _ := models.FamilyByID(ctx, d, u.FamilyID); f.Timezone != "Europe/Berlin" || f.WeekStart != "sunday" {
		t.Fatalf("after a refused change %+v", f)
	}
}

// A member without a number style or date format of their own reads the family's.
func TestUserFollowsTheFamilyUnlessTheyChose(t *testing.T) {
	fam := &models.Family{Locale: "de-DE", DateFormat: "%d.%m.%Y"}
	for _, tc := range []struct {
		name                   string
		user                   models.User
		wantLocale, wantFormat string
	}{
		{"no choice of their own", models.User{Family: fam}, "de-DE", "%d.%m.%Y"},
		{"their own choice", models.User{Family: fam, Locale: "en-GB", DateFormat: "%d/%m/%Y"}, "en-GB", "%d/%m/%Y"},
		{"their own locale, the family's dates", models.User{Family: fam, Locale: "fr-FR"}, "fr-FR", "%d.%m.%Y"},
		{"no family loaded", models.User{}, "en-US", "%Y-%m-%d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.user.NumberLocale().Code; got != tc.wantLocale {
				t.Errorf("locale %s, want %s", got, tc.wantLocale)
			}
			if got := tc.user.DatePattern(); got != tc.wantFormat {
				t.Errorf("date format %s, want %s", got, tc.wantFormat)
			}
		})
	}
}

// TestANewFamilysTimeZone is the time zone a family starts with: its browser's when the
// database knows that zone, else the usual one of its currency, else UTC; never UTC for a
// euro family by default.
func TestANewFamilysTimeZone(t *testing.T) {
	d := testkit.MustOpenDB(t)
	for _, tc := range []struct {
		name, currency, browser, want string
	}{
		{"the browser's zone", "EUR", "Europe/Paris", "Europe/Paris"},
		{"a euro family whose browser said nothing", "EUR", "", "Europe/Berlin"},
		{"a zone no one knows is the currency's", "GBP", "Mars/Olympus", "Europe/London"},
		{"the server's own zone is no family's", "USD", "Local", "America/New_York"},
		{"a currency with no usual zone", "ISK", "", "UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := models.CreateFamily(context.Background(), d, "Family "+tc.name, tc.currency, "", tc.browser)
			if err != nil || f.Timezone != tc.want {
				t.Errorf("zone %q (err %v), want %q", f.Timezone, err, tc.want)
			}
		})
	}
}
