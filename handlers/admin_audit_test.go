package handlers_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/auditlog"
	"tally/models"
	"tally/testkit"
)

// auditEnv is a server keeping the audit log in the extended tier, with an archive in a
// temporary directory, and a super admin signed in.
type auditEnv struct {
	srv     *apptest.Server
	admin   *testkit.Client
	archive auditlog.Archive
}

func newAuditEnv(t *testing.T) *auditEnv {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{
		"ADMIN_RATE_LIMIT_PER_MINUTE": "1000",
		"AUDIT_LOG_RETENTION":         "extended",
		"AUDIT_ARCHIVE_URL":           "file://" + t.TempDir(),
	}})
	archive, err := auditlog.Open(srv.Config.AuditArchiveURL)
	if err != nil {
		t.Fatal(err)
	}
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "root@example.com", Role: models.RoleSuperAdmin})
	c := apptest.NewClient(t, srv)
	c.SignIn(root.Email, testkit.Password)
	// The sign-in is audited; each test starts from a log of its own entries only.
	if _, err := srv.DB.NewRaw("DELETE FROM sso_audit_logs").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &auditEnv{srv: srv, admin: c, archive: archive}
}

// auditRow describes an audit entry for record.
type auditRow struct {
	event    string
	user     *models.User
	provider string
	ua       string
	meta     string
	at       time.Time
}

// record writes audit entries at their own times and returns their ids.
func (e *auditEnv) record(t *testing.T, rows ...auditRow) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	for _, r := range rows {
		id := uuid.New()
		var userID *uuid.UUID
		if r.user != nil {
			userID = &r.user.ID
		}
		if r.meta == "" {
			r.meta = "{}"
		}
		if _, err := e.srv.DB.NewRaw(`INSERT INTO sso_audit_logs (id, event_type, user_id, provider, ip_address, user_agent, metadata, created_at)
			VALUES (?, ?, ?, nullif(?, ''), '198.51.100.4', nullif(?, ''), ?, ?)`, id, r.event, userID, r.provider, r.ua, r.meta, r.at).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// auditEvents are the event types of the rows with data-testid testid, in page order.
func auditEvents(doc *goquery.Document, testid string) []string {
	var out []string
	doc.Find(`[data-testid="` + testid + `"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-event", ""))
	})
	return out
}

func daysBefore(n int) time.Time { return time.Now().UTC().AddDate(0, 0, -n) }

func TestAuditLogIsForSuperAdminsOnly(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t)
	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Role: models.RoleMember})
	familyAdmin := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Role: models.RoleAdmin})
	signedIn := func(u *models.User) *testkit.Client {
		c := apptest.NewClient(t, e.srv)
		c.SignIn(u.Email, testkit.Password)
		return c
	}
	for _, tc := range []struct {
		name   string
		c      *testkit.Client
		path   string
		status int
	}{
		{"signed out goes to sign in", apptest.NewClient(t, e.srv), "/admin/sso_audit_logs", http.StatusSeeOther},
		{"member", signedIn(member), "/admin/sso_audit_logs", http.StatusNotFound},
		{"member, CSV", signedIn(member), "/admin/sso_audit_logs.csv", http.StatusNotFound},
		{"family admin", signedIn(familyAdmin), "/admin/sso_audit_logs", http.StatusNotFound},
		{"family admin, CSV", signedIn(familyAdmin), "/admin/sso_audit_logs.csv", http.StatusNotFound},
		{"super admin", e.admin, "/admin/sso_audit_logs", http.StatusOK},
		{"super admin, CSV", e.admin, "/admin/sso_audit_logs.csv", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.Get(tc.path)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d", r.Status, tc.status)
			}
			if tc.status == http.StatusNotFound && strings.Contains(r.Body, "Audit log") {
				t.Errorf("the 404 names the page it hides")
			}
		})
	}
}

func TestAuditLogPageFilters(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t)
	r := e.admin.Get("/admin/sso_audit_logs")
	wantPage(t, r, http.StatusOK)
	if !r.Has(t, "audit-empty") || !r.Has(t, "audit-empty-providers") {
		t.Errorf("an empty log shows no empty state with a next step: %s", r.Body)
	}
	if got := r.Doc(t).Find(`[data-testid="nav-admin_audit"]`).AttrOr("aria-current", ""); got != "page" {
		t.Errorf("nav-admin_audit aria-current %q, want page", got)
	}

	ada := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "ada@example.com"})
	bob := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "bob@example.org"})
	e.record(t,
		auditRow{event: "login", user: ada, provider: "okta", at: daysBefore(5)},
		auditRow{event: "login_failed", provider: "okta", meta: `{"reason": "email_not_verified"}`, at: daysBefore(4)},
		auditRow{event: "login", user: bob, provider: "google", at: daysBefore(3)},
		auditRow{event: "logout", user: bob, provider: "google", at: daysBefore(2)},
		auditRow{event: "role_changed", user: ada, meta: `{"from": "member", "to": "admin"}`, at: daysBefore(1)},
	)
	day := func(n int) string { return daysBefore(n).Format("2006-01-02") }
	for _, tc := range []struct {
		name  string
		query string
		want  []string // event types, newest first
	}{
		{"everything, newest first", "", []string{"role_changed", "logout", "login", "login_failed", "login"}},
		{"by event type", "event_type=login", []string{"login", "login"}},
		{"by provider", "provider=google", []string{"logout", "login"}},
		{"by part of a user's email, in any case", "user=ADA%40", []string{"role_changed", "login"}},
		{"by date range, both days included", "from=" + day(4) + "&to=" + day(2), []string{"logout", "login", "login_failed"}},
		{"all together", "event_type=login&provider=google&user=bob&from=" + day(10), []string{"login"}},
		{"nothing matches", "event_type=user_deleted", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.admin.Get("/admin/sso_audit_logs?" + tc.query)
			wantPage(t, r, http.StatusOK)
			doc := r.Doc(t)
			if got := auditEvents(doc, "audit-row"); !slices.Equal(got, tc.want) {
				t.Errorf("rows %v, want %v", got, tc.want)
			}
			if tc.want == nil && !r.Has(t, "audit-none-match") {
				t.Errorf("no empty state for a filter that matches nothing")
			}
			// The form shows the filters of the URL, and the CSV link carries them.
			q, _ := url.ParseQuery(tc.query)
			for k := range q {
				if got := doc.Find(`[name="`+k+`"]`).AttrOr("value", doc.Find(`[name="`+k+`"] option[selected]`).AttrOr("value", "")); got != q.Get(k) {
					t.Errorf("filter %s shows %q, want %q", k, got, q.Get(k))
				}
			}
			if tc.want != nil {
				href, _ := doc.Find(`[data-testid="audit-csv"]`).Attr("href")
				u, _ := url.Parse(href)
				if u.Path != "/admin/sso_audit_logs.csv" || u.Query().Encode() != q.Encode() {
					t.Errorf("CSV link %q, want the same filters %q", href, q.Encode())
				}
			}
		})
	}

	t.Run("a row shows who, where and what", func(t *testing.T) {
		r := e.admin.Get("/admin/sso_audit_logs?event_type=role_changed")
		row := r.Doc(t).Find(`[data-testid="audit-row"]`).First()
		text := strings.Join(cells(row), " | ")
		for _, want := range []string{"Role changed", "ada@example.com", "198.51.100.4"} {
			if !strings.Contains(text, want) {
				t.Errorf("row %q lacks %q", text, want)
			}
		}
		var details []string
		row.Find(`[data-testid="audit-row-metadata"] div`).Each(func(_ int, s *goquery.Selection) {
			details = append(details, s.Find("dt").Text()+" "+s.Find("dd").Text())
		})
		if want := []string{"from: member", "to: admin"}; !slices.Equal(details, want) {
			t.Errorf("details %q, want %q", details, want)
		}
		if got := r.Doc(t).Find(`#field-provider option`).Length(); got != 3 {
			t.Errorf("provider filter offers %d choices, want any, google and okta", got)
		}
	})

	t.Run("htmx gets only the list", func(t *testing.T) {
		r := e.admin.Do(http.MethodGet, "/admin/sso_audit_logs?event_type=logout", nil, map[string]string{"HX-Request": "true", "HX-Target": "audit-log"})
		wantPage(t, r, http.StatusOK)
		if strings.Contains(r.Body, "<html") || strings.Contains(r.Body, `data-testid="audit-filters"`) {
			t.Errorf("the fragment has more than the list: %s", r.Body)
		}
		if got := auditEvents(r.Doc(t), "audit-row"); !slices.Equal(got, []string{"logout"}) {
			t.Errorf("fragment rows %v", got)
		}
	})
}

func TestAuditLogFilterProblemsAreShownNotFailed(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t)
	e.record(t, auditRow{event: "login", at: daysBefore(1)})

	r := e.admin.Get("/admin/sso_audit_logs?from=2026-13-01&to=yesterday&event_type=nope")
	wantPage(t, r, http.StatusUnprocessableEntity)
	for _, field := range []string{"from", "to", "event_type"} {
		if !r.Has(t, "error-"+field) {
			t.Errorf("no error under %s: %s", field, r.Body)
		}
	}
	if got := r.Doc(t).Find("#field-from").AttrOr("aria-invalid", ""); got != "true" {
		t.Errorf("the bad From is not marked invalid")
	}
	if r.Has(t, "audit-row") || r.Has(t, "audit-csv") || !r.Has(t, "audit-invalid") {
		t.Errorf("entries or a CSV link shown for filters that do not parse")
	}

	// htmx swaps only 2xx answers: the list says what is wrong.
	r = e.admin.Do(http.MethodGet, "/admin/sso_audit_logs?from=2026-02-01&to=2026-01-01", nil, map[string]string{"HX-Request": "true", "HX-Target": "audit-log"})
	wantPage(t, r, http.StatusOK)
	if !strings.Contains(r.TestID(t, "audit-invalid"), "on or after From") {
		t.Errorf("fragment does not explain the range: %s", r.Body)
	}

	if r := e.admin.Get("/admin/sso_audit_logs.csv?from=soon"); r.Status != http.StatusUnprocessableEntity || strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
		t.Errorf("CSV with a bad date: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
}

func TestAuditLogPages(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t)
	var rows []auditRow
	for i := range 51 {
		rows = append(rows, auditRow{event: "login", at: time.Now().Add(-time.Duration(i+1) * time.Minute)})
	}
	e.record(t, rows...)
	r := e.admin.Get("/admin/sso_audit_logs?event_type=login")
	if n := r.Doc(t).Find(`[data-testid="audit-row"]`).Length(); n != 50 {
		t.Fatalf("first page has %d rows, want 50", n)
	}
	next := r.Doc(t).Find(`[data-testid="page-next"]`).AttrOr("href", "")
	if next != "/admin/sso_audit_logs?event_type=login&page=2" {
		t.Fatalf("next page link %q", next)
	}
	r = e.admin.Get(next)
	doc := r.Doc(t)
	if n := doc.Find(`[data-testid="audit-row"]`).Length(); n != 1 || doc.Find(`[data-testid="page-next"]`).Length() != 0 {
		t.Errorf("second page has %d rows and a next link %v", n, doc.Find(`[data-testid="page-next"]`).Length() > 0)
	}
	if doc.Find(`[data-testid="page-prev"]`).AttrOr("href", "") != "/admin/sso_audit_logs?event_type=login" {
		t.Errorf("previous page link %q", doc.Find(`[data-testid="page-prev"]`).AttrOr("href", ""))
	}
	if r := e.admin.Get("/admin/sso_audit_logs?page=9"); !r.Has(t, "audit-page-empty") {
		t.Errorf("a page past the end has no empty state")
	}
}

func TestAuditLogCSV(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t)
	ada := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "ada@example.com"})
	at := daysBefore(1).Truncate(time.Second)
	e.record(t,
		auditRow{event: "login", user: ada, provider: "okta", ua: "Mozilla/5.0 (X11)", at: at},
		auditRow{event: "login_failed", provider: "okta", ua: "=HYPERLINK(\"http://evil\")", meta: `{"reason": "link_required, \"quoted\""}`, at: at.Add(time.Minute)},
		auditRow{event: "logout", user: ada, at: at.Add(2 * time.Minute)},
	)
	r := e.admin.Get("/admin/sso_audit_logs.csv?provider=okta")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if got := r.Header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := r.Header.Get("Content-Disposition"); !strings.HasPrefix(got, `attachment; filename="sso_audit_logs-`) || !strings.HasSuffix(got, `.csv"`) {
		t.Errorf("Content-Disposition %q", got)
	}
	records, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, r.Body)
	}
	want := [][]string{
		{"created_at", "event_type", "user_email", "provider", "ip_address", "user_agent", "metadata", "source"},
		{at.Add(time.Minute).Format(time.RFC3339), "login_failed", "", "okta", "198.51.100.4", `'=HYPERLINK("http://evil")`, `{"reason": "link_required, \"quoted\""}`, "database"},
		{at.Format(time.RFC3339), "login", "ada@example.com", "okta", "198.51.100.4", "Mozilla/5.0 (X11)", "{}", "database"},
	}
	if !slices.EqualFunc(records, want, slices.Equal) {
		t.Errorf("CSV\n%q\nwant\n%q", records, want)
	}
}

// A range that reaches before the database window lists the archived entries too, marked as
// such, on the page and in the CSV.
func TestAuditLogFindsArchivedDays(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t)
	ada := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "ada@example.com"})
	e.record(t,
		auditRow{event: "login", user: ada, provider: "okta", at: daysBefore(120)},
		auditRow{event: "login_failed", provider: "okta", at: daysBefore(121)},
		auditRow{event: "logout", user: ada, at: daysBefore(3)},
	)
	res, err := auditlog.Run(context.Background(), e.srv.DB, e.archive, auditlog.Extended, time.Now())
	if err != nil || res.ArchivedEntries != 2 {
		t.Fatalf("archive: %+v, %v", res, err)
	}

	r := e.admin.Get("/admin/sso_audit_logs")
	doc := r.Doc(t)
	if got := auditEvents(doc, "audit-row"); !slices.Equal(got, []string{"logout"}) || r.Has(t, "audit-archive") {
		t.Errorf("without a From date: rows %v, archive section %v", got, r.Has(t, "audit-archive"))
	}
	if !strings.Contains(r.TestID(t, "audit-retention"), "set From to an earlier day") {
		t.Errorf("the page does not say how to reach the archive: %q", r.TestID(t, "audit-retention"))
	}

	from, to := daysBefore(150).Format("2006-01-02"), daysBefore(100).Format("2006-01-02")
	r = e.admin.Get("/admin/sso_audit_logs?from=" + from + "&to=" + to)
	wantPage(t, r, http.StatusOK)
	doc = r.Doc(t)
	if !r.Has(t, "audit-none-match") {
		t.Errorf("no empty state for the database's part of the range")
	}
	if got := auditEvents(doc, "audit-archived-row"); !slices.Equal(got, []string{"login", "login_failed"}) {
		t.Errorf("archived rows %v, want login then login_failed", got)
	}
	if got := doc.Find(`[data-testid="audit-archived-mark"]`).First().Text(); got != "From the archive" {
		t.Errorf("archived row marked %q", got)
	}
	if got := cells(doc.Find(`[data-testid="audit-archived-row"]`).First()); !strings.Contains(strings.Join(got, " "), "ada@example.com") {
		t.Errorf("archived row %v lacks the user", got)
	}
	if !strings.Contains(r.TestID(t, "audit-archive-note"), "2 archived days") {
		t.Errorf("archive note %q", r.TestID(t, "audit-archive-note"))
	}
	// The filters apply to the archive too.
	r = e.admin.Get("/admin/sso_audit_logs?event_type=login_failed&from=" + from)
	if got := auditEvents(r.Doc(t), "audit-archived-row"); !slices.Equal(got, []string{"login_failed"}) {
		t.Errorf("archived failed logins %v", got)
	}

	r = e.admin.Get("/admin/sso_audit_logs.csv?from=" + from)
	records, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
	if err != nil || len(records) != 4 {
		t.Fatalf("CSV %q, %v; want a header and 3 entries", r.Body, err)
	}
	var sources []string
	for _, rec := range records[1:] {
		sources = append(sources, rec[1]+"/"+rec[7])
	}
	if want := []string{"logout/database", "login/archive", "login_failed/archive"}; !slices.Equal(sources, want) {
		t.Errorf("CSV entries %v, want %v", sources, want)
	}
}

// In the standard tier nothing is archived, and the page says entries are deleted.
func TestAuditLogStandardTierSaysEntriesAreDeleted(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	c := apptest.NewClient(t, srv)
	c.SignIn(root.Email, testkit.Password)
	r := c.Get("/admin/sso_audit_logs?from=2020-01-01")
	wantPage(t, r, http.StatusOK)
	if !strings.Contains(r.TestID(t, "audit-retention"), "kept for 90 days, then deleted") || r.Has(t, "audit-archive") {
		t.Errorf("standard tier: %q, archive section %v", r.TestID(t, "audit-retention"), r.Has(t, "audit-archive"))
	}
}
