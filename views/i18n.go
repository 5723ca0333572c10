package views

import (
	"context"
	"time"

	"tally/internal/i18n"
	"tally/models"
)

// roleLabel is role's name in the language of ctx.
func roleLabel(ctx context.Context, role models.Role) string {
	return i18n.T(ctx, role.MessageID())
}

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
