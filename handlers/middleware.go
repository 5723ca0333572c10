package handlers

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/internal/apperr"
	"tally/internal/metrics"
	"tally/internal/ratelimit"
	"tally/internal/sessions"
	"tally/models"
	"tally/views"
)

// Context keys set by middleware.
const (
	ctxUser     = "user"
	ctxViewer   = "viewer"
	ctxAPIScope = "api_scope"
	ctxCSRF     = "csrf"
)

// Session keys.
const (
	sessCSRF         = "csrf"
	sessFlashSuccess = "flash_success"
	sessFlashError   = "flash_error"
	sessReturnTo     = "return_to"
)

// requestID gives each request an id, from a trusted proxy's X-Request-Id when it is sane,
// and sends it back in X-Request-Id.
// requestIDPattern is what a trusted proxy's X-Request-Id may hold to be kept.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func (a *app) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		// A request id sent by a trusted proxy is kept, so that its log and Tally's match;
		// from anyone else it could forge or collide with another's.
		id := ""
		if a.fromTrustedProxy(c.Request()) {
			id = c.Request().Header.Get(echo.HeaderXRequestID)
		}
		if !requestIDPattern.MatchString(id) { // it goes into logs, headers and error bodies
			id = uuid.NewString()
		}
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		c.Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

// fromTrustedProxy reports whether r comes straight from one of TRUSTED_PROXIES.
func (a *app) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	for _, n := range a.Config.TrustedProxies {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// logRequests writes one line per request, and turns a panic into an internal error.
func (a *app) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		start := time.Now()
		defer func() {
			p := recover()
			// A handler that must cut a response off mid-body (a failed export) panics with
			// http.ErrAbortHandler: it is logged here and handed on to net/http, which closes
			// the connection.
			aborted := p == http.ErrAbortHandler
			if aborted {
				defer panic(p)
			} else if p != nil {
				err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
			if err != nil {
				c.Error(err)
			}
			req := c.Request()
			attrs := []any{
				"method", req.Method, "path", req.URL.Path, "status", c.Response().Status,
				"duration_ms", time.Since(start).Milliseconds(), "request_id", c.Get(echo.HeaderXRequestID),
				"ip", c.RealIP(),
			}
			if u, ok := c.Get(ctxUser).(*models.User); ok {
				attrs = append(attrs, "user_id", u.ID, "family_id", u.FamilyID)
			}
			a.Log.LogAttrs(req.Context(), slog.LevelInfo, "request", argsToAttrs(attrs)...)
			route := c.Path()
			if route == "" {
				route = "unmatched" // no route: never the raw path, which would make a series per URL
			}
			method := req.Method
			if !knownMethods[method] {
				method = "other" // a made-up method would be a new series each time
			}
			metrics.HTTPRequests.WithLabelValues(route, method, strconv.Itoa(c.Response().Status)).Inc()
			metrics.HTTPDuration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		}()
		return next(c)
	}
}

func argsToAttrs(args []any) []slog.Attr {
	attrs := make([]slog.Attr, 0, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		attrs = append(attrs, slog.Any(args[i].(string), args[i+1]))
	}
	return attrs
}

// secureHeaders sets the headers every response should carry.
func (a *app) secureHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self' https: http:; base-uri 'self'")
		if a.Config.SecureCookies {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		return next(c)
	}
}

// loadSession loads the scs session for the request and saves it after.
func (a *app) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var nextErr error
		h := a.Sessions.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.SetRequest(r)
			c.Response().Writer = w
			nextErr = next(c)
			// Errors are rendered here, inside LoadAndSave, so that flash and session changes
			// made while handling them are saved with the response.
			if nextErr != nil {
				c.Error(nextErr)
				nextErr = nil
			}
		}))
		var sessErr error
		req := c.Request()
		ctx := context.WithValue(sessions.WithClient(req.Context(), c.RealIP(), req.UserAgent()), sessionErrKey{}, &sessErr)
		h.ServeHTTP(c.Response().Writer, req.WithContext(ctx))
		if sessErr != nil {
			return sessErr
		}
		return nextErr
	}
}

// sessionErrKey holds, in a request's context, where the session store's error goes.
type sessionErrKey struct{}

// csrf checks the session's CSRF token on every state-changing request. Browsers that say a
// request is cross-site are refused outright.
func (a *app) csrf(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		token := a.Sessions.GetString(ctx, sessCSRF)
		if token == "" {
			b := make([]byte, 32)
			if _, err := rand.Read(b); err != nil {
				return err
			}
			token = base64.RawURLEncoding.EncodeToString(b)
			a.Sessions.Put(ctx, sessCSRF, token)
		}
		c.Set(ctxCSRF, token)
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if c.Request().Header.Get("Sec-Fetch-Site") == "cross-site" {
			return a.refuseForm(c, msgCrossSite)
		}
		sent := c.Request().Header.Get("X-CSRF-Token")
		if sent == "" {
			if err := parseForm(c.Request()); err != nil {
				return a.bodyError(err, "The form could not be read")
			}
			sent = c.FormValue("_csrf")
		}
		if subtle.ConstantTimeCompare([]byte(sent), []byte(token)) != 1 {
			return a.refuseForm(c, msgFormExpired)
		}
		return next(c)
	}
}

// refuseForm is the error of a form csrf refuses, saying why. The page that says it is in its
// reader's language, so the signed-in user, whom loadUser has not read yet, is read for it
// (without loadUser's ending of a stale session: a refused request changes nothing).
func (a *app) refuseForm(c echo.Context, why string) error {
	if u, err := a.sessionUser(c); err == nil && u != nil {
		c.Set(ctxUser, u)
	}
	return apperr.New(apperr.Forbidden, why)
}

// loadUser puts the signed-in user into the context. A session whose user was suspended or
// deleted is destroyed.
func (a *app) loadUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if a.Sessions.GetString(ctx, sessions.UserIDKey) == "" {
			return next(c)
		}
		u, err := a.sessionUser(c)
		switch {
		case err != nil:
			return err
		case u != nil:
			c.Set(ctxUser, u)
			return next(c)
		}
		if err := a.Sessions.Destroy(ctx); err != nil {
			return err
		}
		return next(c)
	}
}

// sessionUser is the user the session is signed in as: nil when it is signed in as nobody, or
// as a user suspended or deleted since.
func (a *app) sessionUser(c echo.Context) (*models.User, error) {
	ctx := c.Request().Context()
	id, err := uuid.Parse(a.Sessions.GetString(ctx, sessions.UserIDKey))
	if err != nil {
		return nil, nil
	}
	u, err := a.Auth.UserForSession(ctx, id)
	if apperr.Is(err, apperr.NotFound) {
		return nil, nil
	}
	return u, err
}

// requireUser sends people who are not signed in to the sign-in page (or onboarding on a new
// instance), and back here afterwards.
func (a *app) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) != nil {
			return next(c)
		}
		ctx := c.Request().Context()
		n, err := models.CountUsers(ctx, a.DB)
		if err != nil {
			return err
		}
		target := "/sessions/new"
		if a.Sessions.Exists(ctx, sessMFAUser) {
			// Half signed in: the second factor is the only page there is.
			return redirect(c, "/sessions/mfa")
		}
		if n == 0 {
			target = "/onboarding"
		} else if isPageNavigation(c) {
			a.Sessions.Put(ctx, sessReturnTo, c.Request().URL.RequestURI())
		}
		return redirect(c, target)
	}
}

// rateLimit allows rule's number of requests per window and client IP for the route group
// called name, counted in PostgreSQL across every instance.
func (a *app) rateLimit(name string, rule ratelimit.Rule) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			res, err := a.Limiter.Allow(c.Request().Context(), name+":"+c.RealIP(), rule)
			if err != nil {
				return err
			}
			if !res.Allowed {
				return a.tooMany(c, res, name)
			}
			return next(c)
		}
	}
}

// isPageNavigation reports whether the request is a person opening a page, as opposed to a
// browser fetching an icon or htmx fetching a fragment: only those are worth returning to.
func isPageNavigation(c echo.Context) bool {
	r := c.Request()
	return r.Method == http.MethodGet && r.Header.Get("HX-Request") == "" &&
		(r.Header.Get("Accept") == "" || strings.Contains(r.Header.Get("Accept"), "text/html"))
}

func currentUser(c echo.Context) *models.User {
	u, _ := c.Get(ctxUser).(*models.User)
	return u
}

// viewer is who reads the family's data in this request: the signed-in person (or the API
// key's or token's user), with the private accounts they may not see. It is read once per
// request, on first use. Every query of a person's request reads through it.
func (a *app) viewer(c echo.Context) (models.Viewer, error) {
	if v, ok := c.Get(ctxViewer).(models.Viewer); ok {
		return v, nil
	}
	v, err := models.ViewerOf(c.Request().Context(), a.DB, currentUser(c))
	if err != nil {
		return models.Viewer{}, err
	}
	c.Set(ctxViewer, v)
	return v, nil
}

// inPersonsStyle is the request's context as views read the signed-in person from it, for a
// message written before a page renders: in their language, its amounts and dates in their
// number and date style.
func inPersonsStyle(c echo.Context) context.Context {
	return views.WithState(inLanguage(c), &views.State{User: currentUser(c)})
}

// redirect answers 303 See Other, or tells htmx to navigate.
func redirect(c echo.Context, to string) error {
	if c.Request().Header.Get("HX-Request") == "true" {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// flash leaves a message for the next page.
func (a *app) flash(c echo.Context, kind, text string) {
	key := sessFlashSuccess
	if kind == "error" {
		key = sessFlashError
	}
	a.Sessions.Put(c.Request().Context(), key, text)
}

// signIn starts a session for u: a new session token (against fixation) and a new CSRF token.
func (a *app) signIn(c echo.Context, u *models.User) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	for _, k := range append([]string{sessCSRF}, secondFactorKeys...) {
		a.Sessions.Remove(ctx, k)
	}
	a.Sessions.Put(ctx, sessions.UserIDKey, u.ID.String())
	// The browser is one u signed in from: their counts of wrong answers here are its own.
	marks, err := a.Auth.Browsers.Remember(ctx, a.browserMarks(c), u.ID, a.meta(c))
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: browserCookie, Value: marks, Path: "/", MaxAge: int(auth.BrowserLifetime.Seconds()),
		HttpOnly: true, Secure: a.Config.SecureCookies, SameSite: http.SameSiteLaxMode})
	return nil
}

// browserCookie holds the browser's marks of the users who signed in from it (auth.Browsers).
const browserCookie = "tally_browser"

// browserMarks is the browser's browserCookie, "" when it has none.
func (a *app) browserMarks(c echo.Context) string {
	ck, err := c.Cookie(browserCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// limitBody bounds what a page's request may send: a file of the import size limit (the
// import form's, a move-in's export), with room for the multipart framing and the form's other
// fields. It runs before anything reads the body (the CSRF check parses the form), so an
// oversized upload is refused before it is spooled anywhere; each import type checks its own
// limit once the file is read.
func (a *app) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		file, most := a.Imports.Limits.MaxBytes, fmt.Sprintf("files may be at most %d MB", a.Imports.Limits.MaxBytes>>20)
		if c.Request().Method == http.MethodPost && c.Path() == importFormPath {
			file = a.Imports.UploadBytes()
			most = fmt.Sprintf("an Actual or YNAB export may be at most %d MB, any other file %d MB", file>>20, a.Imports.Limits.MaxBytes>>20)
		}
		limit := int64(file) + 1<<20
		r := c.Request()
		if r.ContentLength > limit {
			return apperr.Errorf(apperr.TooLarge, "The upload is too large: %s.", most)
		}
		r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
		return next(c)
	}
}

// importFormPath is where the import page's form posts its file.
const importFormPath = "/imports"

// knownMethods are the HTTP methods metrics label by name; any other is "other".
var knownMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true}

// bodyDeadline cuts a request whose body stops arriving: before every read of the body the
// connection's read deadline moves to BodyTimeout from now, so a slow upload that keeps
// coming goes on, and one that stalls is cut within BodyTimeout.
func (a *app) bodyDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(c.Response().Writer)
			// Also bounds what the server reads of a body the handler left unread.
			_ = rc.SetReadDeadline(time.Now().Add(a.Config.BodyTimeout))
			r.Body = &stallingBody{ReadCloser: r.Body, rc: rc, timeout: a.Config.BodyTimeout}
		}
		return next(c)
	}
}

// stallingBody is a request body whose every read must start arriving within timeout.
type stallingBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
}

func (b *stallingBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout)) // unsupported only by test recorders
	return b.ReadCloser.Read(p)
}

// requestTimeout bounds a request's work to RequestTimeout: its context ends then, which
// cancels its database statement and rolls its transaction back, and it answers 503
// (toAppError). The export streams for as long as it takes, and is left out.
func (a *app) requestTimeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Path() {
		case "/api/v1/export", "/settings/export/download":
			return next(c)
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), a.Config.RequestTimeout)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// adminsOnly lets the family's admins through and answers anyone else with an error of code
// and message: a page answers 404 (requireFamilyAdmin), so that a member learns nothing of
// it, and the API a 403 that says what needs an admin.
func adminsOnly(code apperr.Code, message string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if u := currentUser(c); u == nil || !u.IsAdmin() {
				return apperr.New(code, message)
			}
			return next(c)
		}
	}
}

// requireFamilyAdmin lets the family's admins through to a page; members get a 404.
var requireFamilyAdmin = adminsOnly(apperr.NotFound, "Page not found")
