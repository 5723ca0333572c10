package models

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
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
	{"#16a34a", "circle-dollar-sign", CategoryIncome, map[string]string{"en": "Income", "de": "Einnahmen", "fr": "Revenus", "nl": "Inkomsten", "es": "Ingresos", "it": "Entrate"}, []map[string]string{
		{"en": "Salary", "de": "Gehalt", "fr": "Salaire", "nl": "Salaris", "es": "Nómina", "it": "Stipendio"},
		{"en": "Interest & dividends", "de": "Zinsen & Dividenden", "fr": "Intérêts et dividendes", "nl": "Rente & dividend", "es": "Intereses y dividendos", "it": "Interessi e dividendi"},
		{"en": "Other income", "de": "Sonstige Einnahmen", "fr": "Autres revenus", "nl": "Overige inkomsten", "es": "Otros ingresos", "it": "Altre entrate"},
	}},
	{"#b45309", "house", CategoryExpense, map[string]string{"en": "Housing", "de": "Wohnen", "fr": "Logement", "nl": "Wonen", "es": "Vivienda", "it": "Abitazione"}, []map[string]string{
		{"en": "Rent & mortgage", "de": "Miete & Finanzierung", "fr": "Loyer et crédit immobilier", "nl": "Huur & hypotheek", "es": "Alquiler e hipoteca", "it": "Affitto e mutuo"},
		{"en": "Energy & utilities", "de": "Strom & Nebenkosten", "fr": "Énergie et charges", "nl": "Energie & vaste lasten", "es": "Suministros", "it": "Utenze ed energia"},
		{"en": "Internet & phone", "de": "Internet & Telefon", "fr": "Internet et téléphone", "nl": "Internet & telefoon", "es": "Internet y teléfono", "it": "Internet e telefono"},
		{"en": "Repairs & furnishing", "de": "Reparaturen & Einrichtung", "fr": "Travaux et ameublement", "nl": "Onderhoud & inrichting", "es": "Reparaciones y muebles", "it": "Riparazioni e arredamento"},
	}},
	{"#ea580c", "utensils", CategoryExpense, map[string]string{"en": "Food & drink", "de": "Essen & Trinken", "fr": "Alimentation", "nl": "Eten & drinken", "es": "Comida y bebida", "it": "Cibo e bevande"}, []map[string]string{
		{"en": "Groceries", "de": "Lebensmittel", "fr": "Courses", "nl": "Boodschappen", "es": "Supermercado", "it": "Spesa"},
		{"en": "Restaurants", "de": "Restaurants", "fr": "Restaurants", "nl": "Restaurants", "es": "Restaurantes", "it": "Ristoranti"},
		{"en": "Cafés & snacks", "de": "Cafés & Snacks", "fr": "Cafés et en-cas", "nl": "Koffie & snacks", "es": "Cafeterías y tentempiés", "it": "Bar e snack"},
	}},
	{"#0284c7", "car", CategoryExpense, map[string]string{"en": "Transportation", "de": "Mobilität", "fr": "Transports", "nl": "Vervoer", "es": "Transporte", "it": "Trasporti"}, []map[string]string{
		{"en": "Fuel & charging", "de": "Tanken & Laden", "fr": "Carburant et recharge", "nl": "Brandstof & laden", "es": "Combustible y carga", "it": "Carburante e ricarica"},
		{"en": "Public transport", "de": "Bus & Bahn", "fr": "Transports en commun", "nl": "Openbaar vervoer", "es": "Transporte público", "it": "Trasporto pubblico"},
		{"en": "Parking & tolls", "de": "Parken & Maut", "fr": "Stationnement et péages", "nl": "Parkeren & tol", "es": "Aparcamiento y peajes", "it": "Parcheggi e pedaggi"},
		{"en": "Car maintenance", "de": "Werkstatt & Wartung", "fr": "Entretien auto", "nl": "Onderhoud auto", "es": "Mantenimiento del coche", "it": "Manutenzione auto"},
	}},
	{"#2563eb", "shopping-bag", CategoryExpense, map[string]string{"en": "Shopping", "de": "Einkäufe", "fr": "Achats", "nl": "Winkelen", "es": "Compras", "it": "Acquisti"}, []map[string]string{
		{"en": "Clothing", "de": "Kleidung", "fr": "Vêtements", "nl": "Kleding", "es": "Ropa", "it": "Abbigliamento"},
		{"en": "Electronics", "de": "Elektronik", "fr": "Électronique", "nl": "Elektronica", "es": "Electrónica", "it": "Elettronica"},
		{"en": "Household & drugstore", "de": "Haushalt & Drogerie", "fr": "Maison et droguerie", "nl": "Huishouden & drogisterij", "es": "Hogar y droguería", "it": "Casa e drogheria"},
	}},
	{"#059669", "heart-pulse", CategoryExpense, map[string]string{"en": "Health", "de": "Gesundheit", "fr": "Santé", "nl": "Gezondheid", "es": "Salud", "it": "Salute"}, []map[string]string{
		{"en": "Doctors", "de": "Ärzte", "fr": "Médecins", "nl": "Artsen", "es": "Médicos", "it": "Medici"},
		{"en": "Pharmacy", "de": "Apotheke", "fr": "Pharmacie", "nl": "Apotheek", "es": "Farmacia", "it": "Farmacia"},
	}},
	{"#9333ea", "drama", CategoryExpense, map[string]string{"en": "Leisure", "de": "Freizeit", "fr": "Loisirs", "nl": "Vrije tijd", "es": "Ocio", "it": "Tempo libero"}, []map[string]string{
		{"en": "Streaming & subscriptions", "de": "Streaming & Abos", "fr": "Streaming et abonnements", "nl": "Streaming & abonnementen", "es": "Streaming y suscripciones", "it": "Streaming e abbonamenti"},
		{"en": "Sports & fitness", "de": "Sport & Fitness", "fr": "Sport et fitness", "nl": "Sport & fitness", "es": "Deporte y gimnasio", "it": "Sport e palestra"},
		{"en": "Hobbies", "de": "Hobbys", "fr": "Hobbies", "nl": "Hobby's", "es": "Aficiones", "it": "Hobby"},
		{"en": "Going out", "de": "Ausgehen", "fr": "Sorties", "nl": "Uitgaan", "es": "Salir", "it": "Uscite"},
	}},
	{"#0891b2", "plane", CategoryExpense, map[string]string{"en": "Travel", "de": "Reisen", "fr": "Voyages", "nl": "Reizen", "es": "Viajes", "it": "Viaggi"}, []map[string]string{
		{"en": "Accommodation", "de": "Unterkunft", "fr": "Hébergement", "nl": "Accommodatie", "es": "Alojamiento", "it": "Alloggio"},
		{"en": "Travel fares", "de": "Fahrten & Flüge", "fr": "Billets de voyage", "nl": "Reiskosten", "es": "Billetes", "it": "Biglietti di viaggio"},
	}},
	{"#4f46e5", "shield", CategoryExpense, map[string]string{"en": "Insurance", "de": "Versicherungen", "fr": "Assurances", "nl": "Verzekeringen", "es": "Seguros", "it": "Assicurazioni"}, []map[string]string{
		{"en": "Health insurance", "de": "Krankenversicherung", "fr": "Assurance santé", "nl": "Zorgverzekering", "es": "Seguro médico", "it": "Assicurazione sanitaria"},
		{"en": "Car insurance", "de": "Kfz-Versicherung", "fr": "Assurance auto", "nl": "Autoverzekering", "es": "Seguro del coche", "it": "Assicurazione auto"},
		{"en": "Home & liability insurance", "de": "Haftpflicht & Hausrat", "fr": "Habitation et responsabilité civile", "nl": "Inboedel & aansprakelijkheid", "es": "Hogar y responsabilidad civil", "it": "Casa e responsabilità civile"},
	}},
	{"#ca8a04", "graduation-cap", CategoryExpense, map[string]string{"en": "Children & education", "de": "Kinder & Bildung", "fr": "Enfants et éducation", "nl": "Kinderen & onderwijs", "es": "Hijos y educación", "it": "Figli e istruzione"}, []map[string]string{
		{"en": "Childcare", "de": "Kinderbetreuung", "fr": "Garde d'enfants", "nl": "Kinderopvang", "es": "Cuidado infantil", "it": "Assistenza all'infanzia"},
		{"en": "School & courses", "de": "Schule & Kurse", "fr": "École et cours", "nl": "School & cursussen", "es": "Colegio y cursos", "it": "Scuola e corsi"},
	}},
	{"#db2777", "gift", CategoryExpense, map[string]string{"en": "Gifts & donations", "de": "Geschenke & Spenden", "fr": "Cadeaux et dons", "nl": "Cadeaus & donaties", "es": "Regalos y donaciones", "it": "Regali e donazioni"}, nil},
	{"#64748b", "landmark", CategoryExpense, map[string]string{"en": "Finance", "de": "Finanzen", "fr": "Finances", "nl": "Financiën", "es": "Finanzas", "it": "Finanze"}, []map[string]string{
		{"en": "Bank fees", "de": "Bankgebühren", "fr": "Frais bancaires", "nl": "Bankkosten", "es": "Comisiones bancarias", "it": "Commissioni bancarie"},
		{"en": "Taxes", "de": "Steuern", "fr": "Impôts", "nl": "Belastingen", "es": "Impuestos", "it": "Tasse"},
		{"en": "Loan payments", "de": "Kreditraten", "fr": "Remboursements de prêt", "nl": "Aflossingen", "es": "Cuotas de préstamos", "it": "Rate dei prestiti"},
	}},
}

// StarterCategories is the starter set in the language of locale (one of Locales, such as
// de-CH): English, German, French, Dutch, Spanish or Italian, English for any other.
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
	// Only into an empty list: the set's names would meet the family's own.
	has, err := db.NewSelect().Model((*Category)(nil)).Where("family_id = ?", familyID).Exists(ctx)
	if err != nil {
		return err
	}
	if has {
		return apperr.New(apperr.Conflict, "The family has categories already: the common ones are offered only to start with.")
	}
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
