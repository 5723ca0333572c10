package models

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// StarterCategory is a category a new family may start with, with its subcategories, which
// take its colour, icon and classification.
type StarterCategory struct {
	Name, Color, Icon, Classification string
	Subcategories                     []string
}

// starterCategory is one category of the starter set, named in each language the set has.
type starterCategory struct {
	color, icon, classification string
	names                       map[string]string   // by language
	subcategories               []map[string]string // each by language
}

// starterSet is the set of categories a family may start with, as Actual, Firefly III and Sure
// offer one: the few a household sorts most of its money into, a handful of subcategories
// where people commonly split one.
var starterSet = []starterCategory{
	{"#16a34a", "circle-dollar-sign", CategoryIncome, map[string]string{"en": "Income", "de": "Einnahmen"}, []map[string]string{
		{"en": "Salary", "de": "Gehalt"},
		{"en": "Interest & dividends", "de": "Zinsen & Dividenden"},
		{"en": "Other income", "de": "Sonstige Einnahmen"},
	}},
	{"#b45309", "house", CategoryExpense, map[string]string{"en": "Housing", "de": "Wohnen"}, []map[string]string{
		{"en": "Rent & mortgage", "de": "Miete & Finanzierung"},
		{"en": "Energy & utilities", "de": "Strom & Nebenkosten"},
		{"en": "Internet & phone", "de": "Internet & Telefon"},
		{"en": "Repairs & furnishing", "de": "Reparaturen & Einrichtung"},
	}},
	{"#ea580c", "utensils", CategoryExpense, map[string]string{"en": "Food & drink", "de": "Essen & Trinken"}, []map[string]string{
		{"en": "Groceries", "de": "Lebensmittel"},
		{"en": "Restaurants", "de": "Restaurants"},
		{"en": "Cafés & snacks", "de": "Cafés & Snacks"},
	}},
	{"#0284c7", "car", CategoryExpense, map[string]string{"en": "Transportation", "de": "Mobilität"}, []map[string]string{
		{"en": "Fuel & charging", "de": "Tanken & Laden"},
		{"en": "Public transport", "de": "Bus & Bahn"},
		{"en": "Parking & tolls", "de": "Parken & Maut"},
		{"en": "Car maintenance", "de": "Werkstatt & Wartung"},
	}},
	{"#2563eb", "shopping-bag", CategoryExpense, map[string]string{"en": "Shopping", "de": "Einkäufe"}, []map[string]string{
		{"en": "Clothing", "de": "Kleidung"},
		{"en": "Electronics", "de": "Elektronik"},
		{"en": "Household & drugstore", "de": "Haushalt & Drogerie"},
	}},
	{"#059669", "heart-pulse", CategoryExpense, map[string]string{"en": "Health", "de": "Gesundheit"}, []map[string]string{
		{"en": "Doctors", "de": "Ärzte"},
		{"en": "Pharmacy", "de": "Apotheke"},
	}},
	{"#9333ea", "drama", CategoryExpense, map[string]string{"en": "Leisure", "de": "Freizeit"}, []map[string]string{
		{"en": "Streaming & subscriptions", "de": "Streaming & Abos"},
		{"en": "Sports & fitness", "de": "Sport & Fitness"},
		{"en": "Hobbies", "de": "Hobbys"},
		{"en": "Going out", "de": "Ausgehen"},
	}},
	{"#0891b2", "plane", CategoryExpense, map[string]string{"en": "Travel", "de": "Reisen"}, []map[string]string{
		{"en": "Accommodation", "de": "Unterkunft"},
		{"en": "Travel fares", "de": "Fahrten & Flüge"},
	}},
	{"#4f46e5", "shield", CategoryExpense, map[string]string{"en": "Insurance", "de": "Versicherungen"}, []map[string]string{
		{"en": "Health insurance", "de": "Krankenversicherung"},
		{"en": "Car insurance", "de": "Kfz-Versicherung"},
		{"en": "Home & liability insurance", "de": "Haftpflicht & Hausrat"},
	}},
	{"#ca8a04", "graduation-cap", CategoryExpense, map[string]string{"en": "Children & education", "de": "Kinder & Bildung"}, []map[string]string{
		{"en": "Childcare", "de": "Kinderbetreuung"},
		{"en": "School & courses", "de": "Schule & Kurse"},
	}},
	{"#db2777", "gift", CategoryExpense, map[string]string{"en": "Gifts & donations", "de": "Geschenke & Spenden"}, nil},
	{"#64748b", "landmark", CategoryExpense, map[string]string{"en": "Finance", "de": "Finanzen"}, []map[string]string{
		{"en": "Bank fees", "de": "Bankgebühren"},
		{"en": "Taxes", "de": "Steuern"},
		{"en": "Loan payments", "de": "Kreditraten"},
	}},
}

// StarterCategories is the starter set in the language of locale (one of Locales, such as
// de-CH), or in English when the set has no names in that language.
func StarterCategories(locale string) []StarterCategory {
	lang, _, _ := strings.Cut(locale, "-")
	if _, ok := starterSet[0].names[lang]; !ok {
		lang = "en"
	}
	out := make([]StarterCategory, len(starterSet))
	for i, c := range starterSet {
		out[i] = StarterCategory{Name: c.names[lang], Color: c.color, Icon: c.icon, Classification: c.classification}
		for _, sub := range c.subcategories {
			out[i].Subcategories = append(out[i].Subcategories, sub[lang])
		}
	}
	return out
}

// CreateStarterCategories gives a family that has no categories yet the starter set in the
// language of locale, in one statement. They are the family's own from then on: a person
// renames, recolours, moves or deletes them like any other.
func CreateStarterCategories(ctx context.Context, db bun.IDB, familyID uuid.UUID, locale string) error {
	var rows []Category
	for _, c := range StarterCategories(locale) {
		parent := Category{ID: newID(), FamilyID: familyID, Name: c.Name, Color: c.Color, Icon: c.Icon, Classification: c.Classification}
		rows = append(rows, parent)
		for _, name := range c.Subcategories {
			rows = append(rows, Category{ID: newID(), FamilyID: familyID, ParentID: &parent.ID, Name: name,
				Color: c.Color, Icon: c.Icon, Classification: c.Classification})
		}
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("starter categories: %w", err)
	}
	return nil
}
