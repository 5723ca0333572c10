package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/auth"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/internal/metrics"
	"tally/internal/sessions"
	"tally/models"
	"tally/sso"
	"tally/views"
)

// SSO is what sign-in through identity providers needs.
type SSO struct {
	Service    *sso.Service
	Registry   sso.Registry
	Strategies map[string]sso.Strategy
	Flows      *sso.Flows
	Env        sso.Env
}

// Session keys of SSO sign-ins.
const (
	sessSSOBinding  = "sso_binding"  // ties started flows to this browser session
	sessSSOPending  = "sso_pending"  // an identity waiting for its user's password
	sessSSOProvider = "sso_provider" // the provider the session signed in with
	sessSSOIDToken  = "sso_id_token" // its ID token, for RP-initiated logout
)

func (a *app) meta(c echo.Context) auditlog.Meta {
	return auditlog.Meta{IP: c.RealIP(), UserAgent: c.Request().UserAgent()}
}

// ssoButtons are the sign-in page's provider buttons.
func (a *app) ssoButtons(c echo.Context) []views.SSOButton {
	if a.SSO == nil {
		return nil
	}
	providers, err := sso.Enabled(c.Request().Context(), a.SSO.Registry)
	if err != nil {
		a.Log.ErrorContext(c.Request().Context(), "list sign-in providers", "error", err.Error())
		return nil
	}
	out := make([]views.SSOButton, len(providers))
	for i, p := range providers {
		out[i] = views.SSOButton{Name: p.Name, Label: p.Label, URL: "/auth/" + p.Name}
	}
	return out
}

// ssoStart is GET /auth/:provider: the browser goes to the provider to sign in. Connecting a
// provider to the signed-in user is ssoLinkStart's, behind a step-up: the old ?link=1 of this
// route only leads back to the security page, so that no link can skip it.
func (a *app) ssoStart(c echo.Context) error {
	if c.QueryParam("link") != "" {
		if currentUser(c) == nil {
			return redirect(c, "/sessions/new")
		}
		return redirect(c, "/settings/security")
	}
	return a.ssoBegin(c, sso.PurposeLogin)
}

// ssoLinkStart is POST /auth/:provider/link, from the security page: the browser goes to the
// provider, and the identity it comes back with is connected to the signed-in user. A user
// with a second factor gives it again first (stepUp): a stolen session alone must not plant
// a way in that outlives it.
func (a *app) ssoLinkStart(c echo.Context) error {
	return a.ssoBegin(c, sso.PurposeLink)
}

// ssoBegin sends the browser to the provider of :provider for purpose.
func (a *app) ssoBegin(c echo.Context, purpose string) error {
	ctx := c.Request().Context()
	p, err := sso.ByName(ctx, a.SSO.Registry, c.Param("provider"))
	if err != nil {
		return err
	}
	to, f, err := a.SSO.Strategies[p.Strategy].Begin(ctx, p, a.SSO.Env, purpose)
	if err != nil {
		a.SSO.Service.RecordFailure(ctx, p.Name, err, a.meta(c))
		return a.ssoFailed(c, err)
	}
	if err := a.SSO.Flows.Save(ctx, f, a.ssoBinding(c)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// ssoBinding returns the session's flow binding, making one when it has none.
func (a *app) ssoBinding(c echo.Context) string {
	ctx := c.Request().Context()
	b := a.Sessions.GetString(ctx, sessSSOBinding)
	if b == "" {
		b = ssoToken()
		a.Sessions.Put(ctx, sessSSOBinding, b)
	}
	return b
}

// ssoToken is a flow binding or a parked sign-in's token: 32 random bytes, base64url.
func ssoToken() string {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// ssoCallback is GET /auth/:provider/callback, where OIDC and OAuth2 providers send the
// browser back.
func (a *app) ssoCallback(c echo.Context) error {
	ctx := c.Request().Context()
	name := c.Param("provider")
	f, binding, err := a.SSO.Flows.Take(ctx, c.QueryParam("state"))
	if err == nil && (!sso.SameBinding(binding, a.Sessions.GetString(ctx, sessSSOBinding)) || f.Provider != name) {
		err = &sso.Failure{Reason: sso.ReasonInvalidState, Message: "This sign-in was not started in this browser. Please start again from the sign-in page."}
	}
	var p *sso.Provider
	if err == nil {
		p, err = a.flowProvider(c, f)
	}
	var id *sso.Identity
	if err == nil {
		id, err = a.SSO.Strategies[p.Strategy].Complete(ctx, p, a.SSO.Env, c.Request(), f)
		if f.Purpose == sso.PurposeTest {
			return a.renderTest(c, p, id, err)
		}
	}
	if err != nil {
		if _, ok := sso.AsFailure(err); ok || apperr.Is(err, apperr.NotFound) {
			a.SSO.Service.RecordFailure(ctx, name, err, a.meta(c))
			return a.ssoFailed(c, err)
		}
		return err
	}
	return a.ssoFinish(c, p, id, f.Purpose)
}

// flowProvider is the provider a flow is for: an enabled one, or for a super admin's test
// login any one, disabled included.
func (a *app) flowProvider(c echo.Context, f sso.Flow) (*sso.Provider, error) {
	if f.Purpose != sso.PurposeTest {
		return sso.ByName(c.Request().Context(), a.SSO.Registry, f.Provider)
	}
	if u := currentUser(c); u == nil || u.Role != models.RoleSuperAdmin {
		return nil, &sso.Failure{Reason: sso.ReasonInvalidState, Message: "Only a super admin can run a test login."}
	}
	all, err := a.SSO.Registry.All(c.Request().Context())
	if err != nil {
		return nil, err
	}
	for _, p := range all {
		if p.Name == f.Provider {
			return p, nil
		}
	}
	return nil, apperr.New(apperr.NotFound, "There is no such sign-in provider.")
}

// ssoFinish applies the sign-in rules to a verified identity and signs the person in.
func (a *app) ssoFinish(c echo.Context, p *sso.Provider, id *sso.Identity, purpose string) error {
	ctx := c.Request().Context()
	current := currentUser(c)
	if purpose == sso.PurposeLink && current == nil {
		return redirect(c, "/sessions/new")
	}
	out, err := a.SSO.Service.Complete(ctx, p, id, a.meta(c), purpose, current)
	if err != nil {
		if _, ok := sso.AsFailure(err); ok {
			return a.ssoFailed(c, err)
		}
		return err
	}
	metrics.SSOSignIns.WithLabelValues(p.Name, "ok").Inc()
	switch {
	case purpose == sso.PurposeLink:
		a.flash(c, "success", i18n.T(inLanguage(c), "sso_flash.connected", "Provider", p.Label))
		return redirect(c, "/settings/security")
	case out.PendingEmail != "":
		raw, err := json.Marshal(pendingLink{Provider: p.Name, Identity: id})
		if err != nil {
			return err
		}
		a.Sessions.Put(ctx, sessSSOPending, string(raw))
		return redirect(c, "/sso/link")
	}
	a.Sessions.Put(ctx, sessSSOProvider, p.Name)
	if id.IDToken != "" {
		a.Sessions.Put(ctx, sessSSOIDToken, id.IDToken)
	}
	// A user with a second factor gives it here too, unless the provider is trusted to have
	// checked one and says it did (sso.Provider.SecondFactorChecked): a provider identity
	// planted with a stolen session must not be a way in without it.
	st, err := a.MFA.StatusOf(ctx, out.User.ID)
	if err != nil {
		return err
	}
	checked := p.SecondFactorChecked(id)
	if st.Any() && !checked {
		return a.beginMFA(c, out.User, pendingSignIn{Via: p.Name})
	}
	if err := a.signIn(c, out.User); err != nil {
		return err
	}
	if st.Any() {
		// The provider's second factor stands for Tally's, now, as a code would.
		a.Sessions.Put(ctx, sessMFAVerifiedAt, a.Now().Unix())
	}
	if out.Created {
		a.flash(c, "success", i18n.T(i18n.WithLanguage(ctx, out.User.Lang()), "sign_in_flash.welcome"))
	}
	return redirect(c, a.returnTo(c))
}

// returnTo is where a sign-in goes next: the page that asked for it, or the dashboard.
func (a *app) returnTo(c echo.Context) string {
	to := a.Sessions.PopString(c.Request().Context(), sessReturnTo)
	if len(to) < 1 || to[0] != '/' || (len(to) > 1 && (to[1] == '/' || to[1] == '\\')) {
		return "/"
	}
	return to
}

// ssoFailed shows why a sign-in was refused, and what to do next.
func (a *app) ssoFailed(c echo.Context, err error) error {
	// Only a configured provider's name is a label: the path is anyone's to write.
	provider := "unknown"
	if p, err := sso.ByName(c.Request().Context(), a.SSO.Registry, c.Param("provider")); err == nil {
		provider = p.Name
	}
	metrics.SSOSignIns.WithLabelValues(provider, "failed").Inc()
	msg := i18n.T(inLanguage(c), "sign_in_flash.sso_failed")
	status := http.StatusForbidden
	if f, ok := sso.AsFailure(err); ok {
		msg = f.Message
		switch f.Reason {
		case sso.ReasonProviderUnavailable:
			status = http.StatusBadGateway
		case sso.ReasonInvalidState, sso.ReasonExpired, sso.ReasonInvalidResponse, sso.ReasonReplayed:
			status = http.StatusBadRequest
		}
		if f.Err != nil {
			a.Log.WarnContext(c.Request().Context(), "sign-in refused", "reason", f.Reason, "error", f.Err.Error())
		}
	} else if e := apperr.As(err); e != nil && e.Code == apperr.NotFound {
		msg, status = i18n.T(inLanguage(c), "sign_in_flash.provider_unavailable"), http.StatusNotFound
	}
	return a.render(c, status, views.SSOFailedPage(msg))
}

// pendingLink is an identity whose email belongs to an existing user, kept in the session
// until that user confirms with their password.
type pendingLink struct {
	Provider string        `json:"provider"`
	Identity *sso.Identity `json:"identity"`
}

// pending returns the session's pending link and its provider; nil when there is none, or
// when it no longer holds (then it is dropped).
func (a *app) pending(c echo.Context) (*pendingLink, *sso.Provider) {
	ctx := c.Request().Context()
	raw := a.Sessions.GetString(ctx, sessSSOPending)
	if raw == "" {
		return nil, nil
	}
	var pl pendingLink
	if err := json.Unmarshal([]byte(raw), &pl); err != nil || pl.Identity == nil {
		a.Sessions.Remove(ctx, sessSSOPending)
		return nil, nil
	}
	p, err := sso.ByName(ctx, a.SSO.Registry, pl.Provider)
	if err != nil {
		a.Sessions.Remove(ctx, sessSSOPending)
		return nil, nil
	}
	return &pl, p
}

// ssoLinkPage is GET /sso/link: the password form that connects a provider's account to the
// existing user with its email.
func (a *app) ssoLinkPage(c echo.Context) error {
	pl, p := a.pending(c)
	if pl == nil {
		return redirect(c, "/sessions/new")
	}
	return a.render(c, http.StatusOK, views.SSOLinkPage(views.SSOLink{Provider: p.Label, Email: pl.Identity.Email}))
}

// ssoLinkConfirm is POST /sso/link.
func (a *app) ssoLinkConfirm(c echo.Context) error {
	ctx := c.Request().Context()
	pl, p := a.pending(c)
	if pl == nil {
		return redirect(c, "/sessions/new")
	}
	// A password alone does not vouch for an account with a second factor: linking a provider
	// to it here would let that provider in without the factor from then on.
	if existing, err := models.UserByEmail(ctx, a.DB, pl.Identity.Email); err == nil {
		st, err := a.MFA.StatusOf(ctx, existing.ID)
		if err != nil {
			return err
		}
		if st.Any() {
			form := &views.Form{Message: "This account has two-factor sign-in, so a password alone cannot connect " + p.Label +
				" to it. Sign in with your password and your second factor, then connect " + p.Label + " from Settings › Security."}
			return a.render(c, http.StatusForbidden, views.SSOLinkPage(views.SSOLink{Provider: p.Label, Email: pl.Identity.Email, Form: form}))
		}
	} else if !apperr.Is(err, apperr.NotFound) {
		return err
	}
	// The password is checked under the account's wrong-password limit, the sign-in form's.
	u, err := a.Auth.ConfirmPassword(ctx, auth.Attempt{Email: pl.Identity.Email, Password: c.FormValue("password"),
		Browser: a.browserMarks(c), Meta: a.meta(c)}, p.Name)
	if err == nil {
		u, err = a.SSO.Service.ConfirmLink(ctx, p, pl.Identity, u.ID, a.meta(c))
	}
	if err != nil {
		if f, ok := sso.AsFailure(err); ok {
			a.Sessions.Remove(ctx, sessSSOPending)
			return a.ssoFailed(c, f)
		}
		form := &views.Form{}
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.SSOLinkPage(views.SSOLink{Provider: p.Label, Email: pl.Identity.Email, Form: form}))
		}
		return err
	}
	a.Sessions.Remove(ctx, sessSSOPending)
	if err := a.signIn(c, u); err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessSSOProvider, p.Name)
	if pl.Identity.IDToken != "" {
		a.Sessions.Put(ctx, sessSSOIDToken, pl.Identity.IDToken)
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "sign_in_flash.sso_linked", "Provider", p.Label))
	return redirect(c, a.returnTo(c))
}

// samlProvider loads the SAML provider of the path's :key, enabled or not: an administrator
// registers Tally at the IdP, and tests it, before enabling it. Sign-ins of a disabled
// provider cannot start (ssoStart), so its ACS only ever finishes a test login.
func (a *app) samlProvider(c echo.Context) (*sso.Provider, error) {
	all, err := a.SSO.Registry.All(c.Request().Context())
	if err != nil {
		return nil, err
	}
	for _, p := range all {
		if p.PathKey() == c.Param("key") && p.Strategy == sso.StrategySAML {
			return p, nil
		}
	}
	return nil, apperr.New(apperr.NotFound, "There is no such SAML provider.").WithSlug("record_not_found")
}

// samlEntityID is GET /auth/saml/:key: the service provider's entity id, as text.
func (a *app) samlEntityID(c echo.Context) error {
	p, err := a.samlProvider(c)
	if err != nil {
		return err
	}
	return c.String(http.StatusOK, p.EntityID(a.SSO.Env.AppURL))
}

// samlMetadata is GET /auth/saml/:key/metadata: the service provider's metadata for the IdP.
func (a *app) samlMetadata(c echo.Context) error {
	p, err := a.samlProvider(c)
	if err != nil {
		return err
	}
	xml, err := sso.SAMLMetadata(c.Request().Context(), p, a.SSO.Env)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/samlmetadata+xml", xml)
}

// samlACS is POST /auth/saml/:key/callback, the assertion consumer service. The IdP's page
// posts here cross-site, so the browser sends no session cookie: the response is checked
// against the flow its RelayState names (signature, audience, times, InResponseTo, replay),
// and the identity is parked for the browser's next request, which carries the session and
// finishes the sign-in.
func (a *app) samlACS(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := a.samlProvider(c)
	if err != nil {
		return err
	}
	f, binding, err := a.SSO.Flows.Take(ctx, c.FormValue("RelayState"))
	if err == nil && f.Provider != p.Name {
		err = &sso.Failure{Reason: sso.ReasonInvalidState, Message: "This sign-in was not started for this provider. Please start again."}
	}
	var id *sso.Identity
	if err == nil {
		id, err = a.SSO.Strategies[sso.StrategySAML].Complete(ctx, p, a.SSO.Env, c.Request(), f)
	}
	if err != nil {
		a.SSO.Service.RecordFailure(ctx, p.Name, err, a.meta(c))
		return a.ssoFailed(c, err)
	}
	t := ssoToken()
	if err := a.SSO.Flows.Park(ctx, t, sso.Parked{Flow: f, Identity: id}, binding, a.SSO.Env.Now()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/auth/saml/%s/finish?token=%s", p.PathKey(), t))
}

// samlFinish is GET /auth/saml/:key/finish: the browser's own request after the ACS, with its
// session, which must be the one that started the flow.
func (a *app) samlFinish(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := a.samlProvider(c)
	if err != nil {
		return err
	}
	parked, binding, err := a.SSO.Flows.Claim(ctx, c.QueryParam("token"))
	if err == nil && !sso.SameBinding(binding, a.Sessions.GetString(ctx, sessSSOBinding)) {
		err = &sso.Failure{Reason: sso.ReasonInvalidState, Message: "This sign-in was not started in this browser. Please start again from the sign-in page."}
	}
	if err != nil {
		a.SSO.Service.RecordFailure(ctx, p.Name, err, a.meta(c))
		return a.ssoFailed(c, err)
	}
	if parked.Flow.Purpose == sso.PurposeTest {
		if _, err := a.flowProvider(c, parked.Flow); err != nil {
			return a.ssoFailed(c, err)
		}
		return a.renderTest(c, p, parked.Identity, nil)
	}
	if !p.Enabled {
		return a.ssoFailed(c, apperr.New(apperr.NotFound, "That sign-in provider is not available."))
	}
	return a.ssoFinish(c, p, parked.Identity, parked.Flow.Purpose)
}

// samlLogout is GET /auth/saml/:key/logout: the IdP's single logout lands here, and the
// session ends.
func (a *app) samlLogout(c echo.Context) error {
	if _, err := a.samlProvider(c); err != nil {
		return err
	}
	return a.signOut(c, false)
}

// signOut ends the session and audits it. With idp, a session that signed in through an OIDC
// provider offering RP-initiated logout is sent there too.
func (a *app) signOut(c echo.Context, idp bool) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	providerName := a.Sessions.GetString(ctx, sessSSOProvider)
	idToken := a.Sessions.GetString(ctx, sessSSOIDToken)
	var end string
	if idp && a.SSO != nil && idToken != "" && providerName != "" {
		if p, err := sso.ByName(ctx, a.SSO.Registry, providerName); err == nil && p.Strategy == sso.StrategyOIDC {
			if s, ok := a.SSO.Strategies[sso.StrategyOIDC].(sso.EndSessioner); ok {
				end = s.EndSessionURL(ctx, p, a.SSO.Env, idToken, a.SSO.Env.AppURL+"/sessions/new")
			}
		}
	}
	for _, k := range append([]string{sessCSRF, sessSSOProvider, sessSSOIDToken, sessSSOBinding, sessSSOPending}, secondFactorKeys...) {
		a.Sessions.Remove(ctx, k)
	}
	a.Sessions.Remove(ctx, sessions.UserIDKey)
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	if u != nil {
		e := auditlog.Event{Type: auditlog.EventLogout, UserID: &u.ID, Provider: providerName, Meta: a.meta(c)}
		if end != "" {
			e.Type = auditlog.EventLogoutIdP
		}
		if err := auditlog.Record(ctx, a.DB, e); err != nil {
			a.Log.ErrorContext(ctx, "write audit event", "event", e.Type, "error", err.Error())
		}
	}
	if end != "" {
		return c.Redirect(http.StatusSeeOther, end)
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "sign_in_flash.signed_out"))
	return redirect(c, "/sessions/new")
}
