package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
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

// statementAccounts is the account part of an ImportDetail's statements.
type statementAccounts struct {
	Data struct {
		ID         string `json:"id"`
		Statements struct {
			Statements []struct {
				Account struct {
					Key        string `json:"key"`
					Suggested  string `json:"suggested_account_id"`
					Reason     string `json:"suggestion_reason"`
					Candidates []struct {
						AccountID        string `json:"account_id"`
						Identifier       string `json:"identifier"`
						SameCurrency     bool   `json:"same_currency"`
						BalanceContinues bool   `json:"balance_continues"`
						SameKind         bool   `json:"same_kind"`
						OnlyFit          bool   `json:"only_fit"`
						Reason           string `json:"reason"`
					} `json:"candidates"`
				} `json:"account"`
			} `json:"statements"`
		} `json:"statements"`
	} `json:"data"`
}

// The two statements that defaulted to a new account although the match was plain.
// An MT940 whose :25: account number is inside the IBAN of the account a camt file went into,
// the family's only EUR account with a balance, opening where that account's balance stands;
// and an OFX card statement of the only USD card whose name holds the card's last digits and
// whose balance carries on. Each is suggested, through the API and on the review page, and an
// account in another currency is never offered first.
func TestStatementSuggestsTheAccountItPlainlyIs(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	ctx := context.Background()
	camt := e.statement(t, "CamtImport", camt053(testIBAN, "1000.00", "2026-03-01", "1250.00", "2026-03-03", "C1 2026-03-02 CRDT 250.00 Gift"))
	giro := e.accountByKey(t, "iban:"+testIBAN)
	savings, err := models.CreateAccount(ctx, e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Tagesgeld", AccountableType: "Depository", Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	sapphire := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Sapphire …4821", "CreditCard", "300")
	freedom := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Freedom", "CreditCard", "0")
	if camt.Data.Statements.Statements[0].Reconciliation != "reconciled" {
		t.Fatalf("camt: %+v", camt.Data)
	}

	mt940 := ":20:STARTUMS\r\n:25:37040044/0532013000\r\n:28C:00002/001\r\n:60F:C260303EUR1250,00\r\n" +
		":61:2603040304DR12,34NMSCNONREF//B2603040001\r\n:86:020?00ENTGELT?20Kontofuehrung\r\n:62F:C260304EUR1237,66\r\n-\r\n"
	card := strings.Replace(cardOFX, "<ACCTID>4111222233334444", "<ACCTID>4266841234564821", 1)
	for _, c := range []struct {
		name, typ, file string
		want            uuid.UUID
		identifier      string
		others          []uuid.UUID // the other candidates, in order
	}{
		{"an MT940 of the camt file's account", "Mt940Import", mt940, giro, "number_in_iban", []uuid.UUID{savings.ID}},
		{"an OFX file of a named card", "OfxImport", card, sapphire.ID, "card_digits", []uuid.UUID{freedom.ID, e.acct.ID}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b statementAccounts
			e.create(t, map[string]any{"type": c.typ, "raw_file_content": c.file}, http.StatusCreated).JSON(t, &b)
			a := b.Data.Statements.Statements[0].Account
			if a.Suggested != c.want.String() || len(a.Candidates) != 1+len(c.others) {
				t.Fatalf("suggested %s with candidates %+v, want %s", a.Suggested, a.Candidates, c.want)
			}
			if best := a.Candidates[0]; best.AccountID != c.want.String() || best.Identifier != c.identifier || !best.SameCurrency || !best.BalanceContinues {
				t.Errorf("best candidate %+v", best)
			}
			for i, id := range c.others {
				if got := a.Candidates[i+1]; got.AccountID != id.String() || !got.SameCurrency || got.Identifier != "" || got.BalanceContinues {
					t.Errorf("candidate %d: %+v, want %s in the currency, and nothing else for it", i+2, got, id)
				}
			}
			var rows struct {
				Mappings []struct {
					Key      string  `json:"key"`
					TargetID *string `json:"target_id"`
				} `json:"mappings"`
			}
			e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows", e.read, nil).JSON(t, &rows)
			if len(rows.Mappings) != 1 || rows.Mappings[0].TargetID == nil || *rows.Mappings[0].TargetID != c.want.String() {
				t.Errorf("mappings %+v", rows.Mappings)
			}

			doc := e.c.Get("/imports/" + b.Data.ID).Doc(t)
			options := doc.Find(`[data-testid="statement-mapping-target"] option`)
			first, _ := options.First().Attr("value")
			selected, _ := doc.Find(`[data-testid="statement-mapping-target"] option[selected]`).Attr("value")
			if first != c.want.String() || selected != c.want.String() {
				t.Errorf("the review offers %s first and selects %s, want %s:\n%s", first, selected, c.want, options.Text())
			}
		})
	}

	// Published as suggested, the MT940's entries go into the camt file's account.
	var created importBody
	e.create(t, map[string]any{"type": "Mt940Import", "raw_file_content": mt940, "publish": "true"}, http.StatusCreated).JSON(t, &created)
	if done := e.waitFor(t, created.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
	}
	if balance, _ := e.accountState(t, giro); balance != "1237.66" {
		t.Errorf("the account's balance is %s after the MT940, want 1237.66", balance)
	}
	if e.accountByKey(t, "acct:37040044/0532013000") != giro {
		t.Error("the MT940's key is not linked to the account")
	}
}
