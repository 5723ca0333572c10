package e2e

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestSubtypesFollowTheType opens the new account form: the subtype offers only the chosen
// type's subtypes, a type change drops a subtype of the old type, and the account saves with
// the one chosen.
func TestSubtypesFollowTheType(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	signInAs(t, ctx, srv, u.Email)
	visit(t, ctx, srv.URL+"/accounts/new")

	// pickType chooses typ as a person does, firing the select's change event.
	pickType := func(typ string) {
		t.Helper()
		choose(t, ctx, "field-accountable_type", typ)
		run(t, ctx, "change the type", chromedp.Evaluate[bool](`document.querySelector('[data-testid="field-accountable_type"]').dispatchEvent(new Event("change")), true`))
	}
	offered := func() []string {
		t.Helper()
		return run(t, ctx, "read the subtypes offered", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="field-subtype"] optgroup:not([hidden]) option')].map(o => o.value)`))
	}
	if got := offered(); !slices.Equal(got, []string{"checking", "savings", "hsa", "cd", "money_market"}) {
		t.Errorf("a bank account is offered the subtypes %v", got)
	}
	pickType("Loan")
	choose(t, ctx, "field-subtype", "mortgage")
	pickType("Depository")
	if got := inputValue(t, ctx, "field-subtype"); got != "" {
		t.Errorf("a loan's subtype %q stayed chosen for a bank account", got)
	}
	pickType("Loan")
	if got := offered(); !slices.Equal(got, []string{"mortgage", "student", "auto", "other"}) {
		t.Errorf("a loan is offered the subtypes %v", got)
	}
	choose(t, ctx, "field-subtype", "auto")
	fill(t, ctx, "field-name", "Car")
	click(t, ctx, "save-account")
	visible(t, ctx, "account-balance")
	var subtype string
	if err := srv.DB.NewSelect().Model((*models.Account)(nil)).Column("subtype").Where("family_id = ? AND name = 'Car'", u.FamilyID).Scan(context.Background(), &subtype); err != nil || subtype != "auto" {
		t.Errorf("the account's subtype is %q (err %v)", subtype, err)
	}
}
