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
