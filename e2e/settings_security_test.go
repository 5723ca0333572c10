package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// TestSecurityDisconnectProvider disconnects a provider from security settings: a person
// who signs in with a password opens Security, disconnects their Corp account through the
// confirmation dialog and sees it gone.
func TestSecurityDisconnectProvider(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	file := filepath.Join(t.TempDir(), "auth.yml")
	yaml := "default:\n  providers:\n    - id: corp\n      strategy: openid_connect\n      name: corp\n      label: Sign in with Corp\n" +
		"      issuer: https://sso.corp.example\n      client_id: tally\n      client_secret: corp-secret\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": file}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	id := uuid.New()
	if _, err := srv.DB.NewRaw(`INSERT INTO sso_identities (id, user_id, provider, subject, email, last_used_at)
		VALUES (?, ?, 'corp', 'e2e-corp', 'ada@corp.example', now())`, id, u.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	identities := func() int {
		n, err := srv.DB.NewSelect().Table("sso_identities").Where("user_id = ?", u.ID).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	dialog := "disconnect-" + id.String()

	step(t, "sign in with a password", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
	})
	step(t, "Security lists the connected account", func(t *testing.T) {
		clickNav(t, ctx, "security")
		visible(t, ctx, "identities-table")
		wantPath(t, ctx, "/settings/security")
		if n := count(t, ctx, "identity-row"); n != 1 {
			t.Fatalf("%d connected accounts listed, want 1", n)
		}
		wantText(t, ctx, "identity-provider", "Corp")
		wantText(t, ctx, "identity-email", "ada@corp.example")
		visible(t, ctx, "session-current")
		shot(t, ctx, "security")
	})
	step(t, "disconnecting asks first", func(t *testing.T) {
		click(t, ctx, "disconnect-identity")
		visible(t, ctx, dialog)
		wantPath(t, ctx, "/settings/security")
		if identities() != 1 {
			t.Fatal("the account was disconnected before it was confirmed")
		}
		shot(t, ctx, "security-disconnect-confirm")
	})
	step(t, "confirming disconnects it", func(t *testing.T) {
		click(t, ctx, dialog+"-submit")
		visible(t, ctx, "flash-success")
		wantPath(t, ctx, "/settings/security")
		wantText(t, ctx, "flash-success", "Your Corp account has been disconnected.")
		visible(t, ctx, "identities-empty")
		if n := count(t, ctx, "identity-row"); n != 0 {
			t.Errorf("%d connected accounts still listed", n)
		}
		if n := identities(); n != 0 {
			t.Errorf("%d identity rows left, want 0", n)
		}
		visible(t, ctx, "connect-corp")
		shot(t, ctx, "security-disconnected")
	})
}

// TestForgetABrowser is a person who signed in: Security lists this browser as one Tally
// remembers, and forgetting it takes it off the list and out of the database.
func TestForgetABrowser(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	known := func() int {
		n, err := srv.DB.NewSelect().Table("known_browsers").Where("user_id = ?", u.ID).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	step(t, "Security lists this browser", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "security")
		visible(t, ctx, "browser-current")
		if n := count(t, ctx, "browser-row"); n != 1 || known() != 1 {
			t.Fatalf("%d browsers listed, %d known", n, known())
		}
		run(t, ctx, "scroll to the browsers", chromedp.ScrollIntoView(testID("browsers-table")))
		shot(t, ctx, "security-browsers")
	})
	step(t, "forget it", func(t *testing.T) {
		click(t, ctx, "forget-browser")
		visible(t, ctx, "flash-success")
		wantPath(t, ctx, "/settings/security")
		visible(t, ctx, "browsers-empty")
		if known() != 0 {
			t.Fatal("the browser is still known")
		}
	})
}
