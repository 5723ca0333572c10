package handlers

import (
	"context"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/views"
)

// render writes comp as the response with status, giving it the page state (user, CSRF token,
// flash messages) through the context.
func (a *app) render(c echo.Context, status int, comp templ.Component) error {
	askToWait(c, status)
	ctx := inLanguage(c)
	st := &views.State{User: currentUser(c), Path: c.Request().URL.Path, Nav: navFor(c.Request().URL.Path)}
	st.RequestID, _ = c.Get(echo.HeaderXRequestID).(string)
	st.CSRF, _ = c.Get(ctxCSRF).(string)
	if c.Get(ctxCSRF) != nil { // the session is loaded: flash messages may wait in it
		if msg := a.Sessions.PopString(ctx, sessFlashSuccess); msg != "" {
			st.Flash = append(st.Flash, views.Flash{Kind: "success", Text: msg})
		}
		if msg := a.Sessions.PopString(ctx, sessFlashError); msg != "" {
			st.Flash = append(st.Flash, views.Flash{Kind: "error", Text: msg})
		}
	}
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().WriteHeader(status)
	return comp.Render(views.WithState(ctx, st), c.Response())
}

// inLanguage is the request's context in the language of its pages: the signed-in person's
// (their own, else their family's), else the one the browser asks for (Accept-Language).
func inLanguage(c echo.Context) context.Context {
	if u := currentUser(c); u != nil {
		return i18n.WithLanguage(c.Request().Context(), u.Lang())
	}
	return i18n.WithLanguage(c.Request().Context(), i18n.Match(c.Request().Header.Get("Accept-Language")))
}

func navFor(path string) string {
	switch {
	case path == "/":
		return "dashboard"
	case strings.HasPrefix(path, "/reports"):
		return "spending"
	case strings.HasPrefix(path, "/budgets"):
		return "budgets"
	case strings.HasPrefix(path, "/accounts"):
		return "accounts"
	case strings.HasPrefix(path, "/transactions"):
		return "transactions"
	case strings.HasPrefix(path, "/categories"):
		return "categories"
	case strings.HasPrefix(path, "/tags"):
		return "tags"
	case strings.HasPrefix(path, "/merchants"):
		return "merchants"
	case strings.HasPrefix(path, "/transfers"):
		return "transfers"
	case strings.HasPrefix(path, "/recurring"):
		return "recurring"
	case strings.HasPrefix(path, "/settings/rules"):
		return "rules"
	case strings.HasPrefix(path, "/imports"):
		return "imports"
	case strings.HasPrefix(path, "/settings/api_keys"):
		return "api_keys"
	case strings.HasPrefix(path, "/settings/bank_connections"):
		return "banks"
	case strings.HasPrefix(path, "/settings/webhooks"):
		return "webhooks"
	case strings.HasPrefix(path, "/settings/security"):
		return "security"
	case strings.HasPrefix(path, "/settings/profile"):
		return "profile"
	case strings.HasPrefix(path, "/settings/export"):
		return "export"
	case strings.HasPrefix(path, "/settings/family/members"), strings.HasPrefix(path, "/settings/family/invitations"):
		return "members"
	case strings.HasPrefix(path, "/settings/family"):
		return "family"
	case strings.HasPrefix(path, "/settings/exchange_rates"):
		return "exchange_rates"
	case strings.HasPrefix(path, "/admin/sso_providers"):
		return "admin_providers"
	case strings.HasPrefix(path, "/admin/users"):
		return "admin_users"
	case strings.HasPrefix(path, "/admin/sso_audit_logs"):
		return "admin_audit"
	case strings.HasPrefix(path, "/oauth/applications"):
		return "oauth_apps"
	}
	return ""
}

// formOf reads the named fields of a submitted form.
func formOf(c echo.Context, fields ...string) *views.Form {
	f := &views.Form{Values: map[string]string{}}
	for _, name := range fields {
		f.Values[name] = c.FormValue(name)
	}
	return f
}

// withError puts err's problems on f: per-field ones under their fields, in the language of
// ctx where they have an id in the catalogues, the rest as the form message. It returns the
// status to answer with, or false when err is not the client's.
func withError(ctx context.Context, f *views.Form, err error) (int, bool) {
	e := apperr.As(err)
	if e == nil || e.Code == apperr.Internal {
		return 0, false
	}
	if len(e.Fields) > 0 {
		f.Errors = e.FieldsIn(ctx)
	} else {
		f.Message = e.Message
	}
	return statusOf(e.Code), true
}
