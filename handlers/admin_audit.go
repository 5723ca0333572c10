package handlers

import (
	"encoding/csv"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/internal/i18n"
	"tally/views"
)

// auditPerPage is how many database entries a page of the audit log lists.
const auditPerPage = 50

// adminAuditRoutes registers /admin/sso_audit_logs on the admin group.
func (a *app) adminAuditRoutes(g *echo.Group) {
	g.GET("/sso_audit_logs", a.auditIndex)
	g.GET("/sso_audit_logs.csv", a.auditCSV)
}

// auditIndex is GET /admin/sso_audit_logs: the SSO audit log, newest first, filtered by
// ?event_type=, ?user= (part of an email), ?provider=, ?from= and ?to= (YYYY-MM-DD, UTC),
// paged by ?page=. A range that reaches before the database window also lists the archived
// entries, after the last page. An htmx request from the filters or the pager gets only the
// list.
func (a *app) auditIndex(c echo.Context) error {
	ctx := c.Request().Context()
	tier := auditlog.Retention(a.Config.AuditLogRetention)
	form := formOf(c, views.AuditFilterFields...)
	page := pageNumber(c)
	l := views.AuditLog{Form: form, Retention: tier, DatabaseFrom: tier.DatabaseCutoff(time.Now()), FirstPage: page == 1}
	fragment := isFragment(c, "audit-log")
	var err error
	if !fragment { // the form, and so the provider choices, are not swapped
		if l.Providers, err = auditlog.Providers(ctx, a.DB); err != nil {
			return err
		}
	}
	status := http.StatusOK
	f, err := auditQuery(form).Parse()
	if err != nil {
		var ok bool
		if status, ok = withError(inLanguage(c), form, err); !ok {
			return err
		}
		for _, field := range views.AuditFilterFields {
			for _, msg := range form.Errors[field] {
				l.Problems = append(l.Problems, i18n.T(inLanguage(c), "admin_audit.problem", "Field", views.AuditFieldLabel(inLanguage(c), field), "Problem", msg))
			}
		}
	} else {
		archive, err := a.auditArchive(f, l.DatabaseFrom)
		if err != nil {
			return err
		}
		f.Page, f.PerPage = page, auditPerPage
		l.Filter = f
		if l.Result, err = auditlog.Search(ctx, a.DB, archive, f); err != nil {
			return err
		}
		if page > 1 {
			l.PrevURL = views.AuditLogURL(form, page-1, false)
		}
		if l.Result.More {
			l.NextURL = views.AuditLogURL(form, page+1, false)
		}
		l.CSVURL = views.AuditLogURL(form, 0, true)
	}
	if fragment {
		// htmx swaps only a 2xx answer: the list itself shows the filters' problems.
		return a.render(c, http.StatusOK, views.AuditLogTable(l))
	}
	return a.render(c, status, views.AuditLogPage(l))
}

// auditCSVHeader names the CSV's columns. source is "database" or "archive".
var auditCSVHeader = []string{"created_at", "event_type", "user_email", "provider", "ip_address", "user_agent", "metadata", "source"}

// auditCSV is GET /admin/sso_audit_logs.csv: every entry the page's filters match, unpaged,
// the archived ones included when the range reaches them, newest first.
func (a *app) auditCSV(c echo.Context) error {
	ctx := c.Request().Context()
	f, err := auditQuery(formOf(c, views.AuditFilterFields...)).Parse()
	if err != nil {
		return err
	}
	archive, err := a.auditArchive(f, auditlog.Retention(a.Config.AuditLogRetention).DatabaseCutoff(time.Now()))
	if err != nil {
		return err
	}
	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="sso_audit_logs-`+time.Now().UTC().Format("20060102")+`.csv"`)
	h.Set("Cache-Control", "no-store")
	// Nothing reaches the client before the first buffer fills, so an early failure is still
	// an error page rather than a truncated file.
	w := csv.NewWriter(res)
	err = w.Write(auditCSVHeader)
	if err == nil {
		err = auditlog.Each(ctx, a.DB, archive, f, func(e auditlog.Entry) error { return w.Write(auditCSVRow(e)) })
	}
	if err == nil {
		w.Flush()
		err = w.Error()
	}
	if err != nil && res.Committed {
		// Too late for an error page: the file is cut short, and the log says why.
		a.Log.ErrorContext(ctx, "audit log CSV cut short", slog.String("error", err.Error()),
			slog.Any("request_id", c.Get(echo.HeaderXRequestID)))
		return nil
	}
	if err != nil {
		h.Del(echo.HeaderContentDisposition)
	}
	return err
}

func auditCSVRow(e auditlog.Entry) []string {
	source := "database"
	if e.Archived {
		source = "archive"
	}
	meta := string(e.Metadata)
	if meta == "" {
		meta = "{}"
	}
	return []string{e.CreatedAt.UTC().Format(time.RFC3339), e.EventType, csvCell(e.UserEmail), csvCell(e.Provider),
		csvCell(e.IPAddress), csvCell(e.UserAgent), csvCell(meta), source}
}

// csvCell defuses a value a spreadsheet would run as a formula: user agents and failed
// sign-in details come from anyone on the internet.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// auditQuery is the typed filter of form.
func auditQuery(form *views.Form) auditlog.Query {
	return auditlog.Query{EventType: form.Value("event_type"), User: form.Value("user"), Provider: form.Value("provider"),
		From: form.Value("from"), To: form.Value("to")}
}

// auditArchive is the archive a search with f reads: none unless the retention tier archives
// and f's range starts before dbFrom, the first day the database keeps (only older days are
// ever archived).
func (a *app) auditArchive(f auditlog.Filter, dbFrom time.Time) (auditlog.Archive, error) {
	if !auditlog.Retention(a.Config.AuditLogRetention).Archives() || f.From.IsZero() || !f.From.Before(dbFrom) {
		return nil, nil
	}
	return auditlog.Open(a.Config.AuditArchiveURL)
}
