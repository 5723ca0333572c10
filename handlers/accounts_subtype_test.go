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

// TestAccountSubtypeIsAChoice reads the account form: the subtype is a select of each type's
// subtypes, named for a person ("401(k)", not "401k"), grouped by type; a subtype of another
// type is refused on its field, and the account's page names its subtype the same way.
func TestAccountSubtypeIsAChoice(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	doc := c.Get("/accounts/new").Doc(t)
	sel := doc.Find(`select[data-testid="field-subtype"]`)
	if sel.Length() != 1 || sel.AttrOr("data-depends-on", "") != "accountable_type" {
		t.Fatalf("the subtype is not a select that follows the type: %d", sel.Length())
	}
	if blank := sel.Find("option").First(); blank.AttrOr("value", "x") != "" {
		t.Errorf("the first subtype is %q, want none", blank.AttrOr("value", ""))
	}
	var groups []string
	sel.Find("optgroup").Each(func(_ int, g *goquery.Selection) { groups = append(groups, g.AttrOr("data-group", "")) })
	if want := []string{"Depository", "Investment", "Property", "CreditCard", "Loan"}; !slices.Equal(groups, want) {
		t.Errorf("subtype groups %v, want %v", groups, want)
	}
	if got := strings.TrimSpace(sel.Find(`optgroup[data-group="Investment"] option[value="401k"]`).Text()); got != "401(k)" {
		t.Errorf("401k is offered as %q", got)
	}
	if got := strings.TrimSpace(sel.Find(`optgroup[data-group="Loan"] option[value="auto"]`).Text()); got != "Car loan" {
		t.Errorf("a loan's auto subtype is offered as %q", got)
	}

	r := c.PostForm("/accounts", url.Values{"name": {"House"}, "accountable_type": {"Depository"}, "subtype": {"mortgage"}, "currency": {"USD"}})
	if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-subtype") == "" {
		t.Fatalf("a loan's subtype for a bank account: %d", r.Status)
	}
	if got := r.Doc(t).Find(`select[data-testid="field-subtype"] option[selected]`).AttrOr("value", ""); got != "mortgage" {
		t.Errorf("the form forgot the chosen subtype: %q", got)
	}
	r = c.PostForm("/accounts", url.Values{"name": {"Pension"}, "accountable_type": {"Investment"}, "subtype": {"roth_401k"}, "currency": {"USD"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create: %d", r.Status)
	}
	if page := c.Get(r.Location()); !strings.Contains(page.Body, "Investments · Roth 401(k)") {
		t.Errorf("the account's page does not name its subtype for a person")
	}
}
