package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/ory/fosite"

	"tally/auditlog"
	"tally/internal/ratelimit"
	"tally/oauth"
	"tally/views"
)

// oauthRule limits the token and registration endpoints per IP across every instance.
var oauthRule = ratelimit.Rule{Limit: 10, Window: time.Minute}

// oauthRoutes registers the authorization server. The token, revocation, introspection and
// registration endpoints are called by applications, not browsers: no session, no CSRF.
func (a *app) oauthRoutes(e *echo.Echo, signedIn *echo.Group) {
	e.GET("/.well-known/oauth-authorization-server", a.oauthMetadata)
	e.GET("/.well-known/oauth-protected-resource", a.oauthResourceMetadata)
	e.POST("/oauth/token", a.oauthToken, a.limitBody, a.rateLimit("oauth_token", oauthRule))
	e.POST("/oauth/revoke", a.oauthRevoke, a.limitBody)
	e.POST("/oauth/introspect", a.oauthIntrospect, a.limitBody)
	e.POST("/register", a.oauthRegister, a.limitBody, a.rateLimit("oauth_register", oauthRule))
	signedIn.GET("/oauth/authorize", a.oauthAuthorize)
	signedIn.POST("/oauth/authorize", a.oauthDecide, a.stepUp("step_up_action.allow_application",
		func(c echo.Context) bool { return c.FormValue("decision") == "allow" }))
}

func (a *app) issuer() string { return a.Config.AppURL }

// oauthMetadata is RFC 8414's authorization server metadata.
func (a *app) oauthMetadata(c echo.Context) error {
	iss := a.issuer()
	return c.JSON(http.StatusOK, map[string]any{
		"issuer":                                        iss,
		"authorization_endpoint":                        iss + "/oauth/authorize",
		"token_endpoint":                                iss + "/oauth/token",
		"revocation_endpoint":                           iss + "/oauth/revoke",
		"introspection_endpoint":                        iss + "/oauth/introspect",
		"registration_endpoint":                         iss + "/register",
		"response_types_supported":                      []string{"code"},
		"grant_types_supported":                         []string{oauth.GrantAuthorizationCode, oauth.GrantRefreshToken, oauth.GrantClientCredentials},
		"code_challenge_methods_supported":              []string{"S256"},
		"scopes_supported":                              []string{oauth.ScopeRead, oauth.ScopeReadWrite},
		"token_endpoint_auth_methods_supported":         []string{"client_secret_basic", "client_secret_post", "none"},
		"revocation_endpoint_auth_methods_supported":    []string{"client_secret_basic", "client_secret_post", "none"},
		"introspection_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"service_documentation":                         iss + "/api/v1/openapi.json",
	})
}

// oauthResourceMetadata is RFC 9728's protected resource metadata for the API.
func (a *app) oauthResourceMetadata(c echo.Context) error {
	iss := a.issuer()
	return c.JSON(http.StatusOK, map[string]any{
		"resource":                 iss + "/api/v1",
		"authorization_servers":    []string{iss},
		"scopes_supported":         []string{oauth.ScopeRead, oauth.ScopeReadWrite},
		"bearer_methods_supported": []string{"header"},
	})
}

// oauthAuthorize is GET /oauth/authorize: the consent page for the signed-in user.
func (a *app) oauthAuthorize(c echo.Context) error {
	ctx := c.Request().Context()
	ar, err := a.OAuth.NewAuthorizeRequest(ctx, c.Request())
	if err != nil {
		return a.oauthAuthorizeError(c, ar, err)
	}
	client, err := a.OAuth.GetClient(ctx, ar.GetClient().GetID())
	if err != nil {
		return err
	}
	params := map[string]string{}
	for k, v := range c.Request().URL.Query() {
		if len(v) > 0 {
			params[k] = v[0]
		}
	}
	scopes := ar.GetRequestedScopes()
	if len(scopes) == 0 {
		scopes = fosite.Arguments{oauth.ScopeRead}
		params["scope"] = oauth.ScopeRead
	}
	return a.render(c, http.StatusOK, views.OAuthConsentPage(views.OAuthConsent{ClientName: client.Name,
		RedirectURI: ar.GetRedirectURI().String(), UserEmail: currentUser(c).Email, Scopes: scopes, Params: params}))
}

// oauthDecide is POST /oauth/authorize: the user's allow or deny.
func (a *app) oauthDecide(c echo.Context) error {
	ctx, p, u := c.Request().Context(), a.OAuth.Provider(), currentUser(c)
	ar, err := a.OAuth.NewAuthorizeRequest(ctx, c.Request())
	if err != nil {
		return a.oauthAuthorizeError(c, ar, err)
	}
	event := auditlog.Event{UserID: &u.ID, Meta: a.meta(c), Data: map[string]any{"client_id": ar.GetClient().GetID(),
		"scopes": strings.Join(ar.GetRequestedScopes(), " "), "grant_type": oauth.GrantAuthorizationCode}}
	if c.FormValue("decision") != "allow" {
		event.Type = auditlog.EventOAuthGrantDenied
		if err := auditlog.Record(ctx, a.DB, event); err != nil {
			return err
		}
		p.WriteAuthorizeError(ctx, c.Response(), ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
		return nil
	}
	if len(ar.GetRequestedScopes()) == 0 {
		ar.SetRequestedScopes(fosite.Arguments{oauth.ScopeRead})
	}
	for _, s := range ar.GetRequestedScopes() {
		ar.GrantScope(s)
	}
	resp, err := p.NewAuthorizeResponse(ctx, ar, oauth.NewSession(u.ID.String()))
	if err != nil {
		return a.oauthAuthorizeError(c, ar, err)
	}
	event.Type = auditlog.EventOAuthGrant
	if err := auditlog.Record(ctx, a.DB, event); err != nil {
		return err
	}
	p.WriteAuthorizeResponse(ctx, c.Response(), ar, resp)
	return nil
}

// oauthAuthorizeError sends an authorization error back to the application when its
// redirect URI is known good, and otherwise explains it on a page: an unknown client or a
// redirect URI it did not register must not be redirected to.
func (a *app) oauthAuthorizeError(c echo.Context, ar fosite.AuthorizeRequester, err error) error {
	a.oauthFailed(c, "authorize", ar, err)
	if ar != nil && ar.IsRedirectURIValid() {
		a.OAuth.Provider().WriteAuthorizeError(c.Request().Context(), c.Response(), ar, err)
		return nil
	}
	rfc := fosite.ErrorToRFC6749Error(err)
	msg := rfc.GetDescription()
	return a.render(c, http.StatusBadRequest, views.OAuthErrorPage(msg))
}

// oauthToken is POST /oauth/token: authorization_code, refresh_token and client_credentials.
// Every refusal is audited.
func (a *app) oauthToken(c echo.Context) error {
	ctx, p := oauth.WithMeta(c.Request().Context(), a.meta(c)), a.OAuth.Provider()
	ar, resp, err := a.issueToken(ctx, c)
	if err != nil {
		a.oauthFailed(c, "token", ar, err)
		p.WriteAccessError(ctx, c.Response(), ar, err)
		return nil
	}
	p.WriteAccessResponse(ctx, c.Response(), ar, resp)
	return nil
}

// issueToken runs a token request. The request comes back with an error when there is one,
// for the error's audit.
func (a *app) issueToken(ctx context.Context, c echo.Context) (fosite.AccessRequester, fosite.AccessResponder, error) {
	ar, err := a.OAuth.NewAccessRequest(ctx, c.Request())
	if err != nil {
		return ar, nil, err
	}
	resp, err := a.OAuth.Provider().NewAccessResponse(ctx, ar)
	if err != nil {
		return ar, nil, err
	}
	if ar.GetGrantTypes().ExactOne(oauth.GrantClientCredentials) {
		uid, _ := oauth.UserOf(ar)
		err = auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventOAuthGrant, UserID: &uid, Meta: a.meta(c),
			Data: map[string]any{"client_id": ar.GetClient().GetID(), "scopes": strings.Join(ar.GetGrantedScopes(), " "),
				"grant_type": oauth.GrantClientCredentials}})
	}
	return ar, resp, err
}

// oauthFailed records a refused OAuth request in the audit log: the endpoint, the client and
// user when known, and the RFC error it was answered with. A failure to record is logged.
func (a *app) oauthFailed(c echo.Context, endpoint string, r fosite.Requester, err error) {
	rfc := fosite.ErrorToRFC6749Error(err)
	data := map[string]any{"endpoint": endpoint, "error": rfc.ErrorField, "description": rfc.GetDescription()}
	var userID *uuid.UUID
	if u := currentUser(c); u != nil {
		userID = &u.ID
	}
	if r != nil && r.GetClient() != nil {
		data["client_id"] = r.GetClient().GetID()
		if id, ok := oauth.UserOf(r); ok && userID == nil {
			userID = &id
		}
	} else if id, _, ok := c.Request().BasicAuth(); ok {
		data["client_id"] = id
	} else if id := c.Request().PostFormValue("client_id"); id != "" {
		data["client_id"] = id
	}
	if rerr := auditlog.Record(c.Request().Context(), a.DB, auditlog.Event{Type: auditlog.EventOAuthFailed, UserID: userID, Meta: a.meta(c), Data: data}); rerr != nil {
		a.Log.ErrorContext(c.Request().Context(), "audit an OAuth refusal", "error", rerr.Error())
	}
}

// oauthRevoke is POST /oauth/revoke (RFC 7009).
func (a *app) oauthRevoke(c echo.Context) error {
	ctx, p := c.Request().Context(), a.OAuth.Provider()
	token := c.Request().PostFormValue("token")
	owner, clientID := a.OAuth.TokenOwner(ctx, token)
	err := p.NewRevocationRequest(ctx, c.Request())
	if err != nil {
		a.oauthFailed(c, "revoke", nil, err)
	}
	if errors.Is(err, fosite.ErrUnauthorizedClient) {
		// fosite answers 200 here; RFC 7009 §2.1 says the client is told it may not.
		return c.JSON(http.StatusBadRequest, fosite.ErrorToRFC6749Error(err).WithHint("The token was issued to another client."))
	}
	if err == nil && clientID != "" {
		if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventOAuthRevoke, UserID: owner, Meta: a.meta(c),
			Data: map[string]any{"client_id": clientID, "by": "client"}}); err != nil {
			return err
		}
	}
	p.WriteRevocationResponse(ctx, c.Response(), err)
	return nil
}

// oauthIntrospect is POST /oauth/introspect (RFC 7662). The caller authenticates as a
// confidential client (HTTP Basic) or with one of its access tokens (Bearer), and learns only
// about its own client's tokens: another client's token is reported inactive.
func (a *app) oauthIntrospect(c echo.Context) error {
	ctx, p := c.Request().Context(), a.OAuth.Provider()
	ir, err := p.NewIntrospectionRequest(ctx, c.Request(), oauth.NewSession(""))
	if err != nil {
		if errors.Is(err, fosite.ErrRequestUnauthorized) {
			a.oauthFailed(c, "introspect", nil, err)
		}
		p.WriteIntrospectionError(ctx, c.Response(), err) // 401 for a bad caller, else active: false
		return nil
	}
	if !a.OAuth.MayIntrospect(c.Request(), ir) {
		return c.JSON(http.StatusOK, map[string]bool{"active": false})
	}
	p.WriteIntrospectionResponse(ctx, c.Response(), ir)
	return nil
}

// oauthRegister is POST /register: dynamic registration of a public client (RFC 7591).
func (a *app) oauthRegister(c echo.Context) error {
	var reg oauth.Registration
	if err := json.NewDecoder(c.Request().Body).Decode(&reg); err != nil {
		rerr := &oauth.RegistrationError{Code: "invalid_client_metadata", Description: "The body must be a JSON object: " + err.Error()}
		a.auditRegistrationRefused(c, rerr)
		return c.JSON(http.StatusBadRequest, rerr)
	}
	client, err := a.OAuth.Register(c.Request().Context(), a.DB, reg)
	var rerr *oauth.RegistrationError
	if errors.As(err, &rerr) {
		a.auditRegistrationRefused(c, rerr)
		return c.JSON(http.StatusBadRequest, rerr)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{
		"client_id":                  client.ID,
		"client_id_issued_at":        client.CreatedAt.Unix(),
		"client_name":                client.Name,
		"redirect_uris":              client.RedirectURIs,
		"grant_types":                client.GrantTypes,
		"response_types":             []string{"code"},
		"scope":                      strings.Join(client.Scopes, " "),
		"token_endpoint_auth_method": "none",
	})
}

// auditRegistrationRefused records a refused client registration.
func (a *app) auditRegistrationRefused(c echo.Context, rerr *oauth.RegistrationError) {
	if err := auditlog.Record(c.Request().Context(), a.DB, auditlog.Event{Type: auditlog.EventOAuthFailed, Meta: a.meta(c),
		Data: map[string]any{"endpoint": "register", "error": rerr.Code, "description": rerr.Description}}); err != nil {
		a.Log.ErrorContext(c.Request().Context(), "audit an OAuth refusal", "error", err.Error())
	}
}
