package handlers

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/sessions"
	"tally/models"
	"tally/sso"
	"tally/views"
)

// securityRoutes registers /settings/security on the signed-in group.
func (a *app) securityRoutes(g *echo.Group) {
	g.GET("/settings/security", a.securityShow)
	g.POST("/settings/security/identities/:id/disconnect", a.identityDisconnect, a.stepUp("step_up_action.disconnect_identity", nil))
	g.POST("/settings/security/sessions/sign_out_others", a.sessionsSignOutOthers)
	g.POST("/settings/security/browsers/:id/forget", a.browserForget)
	g.POST("/settings/security/applications/:client_id/revoke", a.appRevoke)
}

func (a *app) securityShow(c echo.Context) error {
	return a.securityPage(c, http.StatusOK, "")
}

// securityPage renders the page with status; refusal is why the action just asked for was
// refused, if it was.
func (a *app) securityPage(c echo.Context, status int, refusal string) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	all, err := a.providers(ctx)
	if err != nil {
		return err
	}
	ways := models.SignInWays{SignInRules: a.signInRules(all), HasPassword: u.PasswordHash != nil, Role: u.Role}
	if ways.Identities, err = models.UserIdentities(ctx, a.DB, u.ID); err != nil {
		return err
	}
	p := views.Security{Error: refusal}
	st, err := a.MFA.StatusOf(ctx, u.ID)
	if err != nil {
		return err
	}
	p.MFA = views.SecurityMFA{HasPassword: u.PasswordHash != nil, TOTP: st.TOTP, TOTPSince: st.TOTPSince, RecoveryCodes: st.RecoveryCodes, Passkeys: st.Passkeys}
	for _, name := range ways.Connectable() {
		p.Connectable = append(p.Connectable, views.SecurityProvider{Name: name, Label: labelOf(all, name)})
	}
	for _, id := range ways.Identities {
		p.Identities = append(p.Identities, views.SecurityIdentity{
			ID: id.ID.String(), Label: labelOf(all, id.Provider), Email: id.Email, LastUsedAt: id.LastUsedAt,
			Refusal: ways.Refusal(id.ID),
		})
	}
	live, err := models.UserSessions(ctx, a.DB, u.ID, a.Sessions.Token(ctx))
	if err != nil {
		return err
	}
	for _, s := range live {
		p.Sessions = append(p.Sessions, views.SecuritySession{IP: s.IP, UserAgent: s.UserAgent, CreatedAt: s.CreatedAt,
			LastSeenAt: s.LastSeenAt, Current: s.Current})
	}
	browsers, err := a.Auth.Browsers.List(ctx, a.browserMarks(c), u.ID)
	if err != nil {
		return err
	}
	for _, b := range browsers {
		p.Browsers = append(p.Browsers, views.SecurityBrowser{ID: b.ID.String(), UserAgent: b.UserAgent, IP: b.IP,
			CreatedAt: b.CreatedAt, LastAt: b.LastUsedAt, ExpiresAt: b.ExpiresAt, Current: b.Current})
	}
	apps, err := a.OAuth.AuthorizedApps(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, app := range apps {
		p.Apps = append(p.Apps, views.SecurityApp{ClientID: app.ClientID, Name: app.Name, Scopes: app.Scopes,
			GrantedAt: app.GrantedAt, LastIssued: app.LastIssued})
	}
	return a.render(c, status, views.SecurityPage(p))
}

// identityDisconnect deletes one of the user's SSO identities, unless it is their last way to
// sign in, and audits it as unlink. Another user's identity is a 404.
func (a *app) identityDisconnect(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	id, err := pathID(c)
	if err != nil {
		return err
	}
	all, err := a.providers(ctx)
	if err != nil {
		return err
	}
	var gone models.IdentitySummary
	err = a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var err error
		if gone, err = models.DisconnectIdentity(ctx, tx, u.ID, id, a.signInRules(all)); err != nil {
			return err
		}
		return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventUnlink, UserID: &u.ID, Provider: gone.Provider, Meta: a.meta(c)})
	})
	if e := apperr.As(err); e != nil && e.Code == apperr.Conflict {
		return a.securityPage(c, http.StatusConflict, e.Message)
	}
	if err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "security.disconnected", "Provider", views.ProviderTitle(labelOf(all, gone.Provider))))
	return redirect(c, "/settings/security")
}

// sessionsSignOutOthers ends every session of the user but this one.
func (a *app) sessionsSignOutOthers(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := sessions.RevokeUser(ctx, a.DB, currentUser(c).ID, a.Sessions.Token(ctx))
	if err != nil {
		return err
	}
	if n == 0 {
		a.flash(c, "success", i18n.T(inLanguage(c), "security.no_other_session"))
	} else {
		a.flash(c, "success", i18n.N(inLanguage(c), "security.signed_out_others", int(n)))
	}
	return redirect(c, "/settings/security")
}

// browserForget forgets one of the user's known browsers: wrong passwords and codes typed
// there count with every other browser's from now on, until the user signs in there again.
// Another user's browser is a 404.
func (a *app) browserForget(c echo.Context) error {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return apperr.New(apperr.NotFound, "Tally does not remember this browser for you.")
	}
	if err := a.Auth.Browsers.Forget(c.Request().Context(), currentUser(c).ID, id); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "security.browser_forgotten"))
	return redirect(c, "/settings/security")
}

// appRevoke ends every grant the user gave an application, so that its tokens stop working
// at once, and audits it as a revocation by the user. An application the user has not
// authorized, unknown or another user's, is a 404.
func (a *app) appRevoke(c echo.Context) error {
	ctx, u, id := c.Request().Context(), currentUser(c), c.Param("client_id")
	notAuthorized := apperr.New(apperr.NotFound, "This application does not have access to your account.")
	client, err := a.OAuth.GetClient(ctx, id)
	if e := apperr.As(err); e != nil && e.Code == apperr.NotFound {
		return notAuthorized
	}
	if err != nil {
		return err
	}
	revoked, err := a.OAuth.RevokeApp(ctx, u.ID, id)
	if err != nil {
		return err
	}
	if !revoked {
		return notAuthorized
	}
	if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventOAuthRevoke, UserID: &u.ID, Meta: a.meta(c),
		Data: map[string]any{"client_id": id, "by": "user"}}); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "security.app_revoked", "App", client.Name))
	return redirect(c, "/settings/security")
}

// providers returns every configured provider, enabled or not; none without SSO.
func (a *app) providers(ctx context.Context) ([]*sso.Provider, error) {
	if a.SSO == nil {
		return nil, nil
	}
	return a.SSO.Registry.All(ctx)
}

func providerNamed(all []*sso.Provider, name string) *sso.Provider {
	for _, p := range all {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// labelOf returns the label of the provider called name, or the name itself when no such
// provider is configured any more.
func labelOf(all []*sso.Provider, name string) string {
	if p := providerNamed(all, name); p != nil {
		return p.Label
	}
	return name
}

// signInRules are the instance's sign-in rules now, all being every configured provider.
func (a *app) signInRules(all []*sso.Provider) models.SignInRules {
	r := models.SignInRules{LocalLogin: a.Auth.Policy.LocalLoginEnabled, AdminOverride: a.Auth.Policy.AdminOverrideEnabled}
	for _, p := range all {
		if p.Enabled {
			r.Enabled = append(r.Enabled, p.Name)
		}
	}
	return r
}
