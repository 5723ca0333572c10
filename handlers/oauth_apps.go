package handlers

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/models"
	"tally/oauth"
	"tally/views"
)

// oauthAppFields are the application form's fields, kept when it is shown again with errors.
var oauthAppFields = []string{"name", "redirect_uris", "confidential", "client_credentials", "read_write", "owner", "_submitted"}

// oauthAppsPath is where the applications pages live.
const oauthAppsPath = "/oauth/applications"

// oauthAppRoutes registers /oauth/applications: the OAuth clients, for super admins.
func (a *app) oauthAppRoutes(g *echo.Group) {
	// An application with client credentials acts as its owner without anyone signing in: a
	// way in that outlives a session, so setting one up takes the second factor again.
	credentials := a.stepUp("step_up_action.application_acts_as_you", func(c echo.Context) bool { return c.FormValue("client_credentials") != "" })
	g.GET("", a.oauthAppsIndex)
	g.GET("/new", a.oauthAppNew)
	g.POST("", a.oauthAppCreate, credentials)
	g.GET("/:id/edit", a.oauthAppEdit)
	g.POST("/:id", a.oauthAppUpdate, credentials)
	g.POST("/:id/delete", a.oauthAppDelete)
}

// oauthAppsPage renders the list, with l's just-created client (and its secret) on top.
func (a *app) oauthAppsPage(c echo.Context, status int, l views.OAuthAppList) error {
	ctx := c.Request().Context()
	clients, err := a.OAuth.ListClients(ctx)
	if err != nil {
		return err
	}
	l.Clients = clients
	if l.Owners, err = a.ownerEmails(ctx, clients); err != nil {
		return err
	}
	return a.render(c, status, views.OAuthAppsPage(l))
}

// ownerEmails maps the owners of clients to their email addresses.
func (a *app) ownerEmails(ctx context.Context, clients []oauth.Client) (map[uuid.UUID]string, error) {
	var ids []uuid.UUID
	for _, cl := range clients {
		if cl.OwnerUserID != nil && !slices.Contains(ids, *cl.OwnerUserID) {
			ids = append(ids, *cl.OwnerUserID)
		}
	}
	out := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var users []models.User
	if err := a.DB.NewSelect().Model(&users).Column("id", "email").Where("u.id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, err
	}
	for _, u := range users {
		out[u.ID] = u.Email
	}
	return out, nil
}

// oauthAppsIndex is GET /oauth/applications.
func (a *app) oauthAppsIndex(c echo.Context) error {
	return a.oauthAppsPage(c, http.StatusOK, views.OAuthAppList{})
}

// oauthAppNew is GET /oauth/applications/new. Client credentials act for the signed-in
// administrator unless another owner is given.
func (a *app) oauthAppNew(c echo.Context) error {
	form := &views.Form{Values: map[string]string{"owner": currentUser(c).Email}}
	return a.render(c, http.StatusOK, views.OAuthAppFormPage(views.OAuthAppForm{Form: form}))
}

// oauthAppInput reads the submitted form. The owner is read only when client credentials are
// asked for, as nothing else uses it; problem is set when no user has the owner's email.
func (a *app) oauthAppInput(c echo.Context) (in oauth.ClientInput, form *views.Form, problem string, err error) {
	form = formOf(c, oauthAppFields...)
	in = oauth.ClientInput{
		Name:              form.Value("name"),
		Confidential:      form.Value("confidential") != "",
		ClientCredentials: form.Value("client_credentials") != "",
		AllowReadWrite:    form.Value("read_write") != "",
	}
	for _, line := range strings.Split(form.Value("redirect_uris"), "\n") {
		if u := strings.TrimSpace(line); u != "" {
			in.RedirectURIs = append(in.RedirectURIs, u)
		}
	}
	email := strings.TrimSpace(form.Value("owner"))
	if !in.ClientCredentials || email == "" {
		return in, form, "", nil
	}
	owner, err := models.UserByEmail(c.Request().Context(), a.DB, email)
	switch {
	case apperr.Is(err, apperr.NotFound):
		return in, form, i18n.T(inLanguage(c), "oauth_apps.no_such_owner", "Email", email), nil
	case err != nil:
		return in, form, "", err
	case owner.ID != currentUser(c).ID:
		// Client credentials act as their owner with nobody signing in: a super admin may not
		// mint that for someone else, whose data it would read and change without their say.
		return in, form, i18n.T(inLanguage(c), "oauth_apps.owner_not_you", "Email", currentUser(c).Email), nil
	}
	in.OwnerUserID = &owner.ID
	return in, form, "", nil
}

// withOwnerProblem adds an unknown owner to err, the service's verdict on the rest of the
// form, so that the form shows every problem at once. An error that is not the client's is
// returned as it is.
func withOwnerProblem(err error, problem string) error {
	if err != nil && !apperr.Is(err, apperr.Invalid) {
		return err
	}
	var v apperr.Validation
	v.Add("owner", problem)
	v.Merge(err)
	return v.Err()
}

// changeOAuthApp runs change, a change of a client, and audits it as action, in one
// transaction. An unknown owner (problem) is added to the service's verdict on the rest of
// the form and rolls the change back.
func (a *app) changeOAuthApp(c echo.Context, action, problem string,
	change func(ctx context.Context, tx db.Tx) (*oauth.Client, error)) (*oauth.Client, error) {
	var client *oauth.Client
	err := a.DB.InTx(c.Request().Context(), func(ctx context.Context, tx db.Tx) error {
		var err error
		client, err = change(ctx, tx)
		if problem != "" {
			return withOwnerProblem(err, problem)
		}
		if err != nil {
			return err
		}
		actor := currentUser(c)
		return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventOAuthClientChanged, UserID: &actor.ID, Meta: a.meta(c),
			Data: map[string]any{"action": action, "client_id": client.ID, "name": client.Name}})
	})
	return client, err
}

// oauthAppCreate is POST /oauth/applications. A confidential client's secret is shown in
// the answer to this POST, once, like a new API key: it is stored only as a bcrypt hash.
// An unknown owner rolls the creation back, after the service has checked the rest.
func (a *app) oauthAppCreate(c echo.Context) error {
	in, form, problem, err := a.oauthAppInput(c)
	if err != nil {
		return err
	}
	var secret string
	client, err := a.changeOAuthApp(c, "created", problem, func(ctx context.Context, tx db.Tx) (cl *oauth.Client, err error) {
		cl, secret, err = a.OAuth.CreateClient(ctx, tx, in)
		return cl, err
	})
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.OAuthAppFormPage(views.OAuthAppForm{Form: form}))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "oauth_apps.created", "Name", client.Name))
	if secret == "" {
		return redirect(c, oauthAppsPath)
	}
	return a.oauthAppsPage(c, http.StatusCreated, views.OAuthAppList{Created: client, Secret: secret})
}

// oauthAppClient loads the client of :id.
func (a *app) oauthAppClient(c echo.Context) (*oauth.Client, error) {
	return a.OAuth.GetClient(c.Request().Context(), c.Param("id"))
}

// oauthAppEdit is GET /oauth/applications/:id/edit.
func (a *app) oauthAppEdit(c echo.Context) error {
	client, err := a.oauthAppClient(c)
	if err != nil {
		return err
	}
	owner := currentUser(c).Email
	if client.OwnerUserID != nil {
		u, err := models.UserByID(c.Request().Context(), a.DB, *client.OwnerUserID)
		if err != nil {
			return err
		}
		owner = u.Email
	}
	form := &views.Form{Values: map[string]string{"name": client.Name, "redirect_uris": strings.Join(client.RedirectURIs, "\n"), "owner": owner}}
	return a.render(c, http.StatusOK, views.OAuthAppFormPage(views.OAuthAppForm{Form: form, Client: client}))
}

// oauthAppUpdate is POST /oauth/applications/:id. The client's type stays what it was.
func (a *app) oauthAppUpdate(c echo.Context) error {
	before, err := a.oauthAppClient(c)
	if err != nil {
		return err
	}
	in, form, problem, err := a.oauthAppInput(c)
	if err != nil {
		return err
	}
	client, err := a.changeOAuthApp(c, "updated", problem, func(ctx context.Context, tx db.Tx) (*oauth.Client, error) {
		return a.OAuth.UpdateClient(ctx, tx, before.ID, in)
	})
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.OAuthAppFormPage(views.OAuthAppForm{Form: form, Client: before}))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "oauth_apps.saved", "Name", client.Name))
	return redirect(c, oauthAppsPath)
}

// oauthAppDelete is POST /oauth/applications/:id/delete: the client goes, and with it every
// token it was issued.
func (a *app) oauthAppDelete(c echo.Context) error {
	client, err := a.changeOAuthApp(c, "deleted", "", func(ctx context.Context, tx db.Tx) (*oauth.Client, error) {
		return a.OAuth.DeleteClient(ctx, tx, c.Param("id"))
	})
	if err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "oauth_apps.deleted", "Name", client.Name))
	return redirect(c, oauthAppsPath)
}
