package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tally/app/apptest"
	"tally/testkit"
)

// Search folds German both ways, through the API and on the transactions page: typed without
// a German keyboard, "gruenwald" finds the card payment at "REWE Markt Grünwald" and the
// bakery a bank wrote out as "Baeckerei Gruenwald"; typed with one, "grünwald" finds both too.
// "strasse" and "straße" are one, and an "ue" that is no umlaut finds no "u" ("blue" is not in
// "Blumenhaus").
func TestSearchFindsGermanSpelledEitherWay(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "").ID.String()
	for _, name := range []string{"REWE Markt Grünwald", "Baeckerei Gruenwald", "Parkhaus Hauptstrasse", "Blumenhaus Berger"} {
		e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-11-02", "amount": "9.80", "name": name})
	}
	page := apptest.NewClient(t, e.srv)
	page.SignIn(e.user.Email, testkit.Password)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"gruenwald", []string{"Baeckerei Gruenwald", "REWE Markt Grünwald"}},
		{"grünwald", []string{"Baeckerei Gruenwald", "REWE Markt Grünwald"}},
		{"Bäckerei", []string{"Baeckerei Gruenwald"}},
		{"straße", []string{"Parkhaus Hauptstrasse"}},
		{"blue", nil},
	} {
		var list struct {
			Data []struct{ Name string } `json:"data"`
		}
		e.c.API(http.MethodGet, "/api/v1/transactions?q="+url.QueryEscape(c.query), e.read, nil).JSON(t, &list)
		var api []string
		for _, tx := range list.Data {
			api = append(api, tx.Name)
		}
		var shown []string
		page.Get("/transactions?q=" + url.QueryEscape(c.query)).Doc(t).Find(`[data-testid="tx-row"]`).Each(func(_ int, row *goquery.Selection) {
			for _, name := range []string{"REWE Markt Grünwald", "Baeckerei Gruenwald", "Parkhaus Hauptstrasse", "Blumenhaus Berger"} {
				if strings.Contains(row.Text(), name) {
					shown = append(shown, name)
				}
			}
		})
		slices.Sort(api)
		slices.Sort(shown)
		if !slices.Equal(api, c.want) || !slices.Equal(shown, c.want) {
			t.Errorf("%q finds %q through the API and %q on the page, want %q", c.query, api, shown, c.want)
		}
	}
}
