package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/pquerna/otp/totp"

	"tally/app"
	"tally/app/apptest"
	"tally/internal/db"
	"tally/models"
	"tally/sso"
	"tally/testkit"
)

// adminServer starts Tally with database providers and room for an admin's many requests.
func adminServer(t *testing.T) (*apptest.Server, *models.User) {
	t.Helper()
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_PROVIDERS_SOURCE": "db", "ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	return srv, testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
}

// TestAddTestEnableAndSignInWithAProvider is the administrator's journey: add an OIDC
// provider, run a test login, enable it, and sign in with it.
func TestAddTestEnableAndSignInWithAProvider(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	srv, root := adminServer(t)
	cfg := m.Config()

	step(t, "add the provider", func(t *testing.T) {
		signInAs(t, ctx, srv, root.Email)
		clickNav(t, ctx, "admin_providers")
		visible(t, ctx, "providers-empty")
		click(t, ctx, "providers-empty-add")
		click(t, ctx, "choose-openid_connect")
		visible(t, ctx, "provider-form")
		fill(t, ctx, "field-name", "corp")
		fill(t, ctx, "field-label", "Sign in with Corp")
		fill(t, ctx, "field-issuer", cfg.Issuer)
		fill(t, ctx, "field-client_id", cfg.ClientID)
		fill(t, ctx, "field-client_secret", cfg.ClientSecret)
		fill(t, ctx, "field-scopes", "openid email profile groups")
		fill(t, ctx, "mapping-group", "finance")
		choose(t, ctx, "mapping-role", "admin")
		shot(t, ctx, "admin-provider-form")
		// Enter in a field saves the form: it once reached the mapping row's Remove first.
		run(t, ctx, "press Enter in the scopes field", chromedp.SendKeys(testID("field-scopes"), kb.Enter))
		visible(t, ctx, "flash-success")
		if got := inputValue(t, ctx, "mapping-group"); got != "finance" {
			t.Fatalf("after Enter the group mapping is %q, want it saved as finance", got)
		}
		if got := inputValue(t, ctx, "provider-callback"); got != srv.URL+"/auth/corp/callback" {
			t.Fatalf("callback URL %q", got)
		}
	})

	step(t, "test login shows what would happen", func(t *testing.T) {
		m.QueueUser(&mockoidc.MockUser{Subject: "tester", Email: "tester@example.com", EmailVerified: true, Groups: []string{"finance"}})
		href := attr(t, ctx, "test-login", "href")
		visit(t, ctx, srv.URL+href)
		visible(t, ctx, "test-ok")
		wantText(t, ctx, "test-role", "Admin")
		wantText(t, ctx, "test-groups", "finance")
		shot(t, ctx, "admin-provider-test")
	})

	step(t, "enable it", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/admin/sso_providers")
		wantText(t, ctx, "provider-status", "Disabled")
		click(t, ctx, "provider-toggle")
		waitText(t, ctx, "provider-status", "Enabled", 10*time.Second)
		shot(t, ctx, "admin-providers")
	})

	step(t, "sign in with it", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sso-corp")
		m.QueueUser(&mockoidc.MockUser{Subject: "new-1", Email: "newcomer@example.com", EmailVerified: true, Groups: []string{"finance"}})
		click(t, ctx, "sso-corp")
		visible(t, ctx, "current-user")
		if got := text(t, ctx, "current-user"); !strings.Contains(got, "newcomer@example.com") {
			t.Fatalf("signed in as %q", got)
		}
	})
}

// TestSuspendAndReactivateAUser suspends a user from their admin page, then reactivates them.
func TestSuspendAndReactivateAUser(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv, root := adminServer(t)
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "member@example.com", Role: models.RoleMember})

	step(t, "suspend", func(t *testing.T) {
		signInAs(t, ctx, srv, root.Email)
		clickNav(t, ctx, "admin_users")
		visible(t, ctx, "users-table")
		choose(t, ctx, "field-status", "active")
		visit(t, ctx, srv.URL+"/admin/users?role=member")
		if n := count(t, ctx, "user-row"); n != 1 {
			t.Fatalf("%d members listed", n)
		}
		click(t, ctx, "user-link")
		visible(t, ctx, "user-summary")
		click(t, ctx, "suspend-user")
		visible(t, ctx, "confirm-suspend")
		shot(t, ctx, "admin-user-suspend")
		click(t, ctx, "confirm-suspend-submit")
		waitText(t, ctx, "user-status", "Suspended", 10*time.Second)
		visible(t, ctx, "flash-success")
	})

	step(t, "reactivate", func(t *testing.T) {
		// The page reloads with the new status: wait for it, not for a flash the old page had.
		click(t, ctx, "reactivate-user")
		waitText(t, ctx, "user-status", "Active", 10*time.Second)
		visible(t, ctx, "flash-success")
		shot(t, ctx, "admin-user")
	})
}

// TestEnablingAProviderAsksForTheCode is a super admin whose last code is older than 10
// minutes enabling a provider from the list: the toggle, an htmx request, brings the step-up
// page up whole instead of into the provider's row, and the code enables the provider.
func TestEnablingAProviderAsksForTheCode(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv, root := adminServer(t)
	keys, err := app.EncryptionKeys(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	p := &sso.Provider{Strategy: sso.StrategyOAuth2, Name: "corp", Label: "Corp", DefaultRole: models.RoleMember,
		AuthorizationURL: "https://idp.example/authorize", TokenURL: "https://idp.example/token", UserinfoURL: "https://idp.example/userinfo",
		ClientID: "tally", ClientSecret: "a client secret", TokenAuthMethod: sso.AuthClientSecretPost}
	if err := srv.DB.InTx(bg, func(ctx context.Context, tx db.Tx) error {
		return (&sso.DBRegistry{DB: srv.DB, Keys: keys}).Save(ctx, tx, p)
	}); err != nil {
		t.Fatal(err)
	}
	step(t, "sign in, then the authenticator is turned on elsewhere", func(t *testing.T) {
		signInAs(t, ctx, srv, root.Email)
	})
	secret := apptest.MustEnrolTOTP(t, srv, root) // from another session: this one gave no code
	enabled := func() bool {
		var on bool
		if err := srv.DB.NewRaw("SELECT enabled FROM sso_providers WHERE id = ?", p.ID).Scan(bg, &on); err != nil {
			t.Fatal(err)
		}
		return on
	}

	step(t, "the toggle asks for the code on a page of its own", func(t *testing.T) {
		clickNav(t, ctx, "admin_providers")
		click(t, ctx, "provider-toggle")
		visible(t, ctx, "step-up-form")
		wantText(t, ctx, "step-up-what", "To turn a sign-in provider on or off, confirm it is you with a code from your authenticator app (or a recovery code). Tally asks again when you last did more than 10 minutes ago.")
		if count(t, ctx, "add-provider") != 0 || count(t, ctx, "current-user") != 1 || enabled() {
			t.Fatal("the step-up page sits inside the providers' list, or the provider is enabled without the code")
		}
	})
	step(t, "the code enables it", func(t *testing.T) {
		code, _ := totp.GenerateCode(secret, time.Now())
		fill(t, ctx, "field-step_up_code", code)
		click(t, ctx, "step-up-submit")
		waitText(t, ctx, "flash-success", "Provider “Corp” enabled.", 10*time.Second)
		wantPath(t, ctx, "/admin/sso_providers")
		if !enabled() {
			t.Fatal("the provider is still disabled after the code")
		}
	})
}
