package handlers_test

import (
	"maps"
	"net/http"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// A German account's export published through the API: each transaction's merchant is the
// name its bank text gives, without the words of payment and the references a German bank
// adds ("Kartenzahlung girocard", "SAGT DANKE", "Miete Hauptstr.", "KG-Nr"); one merchant for
// the texts that name the same, and none for a transfer.
func TestPublishedGermanTextsNameTheirMerchants(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "1000")
	csv := "Buchungstag;Buchungstext;Betrag\n" +
		"02.03.2026;REWE Markt Grünwald Kartenzahlung;-23,45\n" +
		"03.03.2026;Café Müller Kartenzahlung girocard;-8,50\n" +
		"04.03.2026;Aldi Süd Aldi Sagt;-31,62\n" +
		"05.03.2026;dm-drogerie markt dm;-12,95\n" +
		"06.03.2026;Hausverwaltung Krause Miete Hauptstr.;-950,00\n" +
		"07.03.2026;Familienkasse Kindergeld KG-Nr;250,00\n" +
		"09.03.2026;REWE Markt Grünwald Kartenzahlung girocard;-41,10\n" +
		"10.03.2026;Überweisung an Anna Berger;-50,00\n"
	b := e.publish(t, map[string]any{"account_id": acct.ID.String(), "raw_file_content": csv})
	if b.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", b.Data.Status, deref(b.Data.Error))
	}

	var merchants struct {
		Data []struct{ ID, Name string } `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/merchants?per_page=100", e.read, nil).JSON(t, &merchants)
	named := map[string]string{}
	for _, m := range merchants.Data {
		named[m.ID] = m.Name
	}
	var list struct {
		Data []struct {
			Name       string  `json:"name"`
			MerchantID *string `json:"merchant_id"`
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/transactions?per_page=100&account_id="+acct.ID.String(), e.read, nil).JSON(t, &list)
	got := map[string]string{}
	for _, tx := range list.Data {
		got[tx.Name] = ""
		if tx.MerchantID != nil {
			got[tx.Name] = named[*tx.MerchantID]
		}
	}
	want := map[string]string{
		"REWE Markt Grünwald Kartenzahlung":          "REWE Markt Grünwald",
		"REWE Markt Grünwald Kartenzahlung girocard": "REWE Markt Grünwald",
		"Café Müller Kartenzahlung girocard":         "Café Müller",
		"Aldi Süd Aldi Sagt":                         "Aldi Süd",
		"dm-drogerie markt dm":                       "dm-drogerie markt",
		"Hausverwaltung Krause Miete Hauptstr.":      "Hausverwaltung Krause",
		"Familienkasse Kindergeld KG-Nr":             "Familienkasse",
		"Überweisung an Anna Berger":                 "",
	}
	if !maps.Equal(got, want) {
		t.Errorf("merchants by bank text:\n got %v\nwant %v", got, want)
	}
	if len(merchants.Data) != 6 {
		t.Errorf("%d merchants, want the 6 the texts name", len(merchants.Data))
	}
}
