package views

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/internal/i18n"
	"tally/models"
	"tally/recurring"
)

// BenchmarkDashboardPage renders the dashboard of a household with nine accounts, 25 recent
// transactions, a month's net worth and a few bills, in English and in German, to compare
// them: issue 45 asks a German page to cost within 5 % of an English one (nothing checks it
// here; messages without placeholders are a map read).
func BenchmarkDashboardPage(b *testing.B) {
	d := benchDashboard()
	for _, lang := range []string{"en", "de"} {
		b.Run(lang, func(b *testing.B) {
			u := &models.User{FirstName: "Anna", Role: models.RoleAdmin, Language: lang,
				Family: &models.Family{Name: "Berger", Currency: "EUR", Locale: "de-DE", DateFormat: "%d.%m.%Y"}}
			ctx := i18n.WithLanguage(WithState(context.Background(), &State{User: u, Nav: "dashboard", Path: "/"}), lang)
			b.ReportAllocs()
			for b.Loop() {
				if err := DashboardPage(d).Render(ctx, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchDashboard() Dashboard {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var d Dashboard
	for _, t := range models.AccountTypes[:3] {
		g := AccountGroup{Type: t, Total: Converted{Total: Total{Currency: "EUR", Amount: decimal.NewFromInt(3000)}}}
		for i := range 3 {
			g.Accounts = append(g.Accounts, models.Account{ID: uuid.New(), Name: t.Label + " " + string(rune('A'+i)),
				AccountableType: t.Name, Currency: "EUR", Balance: decimal.NewFromInt(1000)})
		}
		d.Groups = append(d.Groups, g)
	}
	d.NetWorth = Converted{Total: Total{Currency: "EUR", Amount: decimal.NewFromInt(9000)}}
	series := models.BalanceSeries{Currency: "EUR"}
	for i := range 30 {
		series.Points = append(series.Points, models.DailyBalance{Date: day.AddDate(0, 0, i), Balance: decimal.NewFromInt(int64(9000 + 10*i))})
	}
	d.History = BalanceHistory{ID: "net-worth-history", Title: "Net worth", Path: "/", Range: ChartRanges[0], Series: []models.BalanceSeries{series}}
	for i := range 25 {
		e := models.EntryRow{AccountName: "Girokonto", CategoryName: "Lebensmittel"}
		e.ID, e.Kind, e.Date, e.Name = uuid.New(), "transaction", day.AddDate(0, 0, -i), "REWE Markt"
		e.Amount, e.Currency = decimal.NewFromFloat(12.34*float64(i+1)), "EUR"
		d.Entries.Rows = append(d.Entries.Rows, e)
	}
	for i := range 4 {
		d.ComingUp.Bills = append(d.ComingUp.Bills, recurring.Bill{Name: "Miete", Date: day.AddDate(0, 0, i+2), Amount: decimal.NewFromInt(900), Currency: "EUR"})
	}
	return d
}
