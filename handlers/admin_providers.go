package handlers

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/models"
	"tally/sso"
	"tally/views"
)

// providerFields are the provider form's fields, kept when it is shown again with errors.
var providerFields = []string{"strategy", "name", "label", "default_role", "enabled", "trust_email", "_submitted",
	"trust_second_factor", "second_factor_values",
	"issuer", "client_id", "scopes", "prompt", "token_endpoint_auth_method", "groups_claim",
	"authorization_url", "token_url", "userinfo_url", "subject_claim", "email_claim", "name_claim",
	"idp_metadata_url", "idp_sso_url", "idp_entity_id", "idp_certificate", "idp_slo_url", "groups_attribute",
	"name_id_format", "sign_requests"}

// adminProviderRoutes registers the SSO providers' pages. Every change to a provider decides
// who signs in and with what role (a group mapped to super admin makes super admins): the
// admin gives their second factor again for it, so that one stolen session cannot add a way
// in that outlasts it. Adding or removing a mapping row without JavaScript saves nothing.
func (a *app) adminProviderRoutes(g *echo.Group) {
	saving := func(c echo.Context) bool { return !editingOnly(c) }
	g.GET("/sso_providers", a.providersIndex)
	g.GET("/sso_providers/new", a.providerNew)
	g.POST("/sso_providers", a.providerCreate, a.stepUp("step_up_action.add_provider", saving))
	g.GET("/sso_providers/mapping_row", a.providerMappingRow)
	g.GET("/sso_providers/:id/edit", a.providerEdit)
	g.POST("/sso_providers/:id", a.providerUpdate, a.stepUp("step_up_action.change_provider", saving))
	g.POST("/sso_providers/:id/toggle", a.providerToggle, a.stepUp("step_up_action.toggle_provider", nil))
	g.POST("/sso_providers/:id/delete", a.providerDelete, a.stepUp("step_up_action.delete_provider", nil))
	g.GET("/sso_providers/:id/test", a.providerTest)
}

// managed returns the database registry, or a not-found error when providers come from the
// auth file and cannot be changed here.
func (a *app) managed() (*sso.DBRegistry, error) {
	reg, ok := a.SSO.Registry.(*sso.DBRegistry)
	if !ok {
		return nil, apperr.New(apperr.NotFound, "Providers are configured in the auth file: set AUTH_PROVIDERS_SOURCE=db to manage them here.")
	}
	// Saving checks an OIDC issuer's discovery document.
	return &sso.DBRegistry{DB: reg.DB, Keys: reg.Keys, Discovery: a.SSO.Env.HTTP}, nil
}

func (a *app) providerRow(p *sso.Provider) views.ProviderRow {
	return views.ProviderRow{Provider: p, CallbackURL: p.CallbackURL(a.SSO.Env.AppURL)}
}

// providersIndex is GET /admin/sso_providers.
func (a *app) providersIndex(c echo.Context) error {
	all, err := a.SSO.Registry.All(c.Request().Context())
	if err != nil {
		return err
	}
	_, managed := a.SSO.Registry.(*sso.DBRegistry)
	l := views.ProviderList{Managed: managed, File: a.Config.AuthConfigFile}
	for _, p := range all {
		l.Rows = append(l.Rows, a.providerRow(p))
	}
	return a.render(c, http.StatusOK, views.ProvidersPage(l))
}

// providerNew is GET /admin/sso_providers/new: the choice of strategy, then its form.
func (a *app) providerNew(c echo.Context) error {
	if _, err := a.managed(); err != nil {
		return err
	}
	strategy := c.QueryParam("strategy")
	if !slices.Contains(sso.Strategies, strategy) {
		return a.render(c, http.StatusOK, views.ProviderNewPage())
	}
	form := &views.Form{Values: map[string]string{"strategy": strategy, "default_role": "member",
		"token_endpoint_auth_method": sso.AuthClientSecretPost, "enabled": ""}}
	return a.render(c, http.StatusOK, views.ProviderFormPage(views.ProviderForm{Form: form, Strategy: strategy,
		Mappings: []sso.GroupMapping{{}}}))
}

// providerFromForm reads the submitted form over base (nil when adding). A blank secret or
// private key keeps the one stored.
func providerFromForm(c echo.Context, base *sso.Provider) (*sso.Provider, *views.Form, []sso.GroupMapping) {
	form := formOf(c, providerFields...)
	p := &sso.Provider{}
	if base != nil {
		*p = *base
	} else {
		p.Strategy = form.Value("strategy")
	}
	v := func(k string) string { return strings.TrimSpace(form.Value(k)) }
	p.Name, p.Label = v("name"), v("label")
	p.DefaultRole = models.Role(v("default_role"))
	p.Enabled, p.TrustEmail, p.SignRequests = v("enabled") != "", v("trust_email") != "", v("sign_requests") != ""
	p.TrustSecondFactor, p.SecondFactorValues = v("trust_second_factor") != "", strings.Fields(v("second_factor_values"))
	p.Issuer, p.ClientID, p.Prompt = v("issuer"), v("client_id"), v("prompt")
	p.Scopes = strings.Fields(v("scopes"))
	p.TokenAuthMethod = v("token_endpoint_auth_method")
	if p.TokenAuthMethod == "" {
		p.TokenAuthMethod = sso.AuthClientSecretPost
	}
	p.AuthorizationURL, p.TokenURL, p.UserinfoURL = v("authorization_url"), v("token_url"), v("userinfo_url")
	p.SubjectClaim, p.EmailClaim, p.NameClaim, p.GroupsClaim = v("subject_claim"), v("email_claim"), v("name_claim"), v("groups_claim")
	p.IdPMetadataURL, p.IdPSSOURL, p.IdPEntityID = v("idp_metadata_url"), v("idp_sso_url"), v("idp_entity_id")
	p.IdPCertificate, p.IdPSLOURL, p.GroupsAttribute, p.NameIDFormat = v("idp_certificate"), v("idp_slo_url"), v("groups_attribute"), v("name_id_format")
	// Secrets are read apart: they are never shown again in the form.
	if s := strings.TrimSpace(c.FormValue("client_secret")); s != "" {
		p.ClientSecret = s
	}
	if k := strings.TrimSpace(c.FormValue("sp_private_key")); k != "" {
		p.SPPrivateKey, p.SPCertificate = k, ""
	}
	req := c.Request()
	groups, roles := req.Form["mapping_group"], req.Form["mapping_role"]
	var rows []sso.GroupMapping
	for i, g := range groups {
		m := sso.GroupMapping{Group: strings.TrimSpace(g), Role: models.RoleMember}
		if i < len(roles) {
			m.Role = models.Role(roles[i])
		}
		rows = append(rows, m)
	}
	if i, err := strconv.Atoi(c.FormValue("remove_mapping")); err == nil && i >= 0 && i < len(rows) {
		rows = slices.Delete(rows, i, i+1)
	}
	p.GroupMappings = nil
	for _, m := range rows {
		if m.Group != "" {
			p.GroupMappings = append(p.GroupMappings, m)
		}
	}
	if c.FormValue("add_mapping") != "" || len(rows) == 0 {
		rows = append(rows, sso.GroupMapping{})
	}
	return p, form, rows
}

// editingOnly reports whether the form was submitted to add or remove a mapping row (without
// JavaScript) rather than to save.
func editingOnly(c echo.Context) bool {
	return c.FormValue("add_mapping") != "" || c.FormValue("remove_mapping") != ""
}

// providerCreate is POST /admin/sso_providers.
func (a *app) providerCreate(c echo.Context) error {
	reg, err := a.managed()
	if err != nil {
		return err
	}
	p, form, rows := providerFromForm(c, nil)
	if !slices.Contains(sso.Strategies, p.Strategy) {
		return apperr.New(apperr.Invalid, i18n.T(inLanguage(c), "admin_providers.choose_strategy"))
	}
	view := views.ProviderForm{Form: form, Strategy: p.Strategy, Mappings: rows}
	if editingOnly(c) {
		return a.render(c, http.StatusOK, views.ProviderFormPage(view))
	}
	if err := a.saveProvider(c, reg, p, nil); err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.ProviderFormPage(view))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "admin_providers.added", "Name", p.Label))
	return redirect(c, "/admin/sso_providers/"+p.ID.String()+"/edit")
}

// saveProvider stores the provider and audits the change, in one transaction. A SAML provider
// that signs its requests gets a key (and certificate) when none was given.
func (a *app) saveProvider(c echo.Context, reg *sso.DBRegistry, p, before *sso.Provider) error {
	ctx := c.Request().Context()
	if p.Strategy == sso.StrategySAML && p.SignRequests && p.SPCertificate == "" {
		var err error
		if p.SPPrivateKey == "" {
			p.SPPrivateKey, p.SPCertificate, err = sso.GenerateSPKey("Tally " + p.Name)
		} else {
			p.SPCertificate, err = sso.CertificateFor(p.SPPrivateKey, "Tally "+p.Name)
		}
		if err != nil {
			return apperr.New(apperr.Invalid, "Provider could not be saved").WithSlug("validation_failed").
				WithFields(map[string][]string{"sp_private_key": {"Private key: " + err.Error()}})
		}
	}
	action := "created"
	if before != nil {
		action = "updated"
	}
	changes := sso.Changes(before, p)
	return a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if err := reg.Save(ctx, tx, p); err != nil {
			return err
		}
		return a.auditProvider(ctx, tx, c, p, action, changes)
	})
}

func (a *app) auditProvider(ctx context.Context, tx db.Tx, c echo.Context, p *sso.Provider, action string, changes []string) error {
	u := currentUser(c)
	data := map[string]any{"action": action, "provider_id": p.ID.String(), "actor_user_id": u.ID.String()}
	if changes != nil {
		data["changes"] = changes
	}
	return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventProviderChanged, UserID: &u.ID, Provider: p.Name, Meta: a.meta(c), Data: data})
}

// provider loads the provider of :id, whatever its state.
func (a *app) provider(c echo.Context) (*sso.DBRegistry, *sso.Provider, error) {
	reg, err := a.managed()
	if err != nil {
		return nil, nil, err
	}
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return nil, nil, apperr.New(apperr.NotFound, "Provider not found")
	}
	p, err := reg.Get(c.Request().Context(), id)
	return reg, p, err
}

func (a *app) providerFormView(p *sso.Provider, form *views.Form, rows []sso.GroupMapping) views.ProviderForm {
	app := a.SSO.Env.AppURL
	return views.ProviderForm{Form: form, Provider: p, Strategy: p.Strategy, Mappings: rows,
		CallbackURL: p.CallbackURL(app), MetadataURL: p.MetadataURL(app), EntityID: p.EntityID(app)}
}

// providerEdit is GET /admin/sso_providers/:id/edit.
func (a *app) providerEdit(c echo.Context) error {
	_, p, err := a.provider(c)
	if err != nil {
		return err
	}
	form := &views.Form{Values: map[string]string{
		"name": p.Name, "label": p.Label, "default_role": string(p.DefaultRole), "issuer": p.Issuer, "client_id": p.ClientID,
		"scopes": strings.Join(p.Scopes, " "), "prompt": p.Prompt, "token_endpoint_auth_method": p.TokenAuthMethod,
		"groups_claim": p.GroupsClaim, "authorization_url": p.AuthorizationURL, "token_url": p.TokenURL, "userinfo_url": p.UserinfoURL,
		"subject_claim": p.SubjectClaim, "email_claim": p.EmailClaim, "name_claim": p.NameClaim,
		"idp_metadata_url": p.IdPMetadataURL, "idp_sso_url": p.IdPSSOURL, "idp_entity_id": p.IdPEntityID,
		"idp_certificate": p.IdPCertificate, "idp_slo_url": p.IdPSLOURL, "groups_attribute": p.GroupsAttribute, "name_id_format": p.NameIDFormat,
		"second_factor_values": strings.Join(p.SecondFactorValues, " "),
	}}
	rows := append(slices.Clone(p.GroupMappings), sso.GroupMapping{})
	return a.render(c, http.StatusOK, views.ProviderFormPage(a.providerFormView(p, form, rows)))
}

// providerUpdate is POST /admin/sso_providers/:id.
func (a *app) providerUpdate(c echo.Context) error {
	reg, before, err := a.provider(c)
	if err != nil {
		return err
	}
	p, form, rows := providerFromForm(c, before)
	view := a.providerFormView(before, form, rows)
	if editingOnly(c) {
		return a.render(c, http.StatusOK, views.ProviderFormPage(view))
	}
	if err := a.saveProvider(c, reg, p, before); err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.ProviderFormPage(view))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "admin_providers.saved", "Name", p.Label))
	return redirect(c, "/admin/sso_providers")
}

// providerToggle is POST /admin/sso_providers/:id/toggle: enable or disable. htmx swaps the
// row; without it the list is shown again.
func (a *app) providerToggle(c echo.Context) error {
	_, p, err := a.provider(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p.Enabled = !p.Enabled
	action := map[bool]string{true: "enabled", false: "disabled"}[p.Enabled]
	err = a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw("UPDATE sso_providers SET enabled = ?, updated_at = now() WHERE id = ?", p.Enabled, p.ID).Exec(ctx); err != nil {
			return err
		}
		return a.auditProvider(ctx, tx, c, p, action, nil)
	})
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return a.render(c, http.StatusOK, views.ProviderRowView(a.providerRow(p), true))
	}
	a.flash(c, "success", i18n.T(inLanguage(c), map[bool]string{true: "admin_providers.enabled_flash", false: "admin_providers.disabled_flash"}[p.Enabled], "Name", p.Label))
	return redirect(c, "/admin/sso_providers")
}

// providerDelete is POST /admin/sso_providers/:id/delete.
func (a *app) providerDelete(c echo.Context) error {
	_, p, err := a.provider(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	err = a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw("DELETE FROM sso_providers WHERE id = ?", p.ID).Exec(ctx); err != nil {
			return err
		}
		return a.auditProvider(ctx, tx, c, p, "deleted", nil)
	})
	if err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "admin_providers.deleted", "Name", p.Label))
	return redirect(c, "/admin/sso_providers")
}

// providerMappingRow is GET /admin/sso_providers/mapping_row: an empty mapping row for htmx
// to append, or nothing (?remove=1) to replace a removed one.
func (a *app) providerMappingRow(c echo.Context) error {
	if c.QueryParam("remove") != "" {
		return c.NoContent(http.StatusOK)
	}
	return a.render(c, http.StatusOK, views.MappingRow(int(uuid.New().ID()%1_000_000), sso.GroupMapping{}))
}

// providerTest is GET /admin/sso_providers/:id/test: a sign-in at the provider that signs
// nobody in, whose callback shows what arrived. It works for a disabled provider, so that it
// can be tried before everyone sees it.
func (a *app) providerTest(c echo.Context) error {
	_, p, err := a.provider(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	to, f, err := a.SSO.Strategies[p.Strategy].Begin(ctx, p, a.SSO.Env, sso.PurposeTest)
	if err != nil {
		return a.renderTest(c, p, nil, err)
	}
	if err := a.SSO.Flows.Save(ctx, f, a.ssoBinding(c)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// renderTest shows a test login's outcome.
func (a *app) renderTest(c echo.Context, p *sso.Provider, id *sso.Identity, err error) error {
	t := views.ProviderTest{Provider: p, Identity: id}
	if err != nil {
		t.Error, t.Reason = err.Error(), "error"
		if f, ok := sso.AsFailure(err); ok {
			t.Reason, t.Error = f.Reason, f.Message
			if f.Err != nil {
				t.Error += "\n\n" + f.Err.Error()
			}
		} else if e := apperr.As(err); e != nil && e.Code != apperr.Internal {
			t.Error = e.Message
		}
		return a.render(c, http.StatusOK, views.ProviderTestPage(t))
	}
	t.Role, t.Mapped = sso.MappedRole(p, id.Groups)
	return a.render(c, http.StatusOK, views.ProviderTestPage(t))
}
