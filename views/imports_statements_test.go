package views

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tally/imports"
	"tally/models"
)

// TestLedgerCheckSaysWhichSide names the side of the bank's balance Tally's is on: the issue's
// statement, where Tally held €7,361.08 and the bank €7,329.46, read "-€31.62 short of the
// bank's", wrong twice.
func TestLedgerCheckSaysWhichSide(t *testing.T) {
	german := &models.User{Family: &models.Family{Locale: "de-DE", DateFormat: "%d.%m.%Y"}}
	ctx := WithState(context.Background(), &State{User: german})
	for _, tc := range []struct{ ledger, difference, want string }{
		{"7361.08", "-31.62", "7.361,08\u00a0€, 31,62\u00a0€ above the bank's"},
		{"7329.46", "31.62", "7.329,46\u00a0€, 31,62\u00a0€ below the bank's"},
	} {
		ledger, diff := decimal.RequireFromString(tc.ledger), decimal.RequireFromString(tc.difference)
		var b strings.Builder
		lc := &imports.LedgerCheck{Status: "difference", Ledger: &ledger, Difference: &diff}
		if err := ledgerCheckText(lc, "EUR").Render(ctx, &b); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(html.UnescapeString(b.String())), " "); got != strings.Join(strings.Fields(tc.want), " ") {
			t.Errorf("difference %s reads %q, want %q", tc.difference, got, tc.want)
		}
	}
}
