package merchants_test

import (
	"testing"

	"tally/merchants"
)

// TestName reads the merchant out of what banks and card networks write, on
// descriptors as they appear in US, UK and German statements and CSV exports.
func TestName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, text, want string }{
		{"a US bank's card line", "PURCHASE AUTHORIZED ON 12/03 SQ *BLUE BOTTLE COFFEE San Francisco CA S583337456789012 CARD 1234", "Blue Bottle Coffee"},
		{"a recurring card payment", "RECURRING PAYMENT AUTHORIZED ON 12/01 NETFLIX.COM LOS GATOS CA S463335641187735 CARD 1234", "Netflix"},
		{"a check card with a store number", "CHECKCARD 0712 STARBUCKS STORE 10245 SEATTLE WA 24692163194700163835497", "Starbucks"},
		{"a store number with #", "TARGET #1234 MINNEAPOLIS MN", "Target"},
		{"a store number and a city", "SHELL OIL 57444363400 SAN JOSE CA", "Shell Oil"},
		{"Square", "SQ *BLUE BOTTLE COFFEE", "Blue Bottle Coffee"},
		{"PayPal with a phone number", "PAYPAL *NETFLIX.COM 4029357733", "Netflix"},
		{"PayPal's company as the counterparty", "PayPal Europe S.a.r.l. et Cie S.C.A", "PayPal Europe"},
		{"Curve, a store number and a city", "CRV*ALDI SUED 1234 MUENCHEN", "Aldi Sued"},
		{"SumUp", "SumUp *Cafe Kranz", "Cafe Kranz"},
		{"Google Play", "GOOGLE *YouTube Premium g.co/helppay#", "YouTube Premium"},
		{"Uber's trip, pending", "UBER *TRIP HELP.UBER.COM", "Uber"},
		{"Uber's trip, booked", "UBER   TRIP HELP.UBER.COM", "Uber Trip"},
		{"Amazon's marketplace", "AMZN Mktp DE*2K4HG7PL5", "Amazon"},
		{"Amazon by its address", "Amazon.de*AB12CD34E", "Amazon"},
		{"Apple's bill with a phone number", "APPLE.COM/BILL 866-712-7753 CA", "Apple"},
		{"a UK card payment with a date", "CARD PAYMENT TO TESCO STORES 3297 ON 12-03-2024", "Tesco Stores"},
		{"a UK debit card, a store number, a city and a country", "Visa Debit TESCO STORES 3297 LONDON GB", "Tesco Stores"},
		{"a point of sale with a date first", "POS 12/03 WAITROSE 123 LONDON", "Waitrose"},
		{"a debit card purchase", "DEBIT CARD PURCHASE - STARBUCKS", "Starbucks"},
		{"a card descriptor's city and country", "ZUM GOLDENEN HIRSCHEN MUENCHEN DE", "Zum Goldenen Hirschen"},
		{"a girocard payment", "EDEKA CENTER//MUENCHEN/DE 2024-11-25T18:34:12 KFN 1 VJ 2512", "Edeka Center"},
		{"a German direct debit", "Lastschrift Stadtwerke München GmbH", "Stadtwerke München"},
		{"a SEPA direct debit", "SEPA-Lastschrift Vodafone GmbH", "Vodafone"},
		{"a German card payment with a legal form and a city", "Kartenzahlung REWE Markt GmbH, Grünwald", "REWE Markt"},
		{"a legal form with & Co. KG", "DM-Drogerie Markt GmbH & Co. KG", "DM-Drogerie Markt"},
		{"a Dutch legal form", "Netflix International B.V.", "Netflix International"},
		{"a reference after the name", "Spotify P1A2B3C4D5 Stockholm", "Spotify"},
		{"a refund", "Refund from AMZN Mktp US*1A2B3C4D5", "Amazon"},
		{"mixed case is kept", "REWE Markt Grünwald", "REWE Markt Grünwald"},
		{"a short name in capitals keeps them", "DB VERTRIEB", "DB Vertrieb"},
		{"a name with a symbol", "H&M 456 BERLIN", "H&M"},
		{"a number in the name", "7-ELEVEN 33671 DALLAS TX", "7-Eleven"},
		{"an apostrophe", "MCDONALD'S F12345 CHICAGO IL", "Mcdonald's"},
		{"a person", "Anna Berger", "Anna Berger"},
		{"a transfer names nobody", "Transfer 123", ""},
		{"a German transfer", "Überweisung an Anna Berger", ""},
		{"a salary", "Gehalt November", ""},
		{"interest", "Zinsen", ""},
		{"a quarter's closing", "Abschluss per 30.09.2024", ""},
		{"an import's placeholder name", "Imported item", ""},
		{"only a number", "1234567", ""},
		{"nothing", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := merchants.Name(tc.text); got != tc.want {
				t.Errorf("Name(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestNameEuropean reads the merchant out of German, French, Dutch, Spanish and Italian bank
// text, where the words of payment ("Kartenzahlung", "PAIEMENT PAR CARTE", "Betaalautomaat",
// "COMPRA TARJETA", "PAGAMENTO POS") and the references after the name ("KG-Nr", "Mandat",
// "ECH/170226", "CUOTA MARZO", "FATTURA 123") are what "PURCHASE AUTHORIZED ON" and the card's
// number are to a US bank's: they go. Transfers, cash, fees, interest and salaries name nobody.
func TestNameEuropean(t *testing.T) {
	t.Parallel()
	languages := []struct {
		language string
		cases    []struct{ text, want string }
	}{
		{"German", []struct{ text, want string }{
			{"REWE Markt Grünwald Kartenzahlung", "REWE Markt Grünwald"},
			{"Café Müller Kartenzahlung girocard", "Café Müller"},
			{"Aldi Süd Aldi Sagt", "Aldi Süd"},
			{"dm-drogerie markt dm", "dm-drogerie markt"},
			{"Hausverwaltung Krause Miete Hauptstr.", "Hausverwaltung Krause"},
			{"Familienkasse Kindergeld KG-Nr", "Familienkasse"},
			{"SEPA-Basislastschrift Stadtwerke München Mandat M-4711 End-to-End-Ref 2026-03-STROM", "Stadtwerke München"},
			{"Lastschrift Telekom Deutschland GmbH Kundennr 123456789", "Telekom Deutschland"},
			{"Dauerauftrag Sportverein Grünwald e.V. Mitgliedsbeitrag", "Sportverein Grünwald"},
			{"EDEKA SAGT DANKE 12345//Grünwald/DE", "Edeka"},
			{"LIDL SAGT DANKE", "Lidl"},
			{"Kartenzahlung girocard Bäckerei Wimmer Filiale 12", "Bäckerei Wimmer"},
			{"ROSSMANN 2345 GRUENWALD Kartenzahlung", "Rossmann"},
			{"Apotheke am Marienplatz Kartenzahlung girocard 2026-03-12T10:14:22", "Apotheke am Marienplatz"},
			{"Netflix International B.V. SEPA-Lastschrift Mandat 8K3J2H1G", "Netflix International"},
			{"Allianz Versicherungs-AG Beitrag Hausrat Vertrag AS-1234567", "Allianz Versicherungs-AG"},
			{"Gutschrift ACME GmbH Lohn/Gehalt 03/2026", "Acme"},
			{"Auftraggeber: Stadtwerke Musterstadt Buchungstext: Stromabschlag Maerz Ref. 4F5G6H7J8K9L0M1N/2", "Stadtwerke Musterstadt"},
			{"Vodafone GmbH Rechnung 03/2026 Kundennr 123456789", "Vodafone"},
			{"Echtzeitüberweisung an Anna Berger Miete März", ""},
		}},
		{"French", []struct{ text, want string }{
			{"CARTE X1306 17/02 ROMCOCO", "Romcoco"},
			{"PAIEMENT PAR CARTE X1234 MONOPRIX 17/02", "Monoprix"},
			{"PAIEMENT CB 1702 LECLERC DRIVE", "Leclerc Drive"},
			{"CB MONOPRIX 17/02/26", "Monoprix"},
			{"FACTURE CARTE DU 170226 PICARD SURGELES CARTE 4974XXXXXXXX1234", "Picard Surgeles"},
			{"PRLV SEPA ORANGE SA", "Orange"},
			{"PRLV SEPA FREE MOBILE FM-12345678-1", "Free Mobile"},
			{"PRELEVEMENT SEPA BOUYGUES TELECOM ECHEANCE MARS", "Bouygues Telecom"},
			{"PRLV SEPA ENGIE ECH/170226 ID EMETTEUR/FR19ZZZ123456", "Engie"},
			{"CARTE 17/02/26 FNAC CB*1234", "Fnac"},
			{"ACHAT CB SNCF INTERNET 16.02.26 CARTE 1234", "SNCF Internet"},
			{"PAIEMENT PAR CARTE X4421 AMAZON PAYMENTS 15/02", "Amazon Payments"},
			{"PAIEMENT PAR CARTE X4421 SUMUP *CAFE DES AMIS 15/02", "Cafe des Amis"},
			{"CARTE X1306 16/02 PHARMACIE DU MARCHE", "Pharmacie du Marche"},
			{"PAIEMENT SANS CONTACT X1306 BOULANGERIE PAUL 14/02", "Boulangerie Paul"},
			{"PRLV SEPA NETFLIX.COM", "Netflix"},
			{"RETRAIT DAB 17/02 PARIS 11", ""},
			{"FRAIS TENUE DE COMPTE", ""},
			{"COTISATION CARTE VISA PREMIER", ""},
			{"VIREMENT SEPA EMIS VERS Jean Dupont Loyer mars", ""},
		}},
		{"Dutch", []struct{ text, want string }{
			{"BEA, Apple Pay ALBERT HEIJN 1234,PAS123 NR:12345678, 17.02.26/12:34 AMSTERDAM", "Albert Heijn"},
			{"BEA ALBERT HEIJN 1234,PAS123", "Albert Heijn"},
			{"BEA, Betaalpas Etos 1234,PAS123", "Etos"},
			{"Betaalautomaat 17-02-2026 12:34 pasnr. 001 Jumbo", "Jumbo"},
			{"Betaalautomaat HEMA 1234", "Hema"},
			{"iDEAL Thuisbezorgd.nl 1234567890", "Thuisbezorgd"},
			{"iDEAL NS Reizigers B.V.", "NS Reizigers"},
			{"SEPA iDEAL Coolblue B.V. 1234567890", "Coolblue"},
			{"SEPA Incasso algemeen doorlopend Vattenfall Klantenservice N.V.", "Vattenfall Klantenservice"},
			{"Incasso Ziggo B.V. Factuur 123456789", "Ziggo"},
			{"Incasso Eneco Consumenten Termijnbedrag maart", "Eneco Consumenten"},
			{"Albert Heijn 1234 AMSTERDAM NLD Pasvolgnr: 001", "Albert Heijn"},
			{"Kruidvat 7890 UTRECHT NLD", "Kruidvat"},
			{"Apple Pay Jumbo 4321 Rotterdam", "Jumbo"},
			{"Acceptgiro Belastingdienst 1234567890123456", "Belastingdienst"},
			{"SEPA Overboeking J. de Vries Huur maart", ""},
			{"Periodieke overboeking Spaarrekening", ""},
			{"Geldmaat Amsterdam Centraal", ""},
			{"Rente", ""},
			{"Kosten OranjePakket", ""},
		}},
		{"Spanish", []struct{ text, want string }{
			{"COMPRA TARJ. 5540XXXXXXXX1234 MERCADONA VALENCIA ES", "Mercadona"},
			{"PAGO CON TARJETA EN MERCADONA 1234", "Mercadona"},
			{"COMPRA TARJETA 1234 EL CORTE INGLES", "El Corte Ingles"},
			{"RECIBO IBERDROLA CLIENTES SAU", "Iberdrola Clientes"},
			{"RECIBO VODAFONE ESPANA SAU", "Vodafone Espana"},
			{"ADEUDO RECIBO ENDESA ENERGIA SA", "Endesa Energia"},
			{"ADEUDO DOMICILIADO AGUAS DE VALENCIA SA", "Aguas de Valencia"},
			{"ADEUDO SEPA BASIC FIT CUOTA MARZO", "Basic Fit"},
			{"COMPRA EN AMAZON.ES", "Amazon"},
			{"PAGO MOVIL EN CARREFOUR EXPRESS 12345", "Carrefour Express"},
			{"COMPRA TARJ. 5540XXXXXXXX1234 ZARA ESPANA S.A. ES", "Zara Espana"},
			{"DEVOLUCION COMPRA TARJ. 5540XXXXXXXX1234 DECATHLON", "Decathlon"},
			{"RECIBO SANITAS SA DE SEGUROS", "Sanitas"},
			{"PAGO CON TARJETA EN LIDL SUPERMERCADOS S.A.U.", "Lidl Supermercados"},
			{"COMPRA TARJETA REPSOL ESTACION 4567", "Repsol Estacion"},
			{"RECIBO NETFLIX.COM", "Netflix"},
			{"TRANSFERENCIA A FAVOR DE MARIA GARCIA", ""},
			{"BIZUM ENVIADO A JUAN PEREZ", ""},
			{"RETIRADA EFECTIVO CAJERO 1234", ""},
			{"NOMINA ACME SL", ""},
		}},
		{"Italian", []struct{ text, want string }{
			{"PAGAMENTO POS ESSELUNGA CARTA 1234 12/09/2026", "Esselunga"},
			{"PAGAMENTO POS 12/09/2026 ESSELUNGA SPA MILANO", "Esselunga"},
			{"PAGAMENTO POS FARMACIA CENTRALE CARTA 1234", "Farmacia Centrale"},
			{"PAGAMENTO POS 14/09/2026 AUTOGRILL SPA", "Autogrill"},
			{"PAGAMENTO POS LIDL ITALIA SRL 12/09", "Lidl Italia"},
			{"PAGAMENTO TRAMITE POS IKEA ITALIA RETAIL SRL", "Ikea Italia Retail"},
			{"PAGAMENTO CARTA 1234 AMAZON EU SARL", "Amazon EU"},
			{"PAGAMENTO APPLE PAY 12/09 CARREFOUR MARKET", "Carrefour Market"},
			{"PAGOBANCOMAT 12/09/2026 CONAD SUPERSTORE", "Conad Superstore"},
			{"ADDEBITO SDD ENEL ENERGIA SPA", "Enel Energia"},
			{"ADDEBITO DIRETTO SDD FASTWEB SPA", "Fastweb"},
			{"ADDEBITO SDD A2A ENERGIA SPA", "A2A Energia"},
			{"ADDEBITO SDD NETFLIX INTERNATIONAL BV", "Netflix International"},
			{"ADDEBITO SDD VODAFONE ITALIA SPA FATTURA 123", "Vodafone Italia"},
			{"ADDEBITO SDD ASSICURAZIONE GENERALI ITALIA RATA 3", "Assicurazione Generali Italia"},
			{"BONIFICO A VOSTRO FAVORE DA ACME SRL", ""},
			{"PRELIEVO BANCOMAT 12/09 MILANO", ""},
			{"COMMISSIONI BONIFICO", ""},
			{"CANONE MENSILE CONTO", ""},
			{"STIPENDIO ACME SRL", ""},
		}},
	}
	for _, l := range languages {
		if len(l.cases) != 20 {
			t.Errorf("%s: %d descriptors, want twenty", l.language, len(l.cases))
		}
		for _, tc := range l.cases {
			t.Run(l.language+"/"+tc.text, func(t *testing.T) {
				if got := merchants.Name(tc.text); got != tc.want {
					t.Errorf("Name(%q) = %q, want %q", tc.text, got, tc.want)
				}
			})
		}
	}
}
