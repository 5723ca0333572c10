package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/auth"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/sessions"
	"tally/models"
	"tally/sso"
	"tally/views"
)

// securityRoutes registers /settings/security on the signed-in group.
func (a *app) securityRoutes(g *echo.Group) {
	g.GET("/settings/security", a.securityShow)
	g.POST("/settings/security/identities/:id/disconnect", a.identityDisconnect)
	g.POST("/settings/security/sessions/sign_out_others", a.sessionsSignOutOthers)
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
	ids, err := identitiesOf(ctx, a.DB, u.ID)
	if err != nil {
		return err
	}
	all, err := a.providers(ctx)
	if err != nil {
		return err
	}
	p := views.Security{Error: refusal}
	ways := waysIn{policy: a.Auth.Policy, hasPassword: u.PasswordHash != nil, role: u.Role, identities: ids, providers: all}
	for _, pr := range ways.connectable() {
		p.Connectable = append(p.Connectable, views.SecurityProvider{Name: pr.Name, Label: pr.Label})
	}
	for _, id := range ids {
		p.Identities = append(p.Identities, views.SecurityIdentity{
			ID: id.ID.String(), Label: labelOf(all, id.Provider), Email: id.Email, LastUsedAt: id.LastUsedAt,
			Refusal: ways.refusal(id.ID),
		})
	}
	if p.Sessions, err = sessionsOf(ctx, a.DB, u.ID, a.Sessions.Token(ctx)); err != nil {
		return err
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
	var gone identity
	err = a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// The user's row is locked so that two disconnects at once cannot each count the
		// other's identity as the way in that remains, and lock the user out together.
		var hash *string
		var role models.Role
		if err := tx.NewRaw("SELECT password_hash, role FROM users WHERE id = ? FOR UPDATE", u.ID).Scan(ctx, &hash, &role); err != nil {
			return err
		}
		ids, err := identitiesOf(ctx, tx, u.ID)
		if err != nil {
			return err
		}
		target := -1
		for i := range ids {
			if ids[i].ID == id {
				target = i
			}
		}
		if target < 0 {
			return apperr.New(apperr.NotFound, "This connected account does not exist.")
		}
		gone = ids[target]
		ways := waysIn{policy: a.Auth.Policy, hasPassword: hash != nil, role: role, identities: ids, providers: all}
		if reason := ways.refusal(id); reason != "" {
			return apperr.New(apperr.Conflict, reason)
		}
		if _, err := tx.NewRaw("DELETE FROM sso_identities WHERE id = ? AND user_id = ?", id, u.ID).Exec(ctx); err != nil {
			return err
		}
		return sso.Record(ctx, tx, sso.Event{Type: sso.EventUnlink, UserID: &u.ID, Provider: gone.Provider, Meta: a.meta(c)})
	})
	if e := apperr.As(err); e != nil && e.Code == apperr.Conflict {
		return a.securityPage(c, http.StatusConflict, e.Message)
	}
	if err != nil {
		return err
	}
	a.flash(c, "success", "Your "+views.ProviderTitle(labelOf(all, gone.Provider))+" account has been disconnected.")
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
		a.flash(c, "success", "No other session was signed in.")
	} else {
		a.flash(c, "success", "Signed out of "+views.Plural(int(n), "other session", "other sessions")+".")
	}
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
	if err := sso.Record(ctx, a.DB, sso.Event{Type: sso.EventOAuthRevoke, UserID: &u.ID, Meta: a.meta(c),
		Data: map[string]any{"client_id": id, "by": "user"}}); err != nil {
		return err
	}
	a.flash(c, "success", client.Name+" no longer has access to your account.")
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

// identity is one of a user's SSO identities.
type identity struct {
	ID         uuid.UUID  `bun:"id"`
	Provider   string     `bun:"provider"`
	Email      string     `bun:"email"`
	LastUsedAt *time.Time `bun:"last_used_at"`
}

// identitiesOf returns the user's SSO identities by provider name.
func identitiesOf(ctx context.Context, idb bun.IDB, userID uuid.UUID) ([]identity, error) {
	var ids []identity
	err := idb.NewRaw("SELECT id, provider, email, last_used_at FROM sso_identities WHERE user_id = ? ORDER BY provider, created_at", userID).
		Scan(ctx, &ids)
	return ids, err
}

// sessionsOf returns the user's live sessions, this one (token) first, then the most recently
// active. Tokens never leave this function.
func sessionsOf(ctx context.Context, idb bun.IDB, userID uuid.UUID, token string) ([]views.SecuritySession, error) {
	var rows []struct {
		IP         string    `bun:"ip_address"`
		UserAgent  string    `bun:"user_agent"`
		CreatedAt  time.Time `bun:"created_at"`
		LastSeenAt time.Time `bun:"last_seen_at"`
		Current    bool      `bun:"current"`
	}
	err := idb.NewRaw(`SELECT ip_address, user_agent, created_at, last_seen_at, token = ? AS current
		FROM sessions WHERE user_id = ? AND expiry > now() ORDER BY current DESC, last_seen_at DESC`, token, userID).Scan(ctx, &rows)
	out := make([]views.SecuritySession, len(rows))
	for i, r := range rows {
		out[i] = views.SecuritySession{IP: r.IP, UserAgent: r.UserAgent, CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt, Current: r.Current}
	}
	return out, err
}

// waysIn is what a user can sign in with, for deciding whether an identity may go.
type waysIn struct {
	policy      auth.Policy
	hasPassword bool
	role        models.Role
	identities  []identity
	// providers are every configured provider, enabled or not.
	providers []*sso.Provider
}

// connectable returns the enabled providers the user has no identity at.
func (w waysIn) connectable() []*sso.Provider {
	connected := map[string]bool{}
	for _, id := range w.identities {
		connected[id.Provider] = true
	}
	var out []*sso.Provider
	for _, p := range w.providers {
		if p.Enabled && !connected[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// refusal returns why the identity id may not be disconnected, or "" when the user keeps
// another way to sign in without it:
//   - another identity at a provider that is enabled now (one at a disabled or removed
//     provider signs no one in), or
//   - a password that the sign-in form accepts from this user: with local login on, or, with
//     it off, through the admin override for a super admin only, as auth.Service.SignIn
//     decides. A password that the form would refuse does not count.
func (w waysIn) refusal(id uuid.UUID) string {
	passwordWorks := w.hasPassword && (w.policy.LocalLoginEnabled || (w.policy.AdminOverrideEnabled && w.role == models.RoleSuperAdmin))
	if passwordWorks {
		return ""
	}
	others := 0
	for _, other := range w.identities {
		if other.ID == id {
			continue
		}
		others++
		if p := providerNamed(w.providers, other.Provider); p != nil && p.Enabled {
			return ""
		}
	}
	msg := "This is your only way to sign in, so it can't be disconnected."
	switch {
	case others > 0:
		msg = "This is your only way to sign in that works now: the providers of your other connected accounts are not available, so it can't be disconnected."
	case w.hasPassword && w.policy.AdminOnly():
		msg = "This is your only way to sign in: on this Tally only super admins may sign in with a password, so yours can't be used instead."
	case w.hasPassword:
		msg = "This is your only way to sign in: password sign-in is turned off on this Tally, so your password can't be used instead."
	}
	if len(w.connectable()) > 0 {
		return msg + " Connect another provider first, so that you are not locked out of your account."
	}
	return msg + " Ask your administrator for another way to sign in first, so that you are not locked out of your account."
}
