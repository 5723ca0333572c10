package handlers

import (
	"io/fs"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"tally/internal/ratelimit"
	"tally/models"
	"tally/static"
)

// loginRule limits password sign-in (and reset requests) per IP across every instance.
var loginRule = ratelimit.Rule{Limit: 10, Window: time.Minute}

// routes registers every route of Tally. It is the one place to look for what the server
// answers.
func (a *app) routes(e *echo.Echo) {
	e.Use(a.requestID, a.logRequests, a.secureHeaders, a.bodyDeadline, a.requestTimeout)

	e.GET("/healthz", a.healthz)
	e.GET("/readyz", a.readyz)
	e.GET("/api/v1/openapi.json", a.apiOpenAPI)
	assets, _ := fs.Sub(static.Dist, "dist")
	e.GET("/favicon.ico", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, static.URL("favicon.svg")) })
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", cacheFor(365*24*time.Hour, http.FileServerFS(assets)))))

	// Pages: a session, CSRF on every form, the signed-in user if any.
	web := e.Group("", a.loadSession, a.limitBody, a.csrf, a.loadUser, readOnlyForViewers, actAsUser)
	web.GET("/onboarding", a.onboardingNew)
	web.POST("/onboarding", a.onboardingCreate)
	web.GET("/sessions/new", a.sessionNew)
	web.GET("/sessions", a.sessionRedirect)
	web.POST("/sessions", a.sessionCreate, a.rateLimit("login", loginRule))
	web.POST("/sign_out", a.sessionDestroy)
	web.GET("/password_reset/new", a.passwordResetNew)
	web.POST("/password_reset", a.passwordResetCreate, a.rateLimit("password_reset", loginRule))
	web.GET("/password_reset/edit", a.passwordResetEdit)
	web.POST("/password_reset/edit", a.passwordResetUpdate, a.rateLimit("password_reset", loginRule))

	// Single sign-on. The SAML assertion consumer service is posted to cross-site by the IdP's
	// page: it is outside the CSRF check, which its RelayState, InResponseTo and replay
	// checks replace, and outside the session, whose cookie the browser does not send there.
	if a.SSO != nil {
		web.GET("/auth/saml/:key", a.samlEntityID)
		web.GET("/auth/saml/:key/metadata", a.samlMetadata)
		web.GET("/auth/saml/:key/finish", a.samlFinish)
		web.GET("/auth/saml/:key/logout", a.samlLogout)
		e.POST("/auth/saml/:key/callback", a.samlACS, a.limitBody)
		web.GET("/auth/:provider", a.ssoStart)
		web.POST("/auth/:provider/link", a.ssoLinkStart, a.requireUser, a.requireEnrolment, a.stepUp("step_up_action.connect_provider", nil))
		web.GET("/auth/:provider/callback", a.ssoCallback)
		web.GET("/sso/link", a.ssoLinkPage)
		web.POST("/sso/link", a.ssoLinkConfirm, a.rateLimit("login", loginRule))
	}

	// The bank sends the person back here from Enable Banking, in whatever browser finished
	// the approval: its state, single use and unguessable, stands for the session. The page
	// names the household that gets the access; the form it posts completes it.
	if a.Bank != nil {
		web.GET("/bank_connections/enable_banking/callback", a.bankCallback)
		web.POST("/bank_connections/enable_banking/callback", a.bankCallbackConfirm)
	}

	a.invitationRoutes(web)

	signedIn := web.Group("", a.requireUser, a.requireEnrolment)
	signedIn.GET("/", a.dashboard)
	signedIn.GET("/reports/spending", a.spendingReport)
	signedIn.GET("/accounts", a.accountsIndex)
	signedIn.GET("/accounts/new", a.accountNew)
	signedIn.POST("/accounts", a.accountCreate)
	signedIn.GET("/accounts/:id", a.accountShow)
	signedIn.GET("/accounts/:id/edit", a.accountEdit)
	signedIn.POST("/accounts/:id", a.accountUpdate)
	signedIn.POST("/accounts/:id/close", a.accountClose)
	signedIn.POST("/accounts/:id/reopen", a.accountReopen)
	signedIn.POST("/accounts/:id/delete", a.accountDelete)
	signedIn.POST("/accounts/:id/checkpoints/:checkpoint/fix", a.checkpointFix)
	signedIn.POST("/accounts/:id/reconciliation_fixes/:entry/undo", a.reconciliationFixUndo)
	signedIn.GET("/transactions", a.transactionsIndex)
	signedIn.POST("/transactions/bulk", a.transactionsBulk)
	signedIn.POST("/transactions/changes/:id/undo", a.transactionsUndo)
	signedIn.GET("/transactions/:id", a.transactionEdit)
	signedIn.POST("/transactions/:id", a.transactionUpdate)
	signedIn.GET("/accounts/:id/transactions/new", a.transactionNew)
	signedIn.POST("/accounts/:id/transactions", a.transactionCreate)
	// Categories, tags and merchants: every member of the family manages them.
	signedIn.GET("/categories", a.categoriesIndex)
	signedIn.POST("/categories", a.categoryCreate)
	signedIn.POST("/categories/starter", a.categoriesStarter)
	signedIn.GET("/categories/:id/edit", a.categoryEdit)
	signedIn.POST("/categories/:id", a.categoryUpdate)
	signedIn.GET("/categories/:id/delete", a.categoryDeletePage)
	signedIn.POST("/categories/:id/delete", a.categoryDelete)
	signedIn.GET("/tags", a.tagsIndex)
	signedIn.POST("/tags", a.tagCreate)
	signedIn.GET("/tags/:id/edit", a.tagEdit)
	signedIn.POST("/tags/:id", a.tagUpdate)
	signedIn.POST("/tags/:id/delete", a.tagDelete)
	signedIn.GET("/merchants", a.merchantsIndex)
	signedIn.POST("/merchants", a.merchantCreate)
	signedIn.GET("/merchants/:id/edit", a.merchantEdit)
	signedIn.POST("/merchants/:id", a.merchantUpdate)
	signedIn.POST("/merchants/:id/delete", a.merchantDelete)
	signedIn.GET("/settings/export", a.exportPage)
	signedIn.GET("/settings/export/download", a.streamExport, requireFamilyAdmin)
	signedIn.GET("/settings/api_keys", a.apiKeysIndex)
	signedIn.POST("/settings/api_keys", a.apiKeyCreate, a.stepUp("step_up_action.create_api_key", nil))
	signedIn.POST("/settings/api_keys/:id/revoke", a.apiKeyRevoke)
	signedIn.GET("/imports", a.importsIndex)
	signedIn.GET("/imports/new", a.importNew)
	signedIn.POST(importFormPath, a.importCreate)
	signedIn.GET("/imports/:id", a.importShow)
	signedIn.GET("/imports/:id/progress", a.importProgress)
	signedIn.GET("/imports/:id/file", a.importFile)
	signedIn.POST("/imports/:id/publish", a.importPublish)
	signedIn.POST("/imports/:id/revert", a.importRevert)
	signedIn.POST("/imports/:id/mappings", a.importMapping)
	signedIn.POST("/imports/:id/configure", a.importConfigure)
	signedIn.POST("/imports/:id/keep", a.importKeep)
	signedIn.POST("/imports/:id/profile", a.importSaveProfile)
	signedIn.POST("/import_profiles/:id/delete", a.importProfileDelete)
	signedIn.POST("/imports/:id/delete", a.importDelete)

	a.budgetRoutes(signedIn)
	a.profileRoutes(signedIn)
	a.familyRoutes(signedIn)
	a.exchangeRateRoutes(signedIn)
	a.rulesRoutes(signedIn)
	a.transfersRoutes(signedIn)
	a.recurringRoutes(signedIn)
	a.securityRoutes(signedIn)
	a.mfaRoutes(web, signedIn)
	a.passkeyRoutes(web, signedIn)
	a.bankRoutes(signedIn)
	a.webhookRoutes(signedIn)
	a.oauthRoutes(e, signedIn)

	// Administration: super admins only (anyone else gets a 404), 10 requests a minute per IP.
	admin := signedIn.Group("/admin", a.requireSuperAdmin, a.rateLimit("admin", a.adminRule()))
	a.adminProviderRoutes(admin)
	a.adminUserRoutes(admin)
	a.adminAuditRoutes(admin)
	a.oauthAppRoutes(signedIn.Group("/oauth/applications", a.requireSuperAdmin, a.rateLimit("admin", a.adminRule())))

	// API: an OAuth bearer token or X-Api-Key, JSON only, no cookies and so no CSRF.
	api := e.Group("/api/v1", a.apiAuth, readOnlyForViewers, actAsUser)
	api.GET("/accounts", a.apiAccountsIndex, requireScope(models.ScopeRead))
	api.GET("/accounts/:id", a.apiAccountShow, requireScope(models.ScopeRead))
	api.POST("/accounts", a.apiAccountCreate, requireScope(models.ScopeReadWrite))
	api.PATCH("/accounts/:id", a.apiAccountUpdate, requireScope(models.ScopeReadWrite))
	api.DELETE("/accounts/:id", a.apiAccountDelete, requireScope(models.ScopeReadWrite))
	api.GET("/accounts/:id/balances", a.apiAccountBalances, requireScope(models.ScopeRead))
	api.GET("/accounts/:id/reconciliation", a.apiAccountReconciliation, requireScope(models.ScopeRead))
	api.GET("/accounts/:id/forecast", a.apiAccountForecast, requireScope(models.ScopeRead))
	api.GET("/net_worth", a.apiNetWorth, requireScope(models.ScopeRead))
	api.GET("/categories", a.apiCategories, requireScope(models.ScopeRead))
	api.POST("/categories", a.apiCategoryCreate, requireScope(models.ScopeReadWrite))
	api.GET("/categories/:id", a.apiCategoryShow, requireScope(models.ScopeRead))
	api.PATCH("/categories/:id", a.apiCategoryUpdate, requireScope(models.ScopeReadWrite))
	api.DELETE("/categories/:id", a.apiCategoryDelete, requireScope(models.ScopeReadWrite))
	api.GET("/budgets/:month", a.apiBudget, requireScope(models.ScopeRead))
	api.PUT("/budgets/:month", a.apiBudgetPut, requireScope(models.ScopeReadWrite))
	api.PATCH("/budgets/:month/categories/:category_id", a.apiBudgetCategory, requireScope(models.ScopeReadWrite))
	api.POST("/budgets/:month/moves", a.apiBudgetMove, requireScope(models.ScopeReadWrite))
	api.POST("/budgets/:month/moves/:id/undo", a.apiBudgetMoveUndo, requireScope(models.ScopeReadWrite))
	api.POST("/budgets/:month/fill", a.apiBudgetFill, requireScope(models.ScopeReadWrite))
	api.GET("/tags", a.apiTags, requireScope(models.ScopeRead))
	api.POST("/tags", a.apiTagCreate, requireScope(models.ScopeReadWrite))
	api.GET("/tags/:id", a.apiTagShow, requireScope(models.ScopeRead))
	api.PATCH("/tags/:id", a.apiTagUpdate, requireScope(models.ScopeReadWrite))
	api.DELETE("/tags/:id", a.apiTagDelete, requireScope(models.ScopeReadWrite))
	api.GET("/merchants", a.apiMerchants, requireScope(models.ScopeRead))
	api.POST("/merchants", a.apiMerchantCreate, requireScope(models.ScopeReadWrite))
	api.GET("/merchants/:id", a.apiMerchantShow, requireScope(models.ScopeRead))
	api.PATCH("/merchants/:id", a.apiMerchantUpdate, requireScope(models.ScopeReadWrite))
	api.DELETE("/merchants/:id", a.apiMerchantDelete, requireScope(models.ScopeReadWrite))
	api.GET("/recurring", a.apiRecurring, requireScope(models.ScopeRead))
	api.GET("/recurring/:id", a.apiRecurringShow, requireScope(models.ScopeRead))
	api.PATCH("/recurring/:id", a.apiRecurringUpdate, requireScope(models.ScopeReadWrite))
	api.GET("/exchange_rates", a.apiExchangeRates, requireScope(models.ScopeRead))
	api.POST("/exchange_rates", a.apiExchangeRateCreate, requireScope(models.ScopeReadWrite))
	api.DELETE("/exchange_rates/:id", a.apiExchangeRateDelete, requireScope(models.ScopeReadWrite))
	api.GET("/export", a.streamExport, requireScope(models.ScopeRead), exportAdmin)
	api.GET("/imports", a.apiImportsIndex, requireScope(models.ScopeRead))
	api.POST("/imports", a.apiImportCreate, requireScope(models.ScopeReadWrite), a.limitImports)
	api.POST("/imports/preflight", a.apiImportPreflight, requireScope(models.ScopeRead))
	api.GET("/imports/:id", a.apiImportShow, requireScope(models.ScopeRead))
	api.GET("/imports/:id/rows", a.apiImportRows, requireScope(models.ScopeRead))
	api.PATCH("/imports/:id", a.apiImportConfigure, requireScope(models.ScopeReadWrite))
	api.PATCH("/imports/:id/mappings", a.apiImportMapping, requireScope(models.ScopeReadWrite))
	api.GET("/imports/:id/file", a.importFile, requireScope(models.ScopeRead))
	api.POST("/imports/:id/publish", a.apiImportPublish, requireScope(models.ScopeReadWrite))
	api.POST("/imports/:id/revert", a.apiImportRevert, requireScope(models.ScopeReadWrite))
	api.DELETE("/imports/:id", a.apiImportDelete, requireScope(models.ScopeReadWrite))
	api.POST("/imports/:id/profile", a.apiImportProfileSave, requireScope(models.ScopeReadWrite))
	api.GET("/import_presets", a.apiImportPresets, requireScope(models.ScopeRead))
	api.GET("/import_profiles", a.apiImportProfiles, requireScope(models.ScopeRead))
	api.DELETE("/import_profiles/:id", a.apiImportProfileDelete, requireScope(models.ScopeReadWrite))
	api.GET("/rules", a.apiRules, requireScope(models.ScopeRead))
	api.POST("/rules", a.apiRuleCreate, requireScope(models.ScopeReadWrite))
	api.GET("/rules/:id", a.apiRuleShow, requireScope(models.ScopeRead))
	api.PATCH("/rules/:id", a.apiRuleUpdate, requireScope(models.ScopeReadWrite))
	api.DELETE("/rules/:id", a.apiRuleDelete, requireScope(models.ScopeReadWrite))
	api.POST("/rules/:id/apply", a.apiRuleApply, requireScope(models.ScopeReadWrite))
	api.POST("/rule_applications/:id/undo", a.apiChangeUndo, requireScope(models.ScopeReadWrite))
	api.POST("/transaction_changes/:id/undo", a.apiChangeUndo, requireScope(models.ScopeReadWrite))
	api.GET("/transactions", a.apiTransactions, requireScope(models.ScopeRead))
	api.POST("/transactions", a.apiTransactionCreate, requireScope(models.ScopeReadWrite))
	api.PATCH("/transactions", a.apiTransactionsUpdate, requireScope(models.ScopeReadWrite))
	api.GET("/transactions/:id", a.apiTransactionShow, requireScope(models.ScopeRead))
	api.PATCH("/transactions/:id", a.apiTransactionUpdate, requireScope(models.ScopeReadWrite))
	api.DELETE("/transactions/:id", a.apiTransactionDelete, requireScope(models.ScopeReadWrite))
	api.GET("/transfers", a.apiTransfers, requireScope(models.ScopeRead))
	api.POST("/transfers", a.apiTransferCreate, requireScope(models.ScopeReadWrite))
	api.GET("/transfers/:id", a.apiTransferShow, requireScope(models.ScopeRead))
	api.POST("/transfers/:id/confirm", a.apiTransferConfirm, requireScope(models.ScopeReadWrite))
	api.DELETE("/transfers/:id", a.apiTransferDelete, requireScope(models.ScopeReadWrite))
	api.POST("/import_sessions", a.apiSessionCreate, requireScope(models.ScopeReadWrite), a.limitImports)
	api.GET("/import_sessions/:id", a.apiSessionShow, requireScope(models.ScopeRead))
	api.POST("/import_sessions/:id/chunks", a.apiSessionChunk, requireScope(models.ScopeReadWrite))
	api.POST("/import_sessions/:id/publish", a.apiSessionPublish, requireScope(models.ScopeReadWrite))
	// Bank connections: each person's own, and the family's for its admins (theirConnection);
	// a viewer's key reads at most.
	api.GET("/bank_connections", a.apiBankConnections, requireScope(models.ScopeRead))
	api.POST("/bank_connections", a.apiBankConnectionCreate, requireScope(models.ScopeReadWrite))
	api.GET("/bank_connections/:id", a.apiBankConnectionShow, requireScope(models.ScopeRead))
	api.DELETE("/bank_connections/:id", a.apiBankConnectionDelete, requireScope(models.ScopeReadWrite))
	api.PATCH("/bank_connections/:id/accounts/:uid", a.apiBankAccountLink, requireScope(models.ScopeReadWrite))
	api.POST("/bank_connections/:id/sync", a.apiBankConnectionSync, requireScope(models.ScopeReadWrite))
	api.POST("/bank_connections/:id/renew", a.apiBankConnectionRenew, requireScope(models.ScopeReadWrite))
	// Webhooks send the family's events wherever they point: family admins only.
	api.GET("/webhooks", a.apiWebhooks, requireScope(models.ScopeRead), requireAPIAdmin)
	api.POST("/webhooks", a.apiWebhookCreate, requireScope(models.ScopeReadWrite), requireAPIAdmin)
	api.GET("/webhooks/:id", a.apiWebhookShow, requireScope(models.ScopeRead), requireAPIAdmin)
	api.PATCH("/webhooks/:id", a.apiWebhookUpdate, requireScope(models.ScopeReadWrite), requireAPIAdmin)
	api.DELETE("/webhooks/:id", a.apiWebhookDelete, requireScope(models.ScopeReadWrite), requireAPIAdmin)
	api.POST("/webhooks/:id/rotate_secret", a.apiWebhookRotateSecret, requireScope(models.ScopeReadWrite), requireAPIAdmin)
	api.GET("/webhooks/:id/deliveries", a.apiWebhookDeliveries, requireScope(models.ScopeRead), requireAPIAdmin)
	api.POST("/webhooks/:id/deliveries/:delivery_id/redeliver", a.apiWebhookRedeliver, requireScope(models.ScopeReadWrite), requireAPIAdmin)
	// Invitations decide who joins the family: family admins only, a bounded number a family.
	api.GET("/invitations", a.apiInvitations, requireScope(models.ScopeRead), requireAPIMembersAdmin)
	api.POST("/invitations", a.apiInvitationCreate, requireScope(models.ScopeReadWrite), requireAPIMembersAdmin, a.limitInvitations)
	api.POST("/invitations/:id/resend", a.apiInvitationResend, requireScope(models.ScopeReadWrite), requireAPIMembersAdmin, a.limitInvitations)
	api.DELETE("/invitations/:id", a.apiInvitationDelete, requireScope(models.ScopeReadWrite), requireAPIMembersAdmin)
}

func cacheFor(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(int(d.Seconds())))
		h.ServeHTTP(w, r)
	})
}
