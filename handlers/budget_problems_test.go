package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/reports"
	"tally/testkit"
)

// TestBudgetProblemsInThePersonsLanguage: a change the budget page refuses says what is wrong
// in the reader's language, a sentence for each field, in the order the budget found them; in
// English it says the budget's own words, as the API does.
func TestBudgetProblemsInThePersonsLanguage(t *testing.T) {
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	type reader struct {
		c    *testkit.Client
		cats map[string]string
		page string
	}
	readers := map[string]reader{}
	for _, lang := range []string{"en", "de"} {
		u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
		if _, err := srv.DB.ExecContext(t.Context(), `UPDATE families SET language = ? WHERE id = ?`, lang, u.FamilyID); err != nil {
			t.Fatal(err)
		}
		c := apptest.NewClient(t, srv)
		c.SignIn(u.Email, testkit.Password)
		readers[lang] = reader{c: c, cats: budgetFamily(t, &importEnv{srv: srv, user: u}, u.FamilyID),
			page: "/budgets/" + reports.MonthOf(u.Family.Today()).String()}
	}
	for _, tc := range []struct {
		name string
		path func(r reader) string
		form func(r reader) url.Values
		en   string // exactly
		de   []string
	}{
		{name: "an amount below zero",
			path: func(r reader) string { return r.page + "/categories/" + r.cats["Rent"] },
			form: func(reader) url.Values { return url.Values{"budgeted": {"-3"}} },
			en:   "budgeted must be zero or more",
			de:   []string{"Gib als Budget einen Betrag von null oder mehr ein"}},
		{name: "an amount that is no number",
			path: func(r reader) string { return r.page + "/categories/" + r.cats["Rent"] },
			form: func(reader) url.Values { return url.Values{"budgeted": {"viel"}} },
			en:   `"viel" is not a number: write it like 1250.00`,
			de:   []string{"Gib als Budget einen Betrag von null oder mehr ein"}},
		{name: "a goal without an amount",
			path: func(r reader) string { return r.page + "/categories/" + r.cats["Rent"] },
			form: func(reader) url.Values { return url.Values{"goal_kind": {"monthly"}} },
			en:   "goal.amount must be an amount more than zero",
			de:   []string{"Gib für das Ziel einen Betrag größer als null ein"}},
		{name: "a move of nothing to the category it comes from",
			path: func(r reader) string { return r.page + "/moves" },
			form: func(r reader) url.Values {
				return url.Values{"from_category_id": {r.cats["Rent"]}, "to_category_id": {r.cats["Rent"]}, "amount": {"0"}}
			},
			en: "to_category_id must be another category than from_category_id; amount must be more than zero",
			de: []string{"Wähle zwei verschiedene deiner Kategorien", "Gib einen Betrag größer als null ein"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, r := range readers {
				v := tc.form(r)
				v.Set("_csrf", csrfOf(t, r.c))
				resp := r.c.Do(http.MethodPost, tc.path(r), strings.NewReader(v.Encode()), map[string]string{
					"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true", "HX-Target": "budget-section"})
				if resp.Status != http.StatusOK {
					t.Fatalf("%s: %d: %s", lang, resp.Status, resp.Body)
				}
				got := resp.TestID(t, "budget-error")
				if lang == "en" && got != tc.en {
					t.Errorf("en: %q, want %q", got, tc.en)
				}
				for _, want := range tc.de {
					if lang == "de" && !strings.Contains(got, want) {
						t.Errorf("de: %q, want it to say %q", got, want)
					}
				}
				if lang == "de" && strings.Contains(got, "must") {
					t.Errorf("de: %q says the API's English", got)
				}
			}
		})
	}
}
