package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/models"
)

// viewerRule is what a viewer may do on a route. Every route of the router declares one in
// viewerRules (TestEveryRouteHasAViewerRule): a route without a rule is a change, refused.
type viewerRule int

const (
	beforeSignIn viewerRule = iota + 1
	viewerOwnAccount
	viewerReads
	viewerDenied
)

// viewerRules are the routes by "METHOD /path" (the router's pattern).
var viewerRules = rulesByRoute(map[viewerRule][]string{
	// Before sign-in: sign-in, its second factor, password reset, onboarding, single sign-on,
	// invitations' links, the OAuth endpoints programs call, probes and assets. They act for
	// nobody signed in, or prove who someone is.
	beforeSignIn: {
		"GET /.well-known/oauth-authorization-server",
		"GET /.well-known/oauth-protected-resource",
		"GET /api/v1/openapi.json",
		"GET /auth/:provider",
		"GET /auth/:provider/callback",
		"GET /auth/saml/:key",
		"GET /auth/saml/:key/finish",
		"GET /auth/saml/:key/logout",
		"GET /auth/saml/:key/metadata",
		"GET /bank_connections/enable_banking/callback",
		"GET /favicon.ico",
		"GET /healthz",
		"GET /invitations/accept",
		"GET /onboarding",
		"GET /password_reset/edit",
		"GET /password_reset/new",
		"GET /readyz",
		"GET /sessions",
		"GET /sessions/mfa",
		"GET /sessions/new",
		"GET /sso/link",
		"GET /static/*",
		"POST /auth/saml/:key/callback",
		"POST /invitations/accept",
		"POST /oauth/introspect",
		"POST /oauth/revoke",
		"POST /oauth/token",
		"POST /onboarding",
		"POST /password_reset",
		"POST /password_reset/edit",
		"POST /register",
		"POST /sessions",
		"POST /sessions/mfa",
		"POST /sessions/mfa/passkey",
		"POST /sessions/mfa/passkey/options",
		"POST /sessions/passkey",
		"POST /sessions/passkey/options",
		"POST /sso/link",
	},
	// The viewer's own account: profile, password, second factors, sessions, connected
	// providers, API keys and OAuth grants (whose scope apiAuth caps at read), joining another
	// family by invitation, signing out.
	viewerOwnAccount: {
		"POST /auth/:provider/link",
		"POST /invitations/join",
		"POST /oauth/authorize",
		"POST /settings/api_keys",
		"POST /settings/api_keys/:id/revoke",
		"POST /settings/mfa/confirm",
		"POST /settings/mfa/recovery_codes",
		"POST /settings/mfa/totp",
		"POST /settings/mfa/totp/disable",
		"POST /settings/passkeys/:id/delete",
		"POST /settings/passkeys/options",
		"POST /settings/passkeys/register",
		"POST /settings/profile",
		"POST /settings/profile/password",
		"POST /settings/security/applications/:client_id/revoke",
		"POST /settings/security/browsers/:id/forget",
		"POST /settings/security/identities/:id/disconnect",
		"POST /settings/security/sessions/sign_out_others",
		"POST /settings/step_up/passkey/options",
		"POST /sign_out",
	},
	// Reads: what the family's pages and the API show (other checks, such as admins-only,
	// still apply), and the POSTs that only compute an answer (a rule's preview, an import's
	// preflight).
	viewerReads: {
		"GET /",
		"GET /accounts",
		"GET /accounts/:id",
		"GET /admin/sso_audit_logs",
		"GET /admin/sso_audit_logs.csv",
		"GET /admin/sso_providers",
		"GET /admin/sso_providers/:id/edit",
		"GET /admin/sso_providers/:id/test",
		"GET /admin/sso_providers/mapping_row",
		"GET /admin/sso_providers/new",
		"GET /admin/users",
		"GET /admin/users/:id",
		"GET /api/v1/accounts",
		"GET /api/v1/accounts/:id",
		"GET /api/v1/accounts/:id/balances",
		"GET /api/v1/accounts/:id/forecast",
		"GET /api/v1/accounts/:id/reconciliation",
		"GET /api/v1/bank_connections",
		"GET /api/v1/bank_connections/:id",
		"GET /api/v1/budgets/:month",
		"GET /api/v1/categories",
		"GET /api/v1/categories/:id",
		"GET /api/v1/exchange_rates",
		"GET /api/v1/export",
		"GET /api/v1/import_presets",
		"GET /api/v1/import_profiles",
		"GET /api/v1/import_sessions/:id",
		"GET /api/v1/imports",
		"GET /api/v1/imports/:id",
		"GET /api/v1/imports/:id/file",
		"GET /api/v1/imports/:id/rows",
		"GET /api/v1/invitations",
		"GET /api/v1/merchants",
		"GET /api/v1/merchants/:id",
		"GET /api/v1/net_worth",
		"GET /api/v1/recurring",
		"GET /api/v1/recurring/:id",
		"GET /api/v1/rules",
		"GET /api/v1/rules/:id",
		"GET /api/v1/tags",
		"GET /api/v1/tags/:id",
		"GET /api/v1/transactions",
		"GET /api/v1/transactions/:id",
		"GET /api/v1/transfers",
		"GET /api/v1/transfers/:id",
		"GET /api/v1/webhooks",
		"GET /api/v1/webhooks/:id",
		"GET /api/v1/webhooks/:id/deliveries",
		"GET /budgets",
		"GET /budgets/:month",
		"GET /categories",
		"GET /imports",
		"GET /imports/:id",
		"GET /imports/:id/file",
		"GET /imports/:id/progress",
		"GET /merchants",
		"GET /oauth/applications",
		"GET /oauth/applications/:id/edit",
		"GET /oauth/applications/new",
		"GET /oauth/authorize",
		"GET /recurring",
		"GET /reports/spending",
		"GET /settings/api_keys",
		"GET /settings/bank_connections",
		"GET /settings/bank_connections/:id/status",
		"GET /settings/bank_connections/authorizations/:id",
		"GET /settings/exchange_rates",
		"GET /settings/export",
		"GET /settings/export/download",
		"GET /settings/family",
		"GET /settings/family/members",
		"GET /settings/mfa/totp/new",
		"GET /settings/passkeys",
		"GET /settings/profile",
		"GET /settings/rules",
		"GET /settings/security",
		"GET /settings/webhooks",
		"GET /settings/webhooks/:id",
		"GET /tags",
		"GET /transactions",
		"GET /transactions/:id",
		"GET /transfers",
		"POST /api/v1/imports/preflight",
		"POST /settings/rules/preview",
	},
	// Every change of the family's data: 403 for a viewer. First the pages that are only a
	// form for a change, which a viewer's pages do not link to either.
	viewerDenied: {
		"GET /accounts/:id/edit",
		"GET /accounts/:id/transactions/new",
		"GET /accounts/new",
		"GET /categories/:id/delete",
		"GET /categories/:id/edit",
		"GET /imports/new",
		"GET /merchants/:id/edit",
		"GET /recurring/:id/edit",
		"GET /settings/bank_connections/:id/link",
		"GET /settings/bank_connections/europe",
		"GET /settings/rules/:id/edit",
		"GET /settings/rules/new",
		"GET /tags/:id/edit",
		"GET /transfers/new",
		// The changes.
		"DELETE /api/v1/accounts/:id",
		"DELETE /api/v1/bank_connections/:id",
		"DELETE /api/v1/categories/:id",
		"DELETE /api/v1/exchange_rates/:id",
		"DELETE /api/v1/import_profiles/:id",
		"DELETE /api/v1/imports/:id",
		"DELETE /api/v1/invitations/:id",
		"DELETE /api/v1/merchants/:id",
		"DELETE /api/v1/rules/:id",
		"DELETE /api/v1/tags/:id",
		"DELETE /api/v1/transactions/:id",
		"DELETE /api/v1/transfers/:id",
		"DELETE /api/v1/webhooks/:id",
		"PATCH /api/v1/accounts/:id",
		"PATCH /api/v1/bank_connections/:id/accounts/:uid",
		"PATCH /api/v1/budgets/:month/categories/:category_id",
		"PATCH /api/v1/categories/:id",
		"PATCH /api/v1/imports/:id",
		"PATCH /api/v1/imports/:id/mappings",
		"PATCH /api/v1/merchants/:id",
		"PATCH /api/v1/recurring/:id",
		"PATCH /api/v1/rules/:id",
		"PATCH /api/v1/tags/:id",
		"PATCH /api/v1/transactions",
		"PATCH /api/v1/transactions/:id",
		"PATCH /api/v1/webhooks/:id",
		"POST /accounts",
		"POST /accounts/:id",
		"POST /accounts/:id/checkpoints/:checkpoint/fix",
		"POST /accounts/:id/close",
		"POST /accounts/:id/delete",
		"POST /accounts/:id/reconciliation_fixes/:entry/undo",
		"POST /accounts/:id/reopen",
		"POST /accounts/:id/transactions",
		"POST /admin/sso_providers",
		"POST /admin/sso_providers/:id",
		"POST /admin/sso_providers/:id/delete",
		"POST /admin/sso_providers/:id/toggle",
		"POST /admin/users/:id/delete",
		"POST /admin/users/:id/reactivate",
		"POST /admin/users/:id/reset_mfa",
		"POST /admin/users/:id/role",
		"POST /admin/users/:id/suspend",
		"POST /admin/users/:id/sync_roles",
		"POST /api/v1/accounts",
		"POST /api/v1/bank_connections",
		"POST /api/v1/bank_connections/:id/renew",
		"POST /api/v1/bank_connections/:id/sync",
		"POST /api/v1/budgets/:month/fill",
		"POST /api/v1/budgets/:month/moves",
		"POST /api/v1/budgets/:month/moves/:id/undo",
		"POST /api/v1/categories",
		"POST /api/v1/exchange_rates",
		"POST /api/v1/import_sessions",
		"POST /api/v1/import_sessions/:id/chunks",
		"POST /api/v1/import_sessions/:id/publish",
		"POST /api/v1/imports",
		"POST /api/v1/imports/:id/profile",
		"POST /api/v1/imports/:id/publish",
		"POST /api/v1/imports/:id/revert",
		"POST /api/v1/invitations",
		"POST /api/v1/invitations/:id/resend",
		"POST /api/v1/merchants",
		"POST /api/v1/rule_applications/:id/undo",
		"POST /api/v1/rules",
		"POST /api/v1/rules/:id/apply",
		"POST /api/v1/tags",
		"POST /api/v1/transaction_changes/:id/undo",
		"POST /api/v1/transactions",
		"POST /api/v1/transfers",
		"POST /api/v1/transfers/:id/confirm",
		"POST /api/v1/webhooks",
		"POST /api/v1/webhooks/:id/deliveries/:delivery_id/redeliver",
		"POST /api/v1/webhooks/:id/rotate_secret",
		"POST /bank_connections/enable_banking/callback",
		"POST /budgets/:month/categories/:category_id",
		"POST /budgets/:month/copy",
		"POST /budgets/:month/fill",
		"POST /budgets/:month/income",
		"POST /budgets/:month/moves",
		"POST /budgets/:month/moves/:id/undo",
		"POST /categories",
		"POST /categories/:id",
		"POST /categories/:id/delete",
		"POST /categories/starter",
		"POST /import_profiles/:id/delete",
		"POST /imports",
		"POST /imports/:id/configure",
		"POST /imports/:id/delete",
		"POST /imports/:id/keep",
		"POST /imports/:id/mappings",
		"POST /imports/:id/profile",
		"POST /imports/:id/publish",
		"POST /imports/:id/revert",
		"POST /merchants",
		"POST /merchants/:id",
		"POST /merchants/:id/delete",
		"POST /oauth/applications",
		"POST /oauth/applications/:id",
		"POST /oauth/applications/:id/delete",
		"POST /recurring/:id",
		"POST /recurring/:id/status",
		"POST /recurring/detect",
		"POST /settings/bank_connections",
		"POST /settings/bank_connections/:id/delete",
		"POST /settings/bank_connections/:id/link",
		"POST /settings/bank_connections/:id/reconnect",
		"POST /settings/bank_connections/:id/renew",
		"POST /settings/bank_connections/:id/settings",
		"POST /settings/bank_connections/:id/sync",
		"POST /settings/bank_connections/europe",
		"POST /settings/exchange_rates",
		"POST /settings/exchange_rates/:id/delete",
		"POST /settings/family",
		"POST /settings/family/invitations",
		"POST /settings/family/invitations/:id/resend",
		"POST /settings/family/invitations/:id/revoke",
		"POST /settings/family/members/:id/remove",
		"POST /settings/family/members/:id/role",
		"POST /settings/rule_applications/:id/undo",
		"POST /settings/rules",
		"POST /settings/rules/:id",
		"POST /settings/rules/:id/apply",
		"POST /settings/rules/:id/delete",
		"POST /settings/rules/:id/move",
		"POST /settings/rules/:id/toggle",
		"POST /settings/webhooks",
		"POST /settings/webhooks/:id/delete",
		"POST /settings/webhooks/:id/deliveries/:delivery_id/redeliver",
		"POST /settings/webhooks/:id/pause",
		"POST /settings/webhooks/:id/resume",
		"POST /settings/webhooks/:id/rotate_secret",
		"POST /tags",
		"POST /tags/:id",
		"POST /tags/:id/delete",
		"POST /transactions/:id",
		"POST /transactions/bulk",
		"POST /transactions/changes/:id/undo",
		"POST /transfers",
		"POST /transfers/:id/confirm",
		"POST /transfers/:id/unlink",
		"PUT /api/v1/budgets/:month",
	},
})

// rulesByRoute indexes the lists by route.
func rulesByRoute(lists map[viewerRule][]string) map[string]viewerRule {
	out := map[string]viewerRule{}
	for rule, routes := range lists {
		for _, r := range routes {
			out[r] = rule
		}
	}
	return out
}

// msgViewer answers a viewer's attempt to change something.
const msgViewer = "You can read this family's pages but change nothing: ask an admin of the family for the member role."

// readOnlyForViewers refuses a viewer every route viewerRules does not let them use, with a
// 403: the pages hide what they may not do, and this holds whatever they send.
func readOnlyForViewers(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := currentUser(c)
		if u == nil || !u.Role.ReadOnly() {
			return next(c)
		}
		rule, ok := viewerRules[c.Request().Method+" "+c.Path()]
		if !ok && (c.Request().Method == http.MethodGet || c.Request().Method == http.MethodHead) {
			// No route matched: the answer is a 404, whoever asks.
			return next(c)
		}
		if rule == viewerDenied || !ok {
			return apperr.New(apperr.Forbidden, msgViewer)
		}
		return next(c)
	}
}

// scopeFor caps the scope of credentials (an API key's, an OAuth token's) at what their user's
// role allows: a viewer reads, whatever their key was made with or when.
func scopeFor(u *models.User, scope string) string {
	if u.Role.ReadOnly() {
		return models.ScopeRead
	}
	return scope
}
