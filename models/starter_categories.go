package models

import (
	"context"
	"fmt"
	"slices"
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

// starterLanguages are the languages the starter set is named in, in the order names gives them.
var starterLanguages = [...]string{"en", "de", "fr", "nl", "es", "it"}

// names is one name of the starter set in each of starterLanguages, in their order.
type names [len(starterLanguages)]string

// starterCategory is one category of the starter set, named in each language the set has.
type starterCategory struct {
	color, icon, classification string
	names                       names
	subcategories               []names
}

// starterSet is the set of categories a family may start with, as Actual, Firefly III and Sure
// offer one: the few a household sorts most of its money into, a handful of subcategories
// where people commonly split one.
var starterSet = []starterCategory{
	{"#16a34a", "circle-dollar-sign", CategoryIncome, names{"Income", "Einnahmen", "Revenus", "Inkomsten", "Ingresos", "Entrate"}, []names{
		{"Salary", "Gehalt", "Salaire", "Salaris", "Nómina", "Stipendio"},
		{"Interest & dividends", "Zinsen & Dividenden", "Intérêts et dividendes", "Rente & dividend", "Intereses y dividendos", "Interessi e dividendi"},
		{"Other income", "Sonstige Einnahmen", "Autres revenus", "Overige inkomsten", "Otros ingresos", "Altre entrate"},
	}},
	{"#b45309", "house", CategoryExpense, names{"Housing", "Wohnen", "Logement", "Wonen", "Vivienda", "Abitazione"}, []names{
		{"Rent & mortgage", "Miete & Finanzierung", "Loyer et crédit immobilier", "Huur & hypotheek", "Alquiler e hipoteca", "Affitto e mutuo"},
		{"Energy & utilities", "Strom & Nebenkosten", "Énergie et charges", "Energie & vaste lasten", "Suministros", "Utenze ed energia"},
		{"Internet & phone", "Internet & Telefon", "Internet et téléphone", "Internet & telefoon", "Internet y teléfono", "Internet e telefono"},
		{"Repairs & furnishing", "Reparaturen & Einrichtung", "Travaux et ameublement", "Onderhoud & inrichting", "Reparaciones y muebles", "Riparazioni e arredamento"},
	}},
	{"#ea580c", "utensils", CategoryExpense, names{"Food & drink", "Essen & Trinken", "Alimentation", "Eten & drinken", "Comida y bebida", "Cibo e bevande"}, []names{
		{"Groceries", "Lebensmittel", "Courses", "Boodschappen", "Supermercado", "Spesa"},
		{"Restaurants", "Restaurants", "Restaurants", "Restaurants", "Restaurantes", "Ristoranti"},
		{"Cafés & snacks", "Cafés & Snacks", "Cafés et en-cas", "Koffie & snacks", "Cafeterías y tentempiés", "Bar e snack"},
	}},
	{"#0284c7", "car", CategoryExpense, names{"Transportation", "Mobilität", "Transports", "Vervoer", "Transporte", "Trasporti"}, []names{
		{"Fuel & charging", "Tanken & Laden", "Carburant et recharge", "Brandstof & laden", "Combustible y carga", "Carburante e ricarica"},
		{"Public transport", "Bus & Bahn", "Transports en commun", "Openbaar vervoer", "Transporte público", "Trasporto pubblico"},
		{"Parking & tolls", "Parken & Maut", "Stationnement et péages", "Parkeren & tol", "Aparcamiento y peajes", "Parcheggi e pedaggi"},
		{"Car maintenance", "Werkstatt & Wartung", "Entretien auto", "Onderhoud auto", "Mantenimiento del coche", "Manutenzione auto"},
	}},
	{"#2563eb", "shopping-bag", CategoryExpense, names{"Shopping", "Einkäufe", "Achats", "Winkelen", "Compras", "Acquisti"}, []names{
		{"Clothing", "Kleidung", "Vêtements", "Kleding", "Ropa", "Abbigliamento"},
		{"Electronics", "Elektronik", "Électronique", "Elektronica", "Electrónica", "Elettronica"},
		{"Household & drugstore", "Haushalt & Drogerie", "Maison et droguerie", "Huishouden & drogisterij", "Hogar y droguería", "Casa e drogheria"},
	}},
	{"#059669", "heart-pulse", CategoryExpense, names{"Health", "Gesundheit", "Santé", "Gezondheid", "Salud", "Salute"}, []names{
		{"Doctors", "Ärzte", "Médecins", "Artsen", "Médicos", "Medici"},
		{"Pharmacy", "Apotheke", "Pharmacie", "Apotheek", "Farmacia", "Farmacia"},
	}},
	{"#9333ea", "drama", CategoryExpense, names{"Leisure", "Freizeit", "Loisirs", "Vrije tijd", "Ocio", "Tempo libero"}, []names{
		{"Streaming & subscriptions", "Streaming & Abos", "Streaming et abonnements", "Streaming & abonnementen", "Streaming y suscripciones", "Streaming e abbonamenti"},
		{"Sports & fitness", "Sport & Fitness", "Sport et fitness", "Sport & fitness", "Deporte y gimnasio", "Sport e palestra"},
		{"Hobbies", "Hobbys", "Hobbies", "Hobby's", "Aficiones", "Hobby"},
		{"Going out", "Ausgehen", "Sorties", "Uitgaan", "Salir", "Uscite"},
	}},
	{"#0891b2", "plane", CategoryExpense, names{"Travel", "Reisen", "Voyages", "Reizen", "Viajes", "Viaggi"}, []names{
		{"Accommodation", "Unterkunft", "Hébergement", "Accommodatie", "Alojamiento", "Alloggio"},
		{"Travel fares", "Fahrten & Flüge", "Billets de voyage", "Reiskosten", "Billetes", "Biglietti di viaggio"},
	}},
	{"#4f46e5", "shield", CategoryExpense, names{"Insurance", "Versicherungen", "Assurances", "Verzekeringen", "Seguros", "Assicurazioni"}, []names{
		{"Health insurance", "Krankenversicherung", "Assurance santé", "Zorgverzekering", "Seguro médico", "Assicurazione sanitaria"},
		{"Car insurance", "Kfz-Versicherung", "Assurance auto", "Autoverzekering", "Seguro del coche", "Assicurazione auto"},
		{"Home & liability insurance", "Haftpflicht & Hausrat", "Habitation et responsabilité civile", "Inboedel & aansprakelijkheid", "Hogar y responsabilidad civil", "Casa e responsabilità civile"},
	}},
	{"#ca8a04", "graduation-cap", CategoryExpense, names{"Children & education", "Kinder & Bildung", "Enfants et éducation", "Kinderen & onderwijs", "Hijos y educación", "Figli e istruzione"}, []names{
		{"Childcare", "Kinderbetreuung", "Garde d'enfants", "Kinderopvang", "Cuidado infantil", "Assistenza all'infanzia"},
		{"School & courses", "Schule & Kurse", "École et cours", "School & cursussen", "Colegio y cursos", "Scuola e corsi"},
	}},
	{"#db2777", "gift", CategoryExpense, names{"Gifts & donations", "Geschenke & Spenden", "Cadeaux et dons", "Cadeaus & donaties", "Regalos y donaciones", "Regali e donazioni"}, nil},
	{"#64748b", "landmark", CategoryExpense, names{"Finance", "Finanzen", "Finances", "Financiën", "Finanzas", "Finanze"}, []names{
		{"Bank fees", "Bankgebühren", "Frais bancaires", "Bankkosten", "Comisiones bancarias", "Commissioni bancarie"},
		{"Taxes", "Steuern", "Impôts", "Belastingen", "Impuestos", "Tasse"},
		{"Loan payments", "Kreditraten", "Remboursements de prêt", "Aflossingen", "Cuotas de préstamos", "Rate dei prestiti"},
	}},
}

// StarterCategories is the starter set in the language of locale (one of Locales, such as
// de-CH): English, German, French, Dutch, Spanish or Italian, English for any other.
func StarterCategories(locale string) []StarterCategory {
	lang, _, _ := strings.Cut(locale, "-")
	l := max(slices.Index(starterLanguages[:], lang), 0) // English, the first, for any other
	out := make([]StarterCategory, len(starterSet))
	for i, c := range starterSet {
		out[i] = StarterCategory{Name: c.names[l], Color: c.color, Icon: c.icon, Classification: c.classification}
		for _, sub := range c.subcategories {
			out[i].Subcategories = append(out[i].Subcategories, sub[l])
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
