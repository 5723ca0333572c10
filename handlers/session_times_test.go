package handlers_test

import (
	"net/http"
	"regexp"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestSessionTimesFollowTheFamily reads the security page's sessions of a family in Berlin that
// writes dates as 31.01.2026: their times are Berlin's, in that format, not UTC.
func TestSessionTimesFollowTheFamily(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if err := models.UpdateFamilySettings(t.Context(), srv.DB, u.FamilyID, models.FamilySettings{Name: "Die Müllers", Currency: "EUR",
		Locale: "de-DE", DateFormat: "%d.%m.%Y", WeekStart: "monday", Timezone: "Europe/Berlin"}); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	r := c.Get("/settings/security")
	wantPage(t, r, http.StatusOK)
	berlin := regexp.MustCompile(`^\d\d\.\d\d\.\d{4} \d\d:\d\d CES?T$`)
	for _, id := range []string{"session-signed-in", "session-last-active"} {
		if got := r.TestID(t, id); !berlin.MatchString(got) {
			t.Errorf("%s shows %q, want Berlin's time as 31.01.2026 14:05 CET", id, got)
		}
	}
}
