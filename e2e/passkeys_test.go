package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/testkit"
)

// virtualAuthenticator gives the tab a platform authenticator that holds discoverable,
// synced (backed-up) passkeys and verifies its user, as a phone or a password manager does.
func virtualAuthenticator(t *testing.T, ctx context.Context) webauthn.AuthenticatorID {
	t.Helper()
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn.enable: %v", err)
	}
	res, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		DefaultBackupEligibility: true, DefaultBackupState: true,
	}})
	if err != nil {
		t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}
	return res.AuthenticatorID
}

// putBackCredential gives the authenticator a credential it made before, as read back by
// WebAuthn.getCredentials, with its sign counter set to signCount (-1: no counter, every
// assertion reports 0). Only the fields that WebAuthn.addCredential documents for a credential
// are sent: getCredentials also reports the Credential Manager Trust Group fields (cmtgKeys,
// generateCmtgKeyOnNextOperation), and Chromium 156 refuses any of them on an authenticator
// without that extension ("CMTG is not supported by this authenticator"), where older builds
// ignored them.
func putBackCredential(t *testing.T, ctx context.Context, auth webauthn.AuthenticatorID, c *webauthn.Credential, signCount float64) {
	t.Helper()
	type credential struct {
		CredentialID         []byte  `json:"credentialId"`
		IsResidentCredential bool    `json:"isResidentCredential"`
		RpID                 string  `json:"rpId"`
		PrivateKey           []byte  `json:"privateKey"`
		UserHandle           []byte  `json:"userHandle,omitempty"`
		SignCount            float64 `json:"signCount"`
		BackupEligibility    bool    `json:"backupEligibility"`
		BackupState          bool    `json:"backupState"`
		UserName             string  `json:"userName,omitempty"`
		UserDisplayName      string  `json:"userDisplayName,omitempty"`
	}
	type params struct {
		AuthenticatorID webauthn.AuthenticatorID `json:"authenticatorId"`
		Credential      credential               `json:"credential"`
	}
	addCredential := cdp.Command[params, cdp.Empty]{Method: webauthn.CommandAddCredential}
	if _, err := chromedp.Call(ctx, addCredential, params{AuthenticatorID: auth, Credential: credential{
		CredentialID: c.CredentialID, IsResidentCredential: c.IsResidentCredential, RpID: c.RpID,
		PrivateKey: c.PrivateKey, UserHandle: c.UserHandle, SignCount: signCount,
		BackupEligibility: c.BackupEligibility, BackupState: c.BackupState,
		UserName: c.UserName, UserDisplayName: c.UserDisplayName,
	}}); err != nil {
		t.Fatalf("WebAuthn.addCredential: %v", err)
	}
}

// TestPasskeys is a person adding a passkey, signing in with it alone, using it as the
// second factor after a password, signing in with it once it reports a sign counter of 0 (as
// synced passkeys do), and removing it with a word on what is left.
func TestPasskeys(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{Localhost: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	auth := virtualAuthenticator(t, ctx)
	bg := context.Background()
	lastUsed := func() *time.Time {
		var at *time.Time
		if err := srv.DB.NewRaw("SELECT last_used_at FROM passkeys WHERE user_id = ?", u.ID).Scan(bg, &at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	signOut := func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
	}

	step(t, "add a passkey", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/settings/security")
		wantText(t, ctx, "passkeys-status", "No passkeys. Manage passkeys")
		click(t, ctx, "passkeys-link")
		visible(t, ctx, "passkeys-empty")
		fill(t, ctx, "field-passkey-name", "Laptop")
		click(t, ctx, "passkey-add")
		waitText(t, ctx, "flash-success", "Passkey “Laptop” added: it signs you in with one touch.", 10*time.Second)
		wantText(t, ctx, "passkey-name", "Laptop synced")
		shot(t, ctx, "passkeys")
	})
	step(t, "creating an API key asks for the passkey", func(t *testing.T) {
		// This session signed in with a password alone, before the passkey: it is asked.
		visit(t, ctx, srv.URL+"/settings/api_keys")
		fill(t, ctx, "field-name", "Budget script")
		click(t, ctx, "create-api-key")
		visible(t, ctx, "step-up-form")
		if n := count(t, ctx, "field-step_up_code"); n != 0 {
			t.Error("a code is asked of a user without an authenticator app")
		}
		click(t, ctx, "step-up-passkey")
		visible(t, ctx, "new-api-key")
	})
	presence := func(t *testing.T, on bool) {
		t.Helper()
		if _, err := chromedp.Call(ctx, webauthn.SetAutomaticPresenceSimulation, webauthn.SetAutomaticPresenceSimulationParams{AuthenticatorID: auth, Enabled: on}); err != nil {
			t.Fatal(err)
		}
	}
	// usedSince waits until the passkey signs in again after before, then for the page.
	usedSince := func(t *testing.T, before *time.Time) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for after := lastUsed(); after == nil || (before != nil && !after.After(*before)); after = lastUsed() {
			if time.Now().After(deadline) {
				t.Fatal("no sign-in with the passkey")
			}
			time.Sleep(50 * time.Millisecond)
		}
		visible(t, ctx, "current-user")
	}
	step(t, "the sign-in page offers the passkey in the email field, and it signs in", func(t *testing.T) {
		// Conditional UI: the sign-in page asks the browser for a passkey as soon as it loads,
		// and this authenticator answers at once, as a person picking it from autofill does.
		before := lastUsed() // the step-up above used the passkey already
		click(t, ctx, "sign-out")
		usedSince(t, before)
	})
	step(t, "the button signs in with the passkey alone", func(t *testing.T) {
		// A browser without conditional UI: the button is the way.
		script, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: "PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);"})
		if err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(ctx, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: script.Identifier})
		before := lastUsed()
		signOut(t)
		click(t, ctx, "passkey-sign-in")
		usedSince(t, before)
	})
	step(t, "a password sign-in asks for the passkey", func(t *testing.T) {
		presence(t, false)
		signOut(t)
		fill(t, ctx, "field-email", u.Email)
		fill(t, ctx, "field-password", testkit.Password)
		click(t, ctx, "sign-in-submit")
		visible(t, ctx, "mfa-form")
		shot(t, ctx, "mfa-passkey")
		presence(t, true)
		click(t, ctx, "passkey-sign-in")
		visible(t, ctx, "current-user")
	})
	step(t, "a synced passkey that counts 0 still signs in", func(t *testing.T) {
		creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: auth})
		if err != nil || len(creds.Credentials) != 1 {
			t.Fatalf("the authenticator's credentials: %v %v", creds, err)
		}
		c := *creds.Credentials[0]
		var stored uint32
		if err := srv.DB.NewRaw("SELECT (credential->'authenticator'->>'signCount')::bigint FROM passkeys WHERE user_id = ?", u.ID).Scan(bg, &stored); err != nil || stored == 0 {
			t.Fatalf("stored counter %d (%v): the authenticator should have counted", stored, err)
		}
		// The same key, now without a counter: every assertion reports 0.
		if _, err := chromedp.Call(ctx, webauthn.RemoveCredential, webauthn.RemoveCredentialParams{AuthenticatorID: auth, CredentialID: c.CredentialID}); err != nil {
			t.Fatal(err)
		}
		putBackCredential(t, ctx, auth, &c, -1)
		before := lastUsed()
		click(t, ctx, "sign-out")
		usedSince(t, before)
	})
	step(t, "removing it says what is left", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/passkeys")
		wantText(t, ctx, "passkey-remaining", "After this, you sign in with your password alone, with no second factor.")
		click(t, ctx, "passkey-remove")
		waitText(t, ctx, "flash-success", "Passkey “Laptop” removed.", 10*time.Second)
		visible(t, ctx, "passkeys-empty")
		if _, err := chromedp.Call(ctx, webauthn.ClearCredentials, webauthn.ClearCredentialsParams{AuthenticatorID: auth}); err != nil {
			t.Fatal(err)
		}
		signOut(t)
		signInAs(t, ctx, srv, u.Email)
		if !strings.HasSuffix(path(t, ctx), "/") {
			t.Errorf("after the password alone: %s", path(t, ctx))
		}
	})
}

// TestDeviceBoundPasskey is a passkey that lives on one device (not backed up): a counter
// that goes backwards is refused as a copy's would be, a second passkey is listed beside it,
// and a browser without WebAuthn is told so.
func TestDeviceBoundPasskey(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{Localhost: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	res, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	auth := res.AuthenticatorID
	bg := context.Background()
	lastUsed := func() *time.Time {
		var at *time.Time
		if err := srv.DB.NewRaw("SELECT max(last_used_at) FROM passkeys WHERE user_id = ?", u.ID).Scan(bg, &at); err != nil {
			t.Fatal(err)
		}
		return at
	}

	step(t, "a browser without WebAuthn is told so", func(t *testing.T) {
		script, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: "delete window.PublicKeyCredential;"})
		if err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(ctx, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: script.Identifier})
		visit(t, ctx, srv.URL+"/sessions/new")
		click(t, ctx, "passkey-sign-in")
		waitText(t, ctx, "passkey-error", "This browser cannot use passkeys. Use a current browser, or sign in another way.", 10*time.Second)
	})
	step(t, "add a passkey that is not synced, and sign in with it", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/settings/passkeys")
		fill(t, ctx, "field-passkey-name", "Security key")
		click(t, ctx, "passkey-add")
		waitText(t, ctx, "flash-success", "Passkey “Security key” added: it signs you in with one touch.", 10*time.Second)
		wantText(t, ctx, "passkey-name", "Security key")
		click(t, ctx, "sign-out")
		deadline := time.Now().Add(10 * time.Second)
		for lastUsed() == nil {
			if time.Now().After(deadline) {
				t.Fatal("no sign-in with the passkey")
			}
			time.Sleep(50 * time.Millisecond)
		}
		visible(t, ctx, "current-user")
	})
	var securityKey webauthn.Credential
	step(t, "a second passkey is listed beside it", func(t *testing.T) {
		creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: auth})
		if err != nil || len(creds.Credentials) != 1 {
			t.Fatalf("credentials: %v %v", creds, err)
		}
		securityKey = *creds.Credentials[0]
		// The phone is another device: this authenticator now holds only what is made next.
		if _, err := chromedp.Call(ctx, webauthn.ClearCredentials, webauthn.ClearCredentialsParams{AuthenticatorID: auth}); err != nil {
			t.Fatal(err)
		}
		visit(t, ctx, srv.URL+"/settings/passkeys")
		fill(t, ctx, "field-passkey-name", "Phone")
		click(t, ctx, "passkey-add")
		waitText(t, ctx, "flash-success", "Passkey “Phone” added: it signs you in with one touch.", 10*time.Second)
		if n := count(t, ctx, "passkey-row"); n != 2 {
			t.Fatalf("%d passkeys listed", n)
		}
		wantText(t, ctx, "passkey-remaining", "After this, you sign in with your password, or your other passkey.")
	})
	step(t, "a counter going backwards is refused", func(t *testing.T) {
		// The security key again, now reporting 0, below what Tally saw it count.
		if _, err := chromedp.Call(ctx, webauthn.ClearCredentials, webauthn.ClearCredentialsParams{AuthenticatorID: auth}); err != nil {
			t.Fatal(err)
		}
		putBackCredential(t, ctx, auth, &securityKey, -1)
		before := lastUsed()
		click(t, ctx, "sign-out")
		waitText(t, ctx, "passkey-error", "This passkey's counter went backwards, as a copy's would: it was refused. Sign in another way, then remove it and add it again.", 10*time.Second)
		if n := count(t, ctx, "current-user"); n != 0 {
			t.Error("signed in with a refused passkey")
		}
		if after := lastUsed(); !after.Equal(*before) {
			t.Errorf("the refused passkey's use was recorded: %v → %v", before, after)
		}
	})
}
