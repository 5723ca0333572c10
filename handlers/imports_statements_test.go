package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tally/internal/apptest"
	"tally/internal/testkit"
)

// statementPage uploads a statement file for review and returns its import page.
func (e *importPageEnv) statementPage(t *testing.T, typ, content string) *testkit.Response {
	t.Helper()
	var b importBody
	e.create(t, map[string]any{"type": typ, "raw_file_content": content}, http.StatusCreated).JSON(t, &b)
	r := e.c.Get("/imports/" + b.Data.ID)
	wantPage(t, r, http.StatusOK)
	return r
}

// The review of a statement file reads as the CSV preview does: amounts are money in the
// person's number style and the entry's currency, not "-45.6"; the notes are the bank's words,
// and its references and codes ("Bank code: NDDT+105") sit apart, in the details; the account is
// shown as the statement's header shows it, a card's number masked.
func TestStatementReviewShowsMoneyWordsAndMaskedCards(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{NoWorker: true})
	if _, err := e.srv.DB.NewRaw("UPDATE families SET locale = 'de-DE' WHERE id = ?", e.user.FamilyID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}

	doc := e.statementPage(t, "auto", germanMT940).Doc(t)
	var got []string
	doc.Find(`[data-testid="file-row"]`).Each(func(_ int, row *goquery.Selection) { got = append(got, strings.Join(cells(row)[2:], " | ")) })
	want := []string{
		"2026-03-02 | …3000 | ACME GMBH | 2.500,00 € | EUR | Gehalt Maerz 2026 | Funds code: R Booking text: GEHALT Reference: PAYROLL-03 Bank code: NTRF+153",
		"2026-03-03 | …3000 | BAECKEREI | -45,60 € | EUR | Brot und Kuchen | Funds code: R Booking text: SEPA-LASTSCHRIFT Mandate: M-77 Creditor id: DE98ZZZ09999999999 Reference: R1 Bank code: NDDT+105",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	card := strings.Replace(cardOFX, "<ACCTID>4111222233334444", "<ACCTID>4266841234564821", 1)
	card = strings.Replace(card, "<MEMO>Meter 44", "<MEMO>Card 4266841234564821 at meter 44", 1)
	page := e.statementPage(t, "OfxImport", card)
	text := strings.Join(strings.Fields(page.Doc(t).Find("main").Text()), " ")
	if strings.Contains(text, "4266841234564821") || !strings.Contains(text, "Card …4821 at meter 44") || !strings.Contains(text, "-42,17 $") {
		t.Errorf("the card statement's page reads:\n%s", text)
	}
	if n := strings.Count(text, "…4821"); n < 4 {
		t.Errorf("the masked card is shown %d times", n)
	}

	// A CSV's preview writes its money the same way.
	csv := e.c.Get("/imports/" + e.createImport(t, importPageCSV, nil)).Doc(t)
	if got := strings.Join(strings.Fields(csv.Find(`[data-testid="file-row-read"]`).Text()), " "); !strings.Contains(got, "money out 12,50 $") {
		t.Errorf("the CSV's row reads as %q", got)
	}
}
