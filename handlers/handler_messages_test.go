package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// reader is a family reading Tally in one language, signed in, with an account.
type reader struct {
	c    *testkit.Client
	user *models.User
	acct *models.Account
}

// readersOf are an English and a German family on srv, by language.
func readersOf(t *testing.T, srv *apptest.Server) map[string]reader {
	t.Helper()
	readers := map[string]reader{}
	for _, lang := range []string{"en", "de"} {
		u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
		if _, err := srv.DB.NewUpdate().Model((*models.Family)(nil)).Set("language = ?", lang).Where("id = ?", u.FamilyID).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		c := apptest.NewClient(t, srv)
		c.SignIn(u.Email, testkit.Password)
		readers[lang] = reader{c: c, user: u, acct: testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "100")}
	}
	return readers
}

// TestTransactionFormSpeaksTheReadersLanguage: adding a transaction by hand says what it did,
// and what is wrong with the form, in the family's language; English as it always has.
func TestTransactionFormSpeaksTheReadersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	readers := readersOf(t, srv)
	for _, tc := range []struct {
		name   string
		form   url.Values
		testID string
		want   map[string]string // by language, exactly
	}{
		{name: "added", form: url.Values{"date": {"2026-03-02"}, "amount": {"12,50"}, "direction": {"out"}, "name": {"Bäcker"}},
			testID: "flash-success",
			want:   map[string]string{"en": "Transaction “Bäcker” added.", "de": "Buchung „Bäcker“ hinzugefügt."}},
		{name: "no amount", form: url.Values{"date": {"2026-03-02"}, "direction": {"out"}, "name": {"Bäcker"}},
			testID: "error-amount",
			want:   map[string]string{"en": "Amount is required.", "de": "Gib einen Betrag ein."}},
		{name: "no description", form: url.Values{"date": {"2026-03-02"}, "amount": {"3"}, "direction": {"out"}},
			testID: "error-name",
			want:   map[string]string{"en": "Description is required.", "de": "Gib eine Beschreibung ein."}},
		{name: "an amount that is no number", form: url.Values{"date": {"2026-03-02"}, "amount": {"viel"}, "direction": {"out"}, "name": {"Bäcker"}},
			testID: "error-amount",
			want: map[string]string{"en": `Amount: "viel" is not a number: write it like 1250.00`,
				"de": "Gib den Betrag als Zahl ein, etwa 1250,00, mit höchstens so vielen Nachkommastellen, wie die Währung hat."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, r := range readers {
				path := "/accounts/" + r.acct.ID.String()
				page := r.c.Get(path + "/transactions/new")
				if lang == "de" {
					if got := page.Doc(t).Find(`[data-testid="field-category_id"] option[value=""]`).Text(); got != "— den Regeln überlassen" {
						t.Errorf("de: the category left open is %q", got)
					}
				}
				resp := r.c.PostForm(path+"/transactions", tc.form)
				if resp.Status == http.StatusSeeOther {
					resp = r.c.Get(resp.Header.Get("Location"))
				}
				if got := resp.TestID(t, tc.testID); got != tc.want[lang] {
					t.Errorf("%s: %q, want %q", lang, got, tc.want[lang])
				}
			}
		})
	}
}

// TestTransactionEditSpeaksTheReadersLanguage: the edit form offers no category and no
// merchant in the family's language, and a bulk change that sets nothing says why in it.
func TestTransactionEditSpeaksTheReadersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	readers := readersOf(t, srv)
	noCategory := map[string]string{"en": "— none", "de": "— keine"}
	noMerchant := map[string]string{"en": "— none", "de": "— keiner"}
	nothing := map[string]string{"en": "Nothing changed: Choose a category, a merchant or a tag to set.",
		"de": "Nichts geändert: Wähle eine Kategorie, einen Händler oder ein Schlagwort, das gesetzt werden soll."}
	for lang, r := range readers {
		path := "/accounts/" + r.acct.ID.String()
		r.c.Get(path + "/transactions/new")
		resp := r.c.PostForm(path+"/transactions", url.Values{"date": {"2026-03-02"}, "amount": {"3"}, "direction": {"out"}, "name": {"Kiosk"}})
		if resp.Status != http.StatusSeeOther {
			t.Fatalf("%s: add: %d\n%s", lang, resp.Status, resp.Body)
		}
		var id string
		if err := srv.DB.NewRaw(`SELECT id::text FROM entries WHERE family_id = ? AND name = 'Kiosk'`, r.user.FamilyID).Scan(t.Context(), &id); err != nil {
			t.Fatal(err)
		}
		doc := r.c.Get("/transactions/" + id).Doc(t)
		if got := doc.Find(`select[name="category_id"] option[value=""]`).Text(); got != noCategory[lang] {
			t.Errorf("%s: no category is %q, want %q", lang, got, noCategory[lang])
		}
		if got := doc.Find(`select[name="merchant_id"] option[value=""]`).Text(); got != noMerchant[lang] {
			t.Errorf("%s: no merchant is %q, want %q", lang, got, noMerchant[lang])
		}
		r.c.Get("/transactions")
		resp = r.c.PostForm("/transactions/bulk", url.Values{"ids": {id}, "return": {"/transactions"}})
		if resp.Status != http.StatusSeeOther {
			t.Fatalf("%s: bulk: %d\n%s", lang, resp.Status, resp.Body)
		}
		if got := r.c.Get(resp.Header.Get("Location")).TestID(t, "flash-error"); got != nothing[lang] {
			t.Errorf("%s: a bulk change of nothing: %q, want %q", lang, got, nothing[lang])
		}
		if strings.Contains(doc.Text(), "— none") && lang == "de" {
			t.Errorf("de: the edit form says “— none”")
		}
	}
}

// TestErrorPagesSpeakTheReadersLanguage: a page that is not found, or a form that expired,
// says so in the family's language (English with the error's own words, as before), while
// the API's JSON says the same English to every reader.
func TestErrorPagesSpeakTheReadersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	readers := readersOf(t, srv)
	missing := "/transactions/" + uuid.NewString()
	for _, tc := range []struct {
		name   string
		send   func(r reader) *testkit.Response
		status int
		want   map[string]string
	}{
		{name: "a transfer's side that is no id", send: func(r reader) *testkit.Response { return r.c.Get("/transfers/new?from=nonsense") },
			status: http.StatusNotFound,
			want:   map[string]string{"en": "Transaction not found", "de": "Was du aufrufen wolltest, gibt es nicht."}},
		{name: "a transaction that does not exist", send: func(r reader) *testkit.Response { return r.c.Get(missing) },
			status: http.StatusNotFound,
			want:   map[string]string{"en": "Transaction not found", "de": "Was du aufrufen wolltest, gibt es nicht."}},
		{name: "a form without the page's token", send: func(r reader) *testkit.Response {
			return r.c.PostForm("/transactions/bulk", url.Values{"_csrf": {"stale"}})
		},
			status: http.StatusForbidden,
			want: map[string]string{"en": "This form has expired. Reload the page and try again.",
				"de": "Dieses Formular ist abgelaufen. Lade die Seite neu und versuch es noch einmal."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, r := range readers {
				r.c.Get("/transactions")
				resp := tc.send(r)
				if resp.Status != tc.status {
					t.Fatalf("%s: %d, want %d", lang, resp.Status, tc.status)
				}
				if got := resp.TestID(t, "error-message"); got != tc.want[lang] {
					t.Errorf("%s: %q, want %q", lang, got, tc.want[lang])
				}
			}
		})
	}
	// The API's answer is English, whatever the family's language.
	for lang, r := range readers {
		key := testkit.MustCreateAPIKey(t, srv.DB, r.user.ID, "read")
		resp := r.c.Do(http.MethodGet, "/api/v1"+missing, nil, map[string]string{"X-Api-Key": key, "Accept-Language": "de"})
		if resp.Status != http.StatusNotFound || !strings.Contains(resp.Body, `"message":"The requested resource was not found"`) {
			t.Errorf("%s: the API answered %d: %s", lang, resp.Status, resp.Body)
		}
	}
}

// TestTransferRefusalsSpeakTheReadersLanguage: a link the transfers page refuses says why in
// the family's language; in English, with the API's words, as before.
func TestTransferRefusalsSpeakTheReadersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	readers := readersOf(t, srv)
	for _, tc := range []struct {
		name   string
		to     []string // the other side: in the same account or not, and which way
		amount string   // of both sides: each case its own, so that no case's side pairs with another's
		want   map[string]string
	}{
		{name: "both sides in one account", to: []string{"same", "in"}, amount: "40",
			want: map[string]string{"en": "to_transaction_id is in the same account: a transfer moves money between two accounts",
				"de": "Die Gegenseite ist auf demselben Konto: Eine Umbuchung bewegt Geld zwischen zwei Konten."}},
		{name: "both sides money out", to: []string{"other", "out"}, amount: "55",
			want: map[string]string{"en": "to_transaction_id must go the other way: one side of a transfer is money out, the other money in",
				"de": "Die Gegenseite muss in die andere Richtung gehen: Eine Seite einer Umbuchung ist ein Ausgang, die andere ein Eingang."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, r := range readers {
				other := testkit.MustCreateAccount(t, srv.DB, r.user.FamilyID, "Savings "+tc.name, "Depository", "0")
				add := func(acct, direction, name string) string {
					r.c.Get("/accounts/" + acct + "/transactions/new")
					resp := r.c.PostForm("/accounts/"+acct+"/transactions", url.Values{"date": {"2026-03-02"}, "amount": {tc.amount}, "direction": {direction}, "name": {name}})
					if resp.Status != http.StatusSeeOther {
						t.Fatalf("%s: add %s: %d\n%s", lang, name, resp.Status, resp.Body)
					}
					var id string
					if err := srv.DB.NewRaw(`SELECT id::text FROM entries WHERE family_id = ? AND name = ?`, r.user.FamilyID, name).Scan(t.Context(), &id); err != nil {
						t.Fatal(err)
					}
					return id
				}
				toAcct := r.acct.ID.String()
				if tc.to[0] == "other" {
					toAcct = other.ID.String()
				}
				from, to := add(r.acct.ID.String(), "out", "From "+tc.name), add(toAcct, tc.to[1], "To "+tc.name)
				r.c.Get("/transfers/new?from=" + from)
				resp := r.c.PostForm("/transfers", url.Values{"from_transaction_id": {from}, "to_transaction_id": {to}})
				if resp.Status != http.StatusSeeOther {
					t.Fatalf("%s: link: %d\n%s", lang, resp.Status, resp.Body)
				}
				if got := r.c.Get(resp.Header.Get("Location")).TestID(t, "flash-error"); got != tc.want[lang] {
					t.Errorf("%s: %q, want %q", lang, got, tc.want[lang])
				}
			}
		})
	}
}

// TestRecurringFormProblemsSpeakTheReadersLanguage: the edit form of a recurring series says
// what is wrong with a field in the family's language; in English, the series' own words,
// which the API says too.
func TestRecurringFormProblemsSpeakTheReadersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	readers := readersOf(t, srv)
	form := url.Values{"name": {" "}, "amount": {"0"}, "interval": {"weekly"}, "next_date": {"2026-03-02"}, "status": {"confirmed"}}
	want := map[string]map[string]string{
		"en": {"error-name": "Name can't be blank", "error-amount": "Amount must not be zero: money out is positive, money in negative"},
		"de": {"error-name": "Gib einen Namen mit höchstens 200 Zeichen ein.",
			"error-amount": "Gib einen Betrag ungleich null ein, etwa 12,50: Ausgehendes Geld ist positiv, eingehendes negativ."},
	}
	for lang, r := range readers {
		testkit.MustCreateSeries(t, srv.DB, r.user.FamilyID, nil, 1, "proposed")
		var id string
		if err := srv.DB.NewRaw(`SELECT id::text FROM recurring_transactions WHERE family_id = ?`, r.user.FamilyID).Scan(t.Context(), &id); err != nil {
			t.Fatal(err)
		}
		r.c.Get("/recurring/" + id + "/edit")
		resp := r.c.PostForm("/recurring/"+id, form)
		if resp.Status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d\n%s", lang, resp.Status, resp.Body)
		}
		for testID, text := range want[lang] {
			if got := resp.TestID(t, testID); got != text {
				t.Errorf("%s: %s says %q, want %q", lang, testID, got, text)
			}
		}
	}
}
