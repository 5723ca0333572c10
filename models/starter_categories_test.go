package models_test

import (
	"context"
	"testing"

	"tally/models"
	"tally/testkit"
)

// TestStarterCategories is the starter set in each of its languages, and in English for a
// locale whose language it lacks: every name is given and used once (a family's category
// names are unique), every parent has a colour and an icon, and the set is created as it reads.
func TestStarterCategories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	for _, tc := range []struct{ locale, first, firstSub string }{
		{"en-US", "Income", "Salary"},
		{"en-GB", "Income", "Salary"},
		{"de-DE", "Einnahmen", "Gehalt"},
		{"de-CH", "Einnahmen", "Gehalt"},
		{"fr-FR", "Revenus", "Salaire"},
		{"nl-NL", "Inkomsten", "Salaris"},
		{"es-ES", "Ingresos", "Nómina"},
		{"it-IT", "Entrate", "Stipendio"},
		{"pt-PT", "Income", "Salary"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			set := models.StarterCategories(tc.locale)
			if set[0].Name != tc.first || set[0].Subcategories[0] != tc.firstSub || set[0].Classification != models.CategoryIncome {
				t.Errorf("the set starts with %q (%q, %s)", set[0].Name, set[0].Subcategories, set[0].Classification)
			}
			seen := map[string]bool{}
			want := 0
			for _, c := range set {
				if err := (&models.CategoryInput{Name: &c.Name, Color: &c.Color, Icon: &c.Icon, Classification: &c.Classification}).Validate(true); err != nil {
					t.Errorf("%q: %v", c.Name, err)
				}
				for _, name := range append([]string{c.Name}, c.Subcategories...) {
					if name == "" || seen[name] {
						t.Errorf("%q is blank or given twice", name)
					}
					seen[name] = true
					want++
				}
			}

			u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
			if err := models.CreateStarterCategories(ctx, d, u.FamilyID, tc.locale); err != nil {
				t.Fatal(err)
			}
			all, err := models.AllCategories(ctx, d, models.FamilyViewer(u.FamilyID))
			if err != nil || len(all) != want {
				t.Fatalf("created %d categories, want %d (err %v)", len(all), want, err)
			}
			for _, c := range all {
				if !seen[c.Name] {
					t.Errorf("created %q, which the set does not have", c.Name)
				}
			}
		})
	}
}
