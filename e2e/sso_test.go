package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"tally/app/apptest"
	"tally/testkit"
)

// TestSignInWithSSO clicks the provider's button on the sign-in page, signs in at an
// in-process OpenID Connect provider and lands on the dashboard, signed in.
func TestSignInWithSSO(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	cfg := m.Config()
	file := filepath.Join(t.TempDir(), "auth.yml")
	yaml := "default:\n  providers:\n    - id: corp\n      strategy: openid_connect\n      name: corp\n      label: Sign in with Corp\n" +
		"      issuer: " + cfg.Issuer + "\n      client_id: " + cfg.ClientID + "\n      client_secret: " + cfg.ClientSecret + "\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": file}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	m.QueueUser(&mockoidc.MockUser{Subject: "e2e-1", Email: "sso.user@example.com", EmailVerified: true})

	step(t, "the sign-in page offers the provider", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/sessions/new")
		wantText(t, ctx, "sso-corp", "Sign in with Corp")
		shot(t, ctx, "sign-in-sso")
	})
	step(t, "signing in through it lands on the dashboard", func(t *testing.T) {
		click(t, ctx, "sso-corp")
		visible(t, ctx, "current-user")
		wantPath(t, ctx, "/")
		if got := text(t, ctx, "current-user"); !strings.Contains(got, "sso.user@example.com") {
			t.Fatalf("signed in as %q", got)
		}
		if pageContains(t, ctx, "Welcome! Your account has been created.") == false {
			t.Error("no welcome message for the new account")
		}
	})
}
