package views

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"tally/internal/i18n"
	"tally/models"
)

// accountTypeMessages are the message ids of the account types' names, by type.
var accountTypeMessages = map[string]string{
	"Depository": "account_type.depository", "Investment": "account_type.investment", "Crypto": "account_type.crypto",
	"Property": "account_type.property", "Vehicle": "account_type.vehicle", "OtherAsset": "account_type.other_asset",
	"CreditCard": "account_type.credit_card", "Loan": "account_type.loan", "OtherLiability": "account_type.other_liability",
}

// typeLabel is t's name in the language of ctx (its English Label for a type the
// catalogues do not name).
func typeLabel(ctx context.Context, t models.AccountType) string {
	if id, ok := accountTypeMessages[t.Name]; ok {
		return i18n.T(ctx, id)
	}
	return t.Label
}

// monthMessages are the message ids of the months' names, January first.
var monthMessages = [12]string{"month.january", "month.february", "month.march", "month.april", "month.may", "month.june",
	"month.july", "month.august", "month.september", "month.october", "month.november", "month.december"}

// userMonth is the month of day with its year in the language of ctx: "Dezember 2026".
func userMonth(ctx context.Context, day time.Time) string {
	return i18n.T(ctx, "month.with_year", "Month", i18n.T(ctx, monthMessages[day.Month()-1]), "Year", day.Year())
}

// subtypeMessages are the message ids of the account subtypes' names, by subtype.
var subtypeMessages = map[string]string{
	"checking": "subtype.checking", "savings": "subtype.savings", "hsa": "subtype.hsa", "cd": "subtype.cd",
	"money_market": "subtype.money_market", "brokerage": "subtype.brokerage", "pension": "subtype.pension",
	"retirement": "subtype.retirement", "401k": "subtype.401k", "roth_401k": "subtype.roth_401k", "403b": "subtype.403b",
	"tsp": "subtype.tsp", "529_plan": "subtype.529_plan", "mutual_fund": "subtype.mutual_fund", "ira": "subtype.ira",
	"roth_ira": "subtype.roth_ira", "angel": "subtype.angel", "single_family_home": "subtype.single_family_home",
	"multi_family_home": "subtype.multi_family_home", "condominium": "subtype.condominium", "townhouse": "subtype.townhouse",
	"investment_property": "subtype.investment_property", "second_home": "subtype.second_home",
	"credit_card": "subtype.credit_card", "mortgage": "subtype.mortgage", "student": "subtype.student",
	"auto": "subtype.auto", "other": "subtype.other_loan",
}

// userSubtype is subtype's name in the language of ctx (models.SubtypeLabel for one the
// catalogues do not name).
func userSubtype(ctx context.Context, subtype string) string {
	if id, ok := subtypeMessages[subtype]; ok {
		return i18n.T(ctx, id)
	}
	return models.SubtypeLabel(subtype)
}

// Mark is a placeholder's value that a Sentence sets apart: its text in a span of class, with
// TestID as its data-testid when given.
type Mark struct{ Text, Class, TestID string }

// Sentence is the message id in the language of the page, its placeholders filled from data
// (name and value pairs, as i18n.T takes them), with each value given as a Mark in a span of
// its own class: one message a translator may reorder, however its parts are styled.
func Sentence(id string, data ...any) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		args := slices.Clone(data)
		marks := map[string]Mark{}
		for i := 1; i < len(args); i += 2 {
			if m, ok := args[i].(Mark); ok {
				key := "\x00" + strconv.Itoa(i) + "\x00"
				marks[key], args[i] = m, key
			}
		}
		var b strings.Builder
		for s := i18n.T(ctx, id, args...); s != ""; {
			start := strings.IndexByte(s, 0)
			end := strings.IndexByte(s[start+1:], 0) + start + 1
			if start < 0 || end <= start {
				b.WriteString(templ.EscapeString(s))
				break
			}
			m := marks[s[start:end+1]]
			b.WriteString(templ.EscapeString(s[:start]))
			b.WriteString(`<span class="` + templ.EscapeString(m.Class) + `"`)
			if m.TestID != "" {
				b.WriteString(` data-testid="` + templ.EscapeString(m.TestID) + `"`)
			}
			b.WriteString(`>` + templ.EscapeString(m.Text) + `</span>`)
			s = s[end+1:]
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// TranslatedOptions are opts with their labels (message ids) in the language of ctx.
func TranslatedOptions(ctx context.Context, opts []SelectOption) []SelectOption {
	out := make([]SelectOption, len(opts))
	for i, o := range opts {
		out[i] = SelectOption{Value: o.Value, Label: i18n.T(ctx, o.Label)}
	}
	return out
}
