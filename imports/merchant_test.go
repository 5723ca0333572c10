package imports_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/imports"
	"tally/ledger"
	"tally/models"
	"tally/rules"
)

// TestMerchantName reads the merchant out of what banks and card networks write, on
// descriptors as they appear in US, UK and German statements and CSV exports.
func TestMerchantName(t *testing.T) {
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
			if got := imports.MerchantName(tc.text); got != tc.want {
				t.Errorf("MerchantName(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestPublishDerivesMerchants publishes a file twice into a family that has a merchant of its
// own and a rule: each bank text gets its merchant, the family's own by its name or the start
// of it, one new merchant for texts that name the same, none for a transfer, and the rule's
// where it sets one; the second file finds the merchants again after a person renamed one and
// chose another for a text by hand.
func TestPublishDerivesMerchants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	im := newImporter(t)
	acct := im.account("Girokonto")
	merchant := func(name string) uuid.UUID {
		m, err := models.CreateMerchant(ctx, im.d, im.user.FamilyID, models.MerchantInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	merchant("REWE")
	music := merchant("Music")
	if _, err := rules.Create(ctx, im.d, im.user.FamilyID, rules.Input{Name: new("Music"),
		Conditions: &[]rules.Condition{{Type: "transaction_name", Operator: "like", Value: "spotify"}},
		Actions:    &[]rules.Action{{Type: "set_transaction_merchant", Value: music.String()}}}); err != nil {
		t.Fatal(err)
	}
	merchants := func() map[string]string { // the merchant of each transaction, by its bank text
		t.Helper()
		var rows []struct {
			Name     string `bun:"name"`
			Merchant string `bun:"merchant"`
		}
		if err := im.d.NewRaw(`SELECT coalesce(e.original_name, e.name) AS name, coalesce(m.name, '') AS merchant
			FROM entries e LEFT JOIN merchants m ON m.id = e.merchant_id WHERE e.family_id = ? AND e.kind = 'transaction'`, im.user.FamilyID).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			out[r.Name] = r.Merchant
		}
		return out
	}
	first := im.upload("date,amount,name\n"+
		"2025-03-01,-13.99,REWE Markt Grünwald\n"+
		"2025-03-02,-4.50,SQ *BLUE BOTTLE COFFEE\n"+
		"2025-03-03,-4.80,PURCHASE AUTHORIZED ON 03/03 SQ *BLUE BOTTLE COFFEE San Francisco CA S583337456789012 CARD 1234\n"+
		"2025-03-04,-9.99,PAYPAL *NETFLIX.COM 4029357733\n"+
		"2025-03-05,-9.99,NETFLIX.COM LOS GATOS CA\n"+
		"2025-03-06,-10.99,Spotify P1A2B3C4D5 Stockholm\n"+
		"2025-03-07,-500.00,Transfer to savings\n"+
		"2025-03-08,-22.00,UBER *TRIP HELP.UBER.COM\n", &acct)
	if status := im.publish(first.ID); status != imports.StatusComplete {
		t.Fatalf("the first file ended %s", status)
	}
	want := map[string]string{
		"REWE Markt Grünwald":            "REWE",
		"SQ *BLUE BOTTLE COFFEE":         "Blue Bottle Coffee",
		"PAYPAL *NETFLIX.COM 4029357733": "Netflix",
		"NETFLIX.COM LOS GATOS CA":       "Netflix",
		"Spotify P1A2B3C4D5 Stockholm":   "Music",
		"Transfer to savings":            "",
		"UBER *TRIP HELP.UBER.COM":       "Uber",
		"PURCHASE AUTHORIZED ON 03/03 SQ *BLUE BOTTLE COFFEE San Francisco CA S583337456789012 CARD 1234": "Blue Bottle Coffee",
	}
	if got := merchants(); !maps.Equal(got, want) {
		t.Errorf("merchants after the first file:\n got %v\nwant %v", got, want)
	}
	var created []string
	if err := im.d.NewRaw("SELECT name FROM merchants WHERE family_id = ? AND import_id = ? ORDER BY name", im.user.FamilyID, first.ID).Scan(ctx, &created); err != nil {
		t.Fatal(err)
	}
	// One merchant for each name, none for Spotify, whose transactions the rule gave Music.
	if strings.Join(created, "|") != "Blue Bottle Coffee|Netflix|Uber" {
		t.Errorf("the import created merchants %q", created)
	}

	// A person renames Netflix, and gives an Uber transaction another merchant by hand.
	var netflix, uber uuid.UUID
	if err := im.d.NewRaw("SELECT id FROM merchants WHERE family_id = ? AND name = 'Netflix'", im.user.FamilyID).Scan(ctx, &netflix); err != nil {
		t.Fatal(err)
	}
	if _, err := models.UpdateMerchant(ctx, im.d, im.user.FamilyID, netflix, models.MerchantInput{Name: new("Netflix Abo")}); err != nil {
		t.Fatal(err)
	}
	if err := im.d.NewRaw("SELECT id FROM entries WHERE family_id = ? AND name = 'UBER *TRIP HELP.UBER.COM'", im.user.FamilyID).Scan(ctx, &uber); err != nil {
		t.Fatal(err)
	}
	taxi := merchant("Taxi")
	if _, err := ledger.Update(ctx, im.d, im.user.FamilyID, uber, ledger.Patch{Merchant: &ledger.Ref{ID: &taxi}}); err != nil {
		t.Fatal(err)
	}
	second := im.upload("date,amount,name\n"+
		"2025-04-01,-9.99,NETFLIX.COM AMSTERDAM NL\n"+
		"2025-04-02,-21.00,UBER *TRIP HELP.UBER.COM\n"+
		"2025-04-03,-3.20,REWE SAGT DANKE 45012345\n"+
		"2025-04-04,-4.50,sq *blue bottle coffee\n", &acct)
	if status := im.publish(second.ID); status != imports.StatusComplete {
		t.Fatalf("the second file ended %s", status)
	}
	got := merchants()
	for text, want := range map[string]string{
		"NETFLIX.COM AMSTERDAM NL": "Netflix Abo", // the name it was made from, after the rename
		"UBER *TRIP HELP.UBER.COM": "Taxi",        // the person's choice for this text
		"REWE SAGT DANKE 45012345": "REWE",        // the family's merchant starts the name
		"sq *blue bottle coffee":   "Blue Bottle Coffee",
	} {
		if got[text] != want {
			t.Errorf("%q has merchant %q, want %q", text, got[text], want)
		}
	}
	var n int
	if err := im.d.NewRaw("SELECT count(*) FROM merchants WHERE family_id = ?", im.user.FamilyID).Scan(ctx, &n); err != nil || n != 6 {
		t.Errorf("the family has %d merchants, want 6: REWE, Music, Taxi and three made by the first file (err %v)", n, err)
	}
}
