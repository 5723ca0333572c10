package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/probes"
	"tally/views"
)

// statusOf maps an error code to an HTTP status. It is the only such mapping.
func statusOf(code apperr.Code) int {
	switch code {
	case apperr.Invalid, apperr.InvalidFormat:
		return http.StatusUnprocessableEntity
	case apperr.BadRequest:
		return http.StatusBadRequest
	case apperr.NotFound:
		return http.StatusNotFound
	case apperr.Conflict:
		return http.StatusConflict
	case apperr.Unauthorized:
		return http.StatusUnauthorized
	case apperr.Forbidden:
		return http.StatusForbidden
	case apperr.TooLarge:
		return http.StatusRequestEntityTooLarge
	case apperr.RateLimited:
		return http.StatusTooManyRequests
	case apperr.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// apiSlugs are the API's "error" values per code.
var apiSlugs = map[apperr.Code]string{
	apperr.Invalid:       "validation_failed",
	apperr.InvalidFormat: "invalid_format",
	apperr.BadRequest:    "bad_request",
	apperr.NotFound:      "record_not_found",
	apperr.Conflict:      "conflict",
	apperr.Unauthorized:  "unauthorized",
	apperr.Forbidden:     "forbidden",
	apperr.TooLarge:      "content_too_large",
	apperr.RateLimited:   "rate_limit_exceeded",
	apperr.Unavailable:   "service_unavailable",
	apperr.Internal:      "internal_server_error",
}

// APIError is the JSON body of every API error.
type APIError struct {
	Error    string   `json:"error"`
	Message  string   `json:"message,omitempty"`
	Details  any      `json:"details,omitempty"`
	Errors   []string `json:"errors,omitempty"`
	ImportID string   `json:"import_id,omitempty"`
	// RequestID is the request's id, as in X-Request-Id and the log: people quote it.
	RequestID string `json:"request_id,omitempty"`
}

// toAppError turns any error into an *apperr.Error: Echo's own errors (unknown route, wrong
// method, a body too large) keep their status's meaning; anything else is internal.
func toAppError(err error) *apperr.Error {
	if e := apperr.As(err); e != nil {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && m != "" {
			msg = m
		}
		switch he.Code {
		case http.StatusNotFound:
			return &apperr.Error{Code: apperr.NotFound, Message: msgNotFound, Err: err}
		case http.StatusMethodNotAllowed:
			return &apperr.Error{Code: apperr.NotFound, Message: msgNotFound, Err: err}
		case http.StatusRequestEntityTooLarge:
			return &apperr.Error{Code: apperr.TooLarge, Message: "The request body is too large", Err: err}
		case http.StatusBadRequest, http.StatusUnsupportedMediaType:
			return &apperr.Error{Code: apperr.BadRequest, Message: msg, Err: err}
		case http.StatusUnauthorized:
			return &apperr.Error{Code: apperr.Unauthorized, Message: msg, Err: err}
		case http.StatusForbidden:
			return &apperr.Error{Code: apperr.Forbidden, Message: msg, Err: err}
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &apperr.Error{Code: apperr.Unavailable, Slug: "request_timeout", Err: err, Message: msgTooLong}
	}
	if db.Unreachable(err) {
		return &apperr.Error{Code: apperr.Unavailable, Slug: "service_unavailable", Err: err, Message: msgDatabaseDown}
	}
	return &apperr.Error{Code: apperr.Internal, Message: msgInternal, Err: err}
}

// msgInternal is the answer to a request that failed on Tally's side.
const msgInternal = "Something went wrong on our side. It has been logged; please try again."

// msgNotFound is the answer to a path or method no route serves.
const msgNotFound = "The requested resource was not found"

// msgTooLong is the answer to a request that ran past REQUEST_TIMEOUT.
const msgTooLong = "This took too long and was stopped, so nothing was changed. Please try again; if it keeps happening, ask for less at once."

// msgDatabaseDown is the answer to every request while the database cannot be reached.
const msgDatabaseDown = "Tally can't reach its database right now. Nothing was changed; please try again in a moment."

// msgCrossSite is the answer to a form another site submitted.
const msgCrossSite = "Cross-site form submissions are not accepted."

// msgFormExpired is the answer to a form sent without the session's CSRF token.
const msgFormExpired = "This form has expired. Reload the page and try again."

// askToWait sets Retry-After on a 503, and on a 429 that has not said its own wait (a rate
// limit's does; busy upload readers do not).
func askToWait(c echo.Context, status int) {
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests && c.Response().Header().Get("Retry-After") == "" {
		c.Response().Header().Set("Retry-After", probes.RetryAfter)
	}
}

// handleError is Echo's error handler: JSON under /api, an htmx fragment for htmx requests, a
// page otherwise. Only internal errors are logged, and their text never reaches the client.
func (a *app) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := toAppError(err)
	status := statusOf(e.Code)
	dbDown := e.Message == msgDatabaseDown
	switch {
	case dbDown:
		// Logged once per outage, not once per request.
		a.databaseDown(c.Request().Context(), err)
	case status >= 500:
		a.Log.ErrorContext(c.Request().Context(), "internal error", slog.String("error", err.Error()),
			slog.Any("request_id", c.Get(echo.HeaderXRequestID)), slog.String("path", c.Request().URL.Path))
	}
	askToWait(c, status)
	var renderErr error
	switch {
	case isAPI(c):
		body := APIError{Error: e.Slug, Message: e.Message, Details: e.Details}
		body.RequestID, _ = c.Get(echo.HeaderXRequestID).(string)
		if body.Error == "" {
			body.Error = apiSlugs[e.Code]
		}
		if e.Code == apperr.NotFound && e.Slug == "" {
			body.Message = msgNotFound
		}
		var withImport interface{ UploadedImportID() string }
		if errors.As(err, &withImport) {
			body.ImportID = withImport.UploadedImportID()
		}
		if len(e.Fields) > 0 {
			keys := make([]string, 0, len(e.Fields))
			for k := range e.Fields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				body.Errors = append(body.Errors, e.Fields[k]...)
			}
			if body.Details == nil {
				body.Details = e.Fields
			}
		}
		if c.Request().Method == http.MethodHead {
			renderErr = c.NoContent(status)
		} else {
			renderErr = c.JSON(status, body)
		}
	case c.Request().Header.Get("HX-Request") == "true":
		renderErr = a.render(c, status, views.ErrorFragment(pageMessage(inLanguage(c), e)))
	case dbDown:
		// Rendered without the session, the user or anything else from the database.
		c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
		c.Response().WriteHeader(status)
		st := &views.State{}
		st.RequestID, _ = c.Get(echo.HeaderXRequestID).(string)
		ctx := inLanguage(c)
		renderErr = views.ErrorPage(status, i18n.T(ctx, "error.database_down_title"), pageMessage(ctx, e)).Render(views.WithState(ctx, st), c.Response())
	default:
		ctx := inLanguage(c)
		renderErr = a.render(c, status, views.ErrorPage(status, titleFor(ctx, status), pageMessage(ctx, e)))
	}
	if renderErr != nil {
		a.Log.ErrorContext(c.Request().Context(), "render error response", slog.String("error", renderErr.Error()))
	}
}

// titleFor is the title of an error page with status, in the language of ctx.
func titleFor(ctx context.Context, status int) string {
	switch status {
	case http.StatusNotFound:
		return i18n.T(ctx, "error.not_found_title")
	case http.StatusForbidden:
		return i18n.T(ctx, "error.forbidden_title")
	case http.StatusTooManyRequests:
		return i18n.T(ctx, "error.too_many_title")
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		return i18n.T(ctx, "error.invalid_title")
	}
	if status >= 500 {
		return i18n.T(ctx, "error.internal_title")
	}
	return fmt.Sprint(http.StatusText(status))
}

// pageMessages are the messages of the errors every request may meet, which the API gives in
// English, by the id of their text on a page.
var pageMessages = map[string]string{
	msgInternal:     "error.internal",
	msgNotFound:     "error.not_found",
	msgTooLong:      "error.too_long",
	msgDatabaseDown: "error.database_down",
	msgCrossSite:    "error_page.cross_site",
	msgFormExpired:  "error_page.form_expired",
}

// pageMessage is e's message as a page says it in the language of ctx: one of pageMessages
// translated; for anything not found, the not-found page's own sentence, which English says
// with the error's words ("Transaction not found") and which names nothing the reader could
// not see; any other message as it is.
func pageMessage(ctx context.Context, e *apperr.Error) string {
	if id, ok := pageMessages[e.Message]; ok {
		return i18n.T(ctx, id)
	}
	if e.Code == apperr.NotFound {
		return i18n.T(ctx, "error_page.not_found", "Message", e.Message)
	}
	return e.Message
}

// isAPI reports whether the request is an application's, answered in JSON: the API and the
// OAuth endpoints applications call (not the consent page or the applications pages).
func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	switch p {
	case "/oauth/token", "/oauth/revoke", "/oauth/introspect", "/register":
		return true
	}
	if isPasskeyCeremony(p) {
		return true
	}
	return strings.HasPrefix(p, "/api/")
}
