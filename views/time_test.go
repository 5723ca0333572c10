package views

import (
	"context"
	"testing"
	"time"

	"tally/models"
)

// TestUserTime writes moments as the signed-in person reads them: in their family's time zone
// and with their date format, else their family's.
func TestUserTime(t *testing.T) {
	winter := time.Date(2026, 1, 31, 23, 30, 0, 0, time.UTC)
	summer := time.Date(2026, 7, 1, 8, 5, 0, 0, time.UTC)
	berlin := &models.Family{Timezone: "Europe/Berlin", DateFormat: "%d.%m.%Y"}
	for _, tc := range []struct {
		name string
		user *models.User
		at   time.Time
		want string
	}{
		{"no one signed in reads UTC", nil, winter, "2026-01-31 23:30 UTC"},
		{"a Berlin family's winter night is the next day", &models.User{Family: berlin}, winter, "01.02.2026 00:30 CET"},
		{"and its summer is CEST", &models.User{Family: berlin}, summer, "01.07.2026 10:05 CEST"},
		{"a person's own date format wins", &models.User{Family: berlin, DateFormat: "%m/%d/%Y"}, summer, "07/01/2026 10:05 CEST"},
		{"a family in New York", &models.User{Family: &models.Family{Timezone: "America/New_York"}}, winter, "2026-01-31 18:30 EST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := WithState(context.Background(), &State{User: tc.user})
			if got := UserTime(ctx, &tc.at); got != tc.want {
				t.Errorf("UserTime = %q, want %q", got, tc.want)
			}
		})
	}
	if got := UserTime(context.Background(), nil); got != "Never" {
		t.Errorf("nil is %q", got)
	}
	ctx := WithState(context.Background(), &State{User: &models.User{Family: berlin}})
	if got := UserDay(ctx, winter); got != "01.02.2026" {
		t.Errorf("UserDay = %q", got)
	}
}
