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
		m, err := models.CreateMerchant(ctx, im.d, models.FamilyViewer(im.user.FamilyID), models.MerchantInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	merchant("REWE")
	music := merchant("Music")
	if _, err := rules.Create(ctx, im.d, models.FamilyViewer(im.user.FamilyID), rules.Input{Name: new("Music"),
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
	if _, err := models.UpdateMerchant(ctx, im.d, models.FamilyViewer(im.user.FamilyID), netflix, models.MerchantInput{Name: new("Netflix Abo")}); err != nil {
		t.Fatal(err)
	}
	if err := im.d.NewRaw("SELECT id FROM entries WHERE family_id = ? AND name = 'UBER *TRIP HELP.UBER.COM'", im.user.FamilyID).Scan(ctx, &uber); err != nil {
		t.Fatal(err)
	}
	taxi := merchant("Taxi")
	if _, err := ledger.Update(ctx, im.d, models.FamilyViewer(im.user.FamilyID), uber, ledger.Patch{Merchant: &ledger.Ref{ID: &taxi}}); err != nil {
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
