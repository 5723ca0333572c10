package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
)

func TestOnboarding(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	c := apptest.NewClient(t, srv)

	for _, path := range []string{"/", "/sessions/new", "/accounts"} {
		if r := c.Get(path); r.Status != http.StatusSeeOther || r.Location() != "/onboarding" {
			t.Fatalf("GET %s on a new instance: %d → %q, want /onboarding", path, r.Status, r.Location())
		}
	}
	page := c.Get("/onboarding")
	if page.Status != http.StatusOK || !page.Has(t, "onboarding-form") || !page.Has(t, "field-timezone") {
		t.Fatalf("onboarding page: %d", page.Status)
	}
	// A login is a sign-in here: an account is a bank account.
	if text := page.Doc(t).Find("main").Text(); strings.Contains(strings.ToLower(text), "account;") ||
		strings.Contains(text, "Create family and account") || !strings.Contains(text, "sign in") {
		t.Errorf("the onboarding calls the login an account: %q", strings.Join(strings.Fields(text), " "))
	}

	// Every problem is reported at once, and nothing is created.
	r := c.PostForm("/onboarding", url.Values{"family_name": {" "}, "email": {"not-an-email"}, "password": {"short"}})
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid onboarding: %d", r.Status)
	}
	for id, want := range map[string]string{
		"error-family_name": "Family name can't be blank",
		"error-password":    "Password must be at least 8 characters",
	} {
		if got := r.TestID(t, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if v, _ := r.Doc(t).Find(`[data-testid="field-email"]`).Attr("value"); v != "not-an-email" {
		t.Errorf("typed email not kept: %q", v)
	}
	if n, _ := models.CountUsers(t.Context(), srv.DB); n != 0 {
		t.Fatalf("%d users after a refused onboarding", n)
	}

	r = c.PostForm("/onboarding", url.Values{"family_name": {"The Smiths"}, "first_name": {"Ada"}, "email": {"Ada@Example.com"},
		"password": {"a long enough password"}, "currency": {"EUR"}, "timezone": {"Europe/Paris"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("onboarding: %d → %q\n%s", r.Status, r.Location(), r.Body)
	}
	dash := c.Get("/")
	if dash.Status != http.StatusOK || dash.TestID(t, "family-name") != "The Smiths" || dash.TestID(t, "current-user") != "Ada" {
		t.Fatalf("dashboard after onboarding: %d family %q user %q", dash.Status, dash.TestID(t, "family-name"), dash.TestID(t, "current-user"))
	}
	u, err := models.UserByEmail(t.Context(), srv.DB, "ada@example.com")
	if err != nil || u.Role != models.RoleSuperAdmin || !u.FamilyCreator || u.Family.Currency != "EUR" || u.Family.Timezone != "Europe/Paris" {
		t.Fatalf("first user: %+v (err %v)", u, err)
	}

	// Once set up, onboarding is closed.
	other := apptest.NewClient(t, srv)
	if r := other.Get("/onboarding"); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("onboarding after setup: %d → %q", r.Status, r.Location())
	}
	r = other.PostForm("/onboarding", url.Values{"family_name": {"Intruders"}, "email": {"eve@example.com"}, "password": {"a long enough password"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("second onboarding: %d → %q", r.Status, r.Location())
	}
	if n, _ := models.CountUsers(t.Context(), srv.DB); n != 1 {
		t.Fatalf("second onboarding created a user: %d users", n)
	}
}

// TestOnboardingUnderRequiredMFA is a new instance with AUTH_REQUIRE_MFA=admins: its first
// user, a super admin, sets up a second factor before anything else.
func TestOnboardingUnderRequiredMFA(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_REQUIRE_MFA": "admins"}})
	c := apptest.NewClient(t, srv)
	c.Get("/onboarding")
	r := c.PostForm("/onboarding", url.Values{"family_name": {"The Smiths"}, "email": {"ada@example.com"}, "password": {"a long enough password"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("onboarding: %d", r.Status)
	}
	if r := c.Get("/"); r.Status != http.StatusSeeOther || r.Location() != "/settings/mfa/totp/new" {
		t.Fatalf("after onboarding, GET / → %d %q, want the second factor's set-up", r.Status, r.Location())
	}
}

// TestOnboardingStarterCategories is the first family's choice of starting with common
// categories: offered ticked, previewed in the language of the browser or of the number style
// chosen, and created in that language, parents with subcategories that share their colour;
// or not at all when unticked.
func TestOnboardingStarterCategories(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, acceptLanguage, locale string
		starter                      bool
		want                         map[string]string // a subcategory, with its parent, among those created
	}{
		{"English, as the browser asks", "en-GB,en;q=0.9", "en-GB", true, map[string]string{"Groceries": "Food & drink", "Salary": "Income"}},
		{"German, as the browser asks", "de-DE,de;q=0.9", "de-DE", true, map[string]string{"Lebensmittel": "Essen & Trinken", "Gehalt": "Einnahmen"}},
		{"German, chosen in an English browser", "en-US", "de-CH", true, map[string]string{"Lebensmittel": "Essen & Trinken"}},
		{"none, unticked", "de-DE", "de-DE", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := apptest.StartServer(t, apptest.ServerOptions{})
			c := apptest.NewClient(t, srv)

			page := c.Do(http.MethodGet, "/onboarding", nil, map[string]string{"Accept-Language": tc.acceptLanguage})
			d := page.Doc(t)
			if _, ticked := d.Find(`[data-testid="field-starter_categories"]`).Attr("checked"); !ticked {
				t.Error("the starter categories are not ticked at first")
			}
			wantFirst := map[bool]string{true: "Einnahmen", false: "Income"}[strings.HasPrefix(tc.acceptLanguage, "de")]
			if got := d.Find(`[data-testid="starter-category-name"]`).First().Text(); got != wantFirst {
				t.Errorf("the preview starts with %q, want %q", got, wantFirst)
			}
			// Choosing another number style previews the categories in its language.
			preview := c.Do(http.MethodGet, "/onboarding?locale="+tc.locale, nil, map[string]string{"HX-Request": "true", "HX-Target": "starter-categories"})
			wantFirst = map[bool]string{true: "Einnahmen", false: "Income"}[strings.HasPrefix(tc.locale, "de")]
			if got := preview.Doc(t).Find(`[data-testid="starter-category-name"]`).First().Text(); got != wantFirst || strings.Contains(preview.Body, "<form") {
				t.Errorf("the preview for %s starts with %q, want %q alone", tc.locale, got, wantFirst)
			}

			form := url.Values{"family_name": {"The Bergers"}, "email": {"anna@example.com"}, "password": {"a long enough password"},
				"currency": {"EUR"}, "locale": {tc.locale}, "_submitted": {"1"}}
			if tc.starter {
				form.Set("starter_categories", "1")
			}
			// A refused form keeps the choice and the preview's language.
			form.Set("password", "short")
			refused := c.PostForm("/onboarding", form)
			d = refused.Doc(t)
			if _, ticked := d.Find(`[data-testid="field-starter_categories"]`).Attr("checked"); refused.Status != http.StatusUnprocessableEntity || ticked != tc.starter ||
				d.Find(`[data-testid="starter-category-name"]`).First().Text() != wantFirst {
				t.Errorf("a refused form: %d, ticked %v, preview %q", refused.Status, ticked, d.Find(`[data-testid="starter-category-name"]`).First().Text())
			}
			form.Set("password", "a long enough password")
			if r := c.PostForm("/onboarding", form); r.Status != http.StatusSeeOther {
				t.Fatalf("onboarding: %d\n%s", r.Status, r.Body)
			}
			u, err := models.UserByEmail(t.Context(), srv.DB, "anna@example.com")
			if err != nil || u.Family.Locale != tc.locale {
				t.Fatalf("the family's number style: %v (err %v)", u.Family, err)
			}
			all, err := models.AllCategories(t.Context(), srv.DB, models.FamilyViewer(u.FamilyID))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.starter {
				if len(all) != 0 {
					t.Errorf("unticked, the family starts with %d categories", len(all))
				}
				return
			}
			byID := map[uuid.UUID]models.Category{}
			parents := 0
			for _, c := range all {
				byID[c.ID] = c
				if c.ParentID == nil {
					parents++
				}
			}
			if parents < 10 || len(all) < 2*parents {
				t.Errorf("%d categories, %d of them parents: not a set with subcategories", len(all), parents)
			}
			for sub, parent := range tc.want {
				i := slices.IndexFunc(all, func(c models.Category) bool { return c.Name == sub })
				if i < 0 || all[i].ParentID == nil {
					t.Errorf("no subcategory %q", sub)
					continue
				}
				p := byID[*all[i].ParentID]
				if p.Name != parent || all[i].Color != p.Color || !models.ValidColor(p.Color) || p.Color == models.DefaultCategoryColor || all[i].Classification != p.Classification {
					t.Errorf("%q is under %q (%s, %s), want under %q with its colour and classification", sub, p.Name, all[i].Color, all[i].Classification, parent)
				}
			}
			// They are the family's own: listed on the categories page, which offers to edit each.
			if r := c.Get("/categories"); r.Doc(t).Find(`[data-testid="category-row"]`).Length() != len(all) {
				t.Errorf("the categories page does not list the %d categories", len(all))
			}
		})
	}
}

// TestOnboardingOffersTheLanguagesCurrencyAndDates is the German household: a German
// browser, or Deutsch (Deutschland) chosen, is offered euros and 04.12.2026, not dollars and
// 2026-12-04, and the family keeps what the form sent.
func TestOnboardingOffersTheLanguagesCurrencyAndDates(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	c := apptest.NewClient(t, srv)
	selected := func(d *goquery.Document, field string) string {
		v, _ := d.Find(`[data-testid="field-` + field + `"] option[selected]`).Attr("value")
		return v
	}
	d := c.Do(http.MethodGet, "/onboarding", nil, map[string]string{"Accept-Language": "de-DE,de;q=0.9"}).Doc(t)
	if cur, df := selected(d, "currency"), selected(d, "date_format"); cur != "EUR" || df != "%d.%m.%Y" {
		t.Errorf("a German browser is offered %s and %s, want EUR and %%d.%%m.%%Y", cur, df)
	}
	// Chosen in an English browser, the language brings its currency and dates along.
	d = c.Do(http.MethodGet, "/onboarding?locale=de-DE", nil, map[string]string{"Accept-Language": "en-US",
		"HX-Request": "true", "HX-Target": "starter-categories"}).Doc(t)
	if oob, _ := d.Find(`#onboarding-usual`).Attr("hx-swap-oob"); oob != "true" || selected(d, "currency") != "EUR" || selected(d, "date_format") != "%d.%m.%Y" {
		t.Errorf("choosing Deutsch offers %q and %q (out of band %q)", selected(d, "currency"), selected(d, "date_format"), oob)
	}
	form := url.Values{"family_name": {"The Bergers"}, "email": {"anna@example.com"}, "password": {"a long enough password"},
		"currency": {"EUR"}, "locale": {"de-DE"}, "date_format": {"%d.%m.%Y"}, "_submitted": {"1"}}
	if r := c.PostForm("/onboarding", form); r.Status != http.StatusSeeOther {
		t.Fatalf("onboarding: %d\n%s", r.Status, r.Body)
	}
	u, err := models.UserByEmail(t.Context(), srv.DB, "anna@example.com")
	if err != nil || u.Family.Currency != "EUR" || u.Family.DateFormat != "%d.%m.%Y" {
		t.Fatalf("the family: %+v (err %v)", u.Family, err)
	}
}
