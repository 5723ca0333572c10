package sso_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/google/uuid"

	"tally/auditlog"
	"tally/internal/db"
	"tally/models"
	"tally/sso"
	"tally/testkit"
)

type signinEnv struct {
	db  *db.DB
	svc *sso.Service
	p   *sso.Provider
}

func newSigninEnv(t *testing.T, rules sso.Rules) *signinEnv {
	t.Helper()
	d := testkit.MustOpenDB(t)
	if rules.JITMode == "" {
		rules.JITMode = sso.JITCreateAndLink
	}
	return &signinEnv{db: d, svc: &sso.Service{DB: d, Rules: rules, Log: slog.New(slog.NewTextHandler(io.Discard, nil))},
		p: &sso.Provider{Name: "corp", Label: "Corp SSO", Strategy: sso.StrategyOIDC, DefaultRole: models.RoleMember}}
}

func identity(subject, email string, groups ...string) *sso.Identity {
	return &sso.Identity{Provider: "corp", Issuer: "https://idp.example", Subject: subject, Email: email, EmailVerified: true,
		Name: "Ada Lovelace", Groups: groups}
}

func (e *signinEnv) complete(t *testing.T, id *sso.Identity) (*sso.Outcome, error) {
	t.Helper()
	return e.svc.Complete(context.Background(), e.p, id, auditlog.Meta{IP: "192.0.2.1", UserAgent: "test"}, sso.PurposeLogin, nil)
}

func (e *signinEnv) events(t *testing.T, kind string) int {
	t.Helper()
	var n int
	if err := e.db.NewRaw("SELECT count(*) FROM sso_audit_logs WHERE event_type = ?", kind).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *signinEnv) reason(t *testing.T) string {
	t.Helper()
	var r string
	e.db.NewRaw("SELECT metadata->>'reason' FROM sso_audit_logs WHERE event_type = 'login_failed' ORDER BY created_at DESC LIMIT 1").Scan(context.Background(), &r)
	return r
}

func TestJITCreatesAUserWhoAdministersANewFamily(t *testing.T) {
	t.Parallel()
	e := newSigninEnv(t, sso.Rules{})
	testkit.MustCreateUser(t, e.db, testkit.UserOpts{}) // not the instance's first user
	out, err := e.complete(t, identity("sub-1", "ada@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	u := out.User
	if !out.Created || u.Email != "ada@example.com" || u.Role != models.RoleAdmin || !u.FamilyCreator || u.PasswordHash != nil || u.FirstName != "Ada" {
		t.Fatalf("JIT user %+v created=%v", u, out.Created)
	}
	if e.events(t, auditlog.EventJITAccountCreated) != 1 || e.events(t, auditlog.EventLogin) != 1 {
		t.Fatal("JIT creation and login not audited")
	}
	// The second sign-in finds the identity, whatever the email says now.
	again, err := e.complete(t, identity("sub-1", "renamed@example.com"))
	if err != nil || again.Created || again.User.ID != u.ID {
		t.Fatalf("second sign-in: %+v %v", again, err)
	}
}

func TestTheInstancesFirstUserBySSOIsSuperAdmin(t *testing.T) {
	t.Parallel()
	e := newSigninEnv(t, sso.Rules{})
	out, err := e.complete(t, identity("sub-1", "first@example.com"))
	if err != nil || out.User.Role != models.RoleSuperAdmin {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestSignInRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		rules  sso.Rules
		id     *sso.Identity
		setup  func(t *testing.T, e *signinEnv)
		reason string
	}{
		{"link_only without a user", sso.Rules{JITMode: sso.JITLinkOnly}, identity("s", "new@example.com"), nil, sso.ReasonLinkOnly},
		{"domain not allowed", sso.Rules{AllowedDomains: []string{"corp.example"}}, identity("s", "ada@example.com"), nil, sso.ReasonDomainNotAllowed},
		{"subdomain is not the domain", sso.Rules{AllowedDomains: []string{"corp.example"}}, identity("s", "ada@eu.corp.example"), nil, sso.ReasonDomainNotAllowed},
		{"unverified email", sso.Rules{}, func() *sso.Identity { i := identity("s", "ada@example.com"); i.EmailVerified = false; return i }(), nil, sso.ReasonEmailUnverified},
		{"no email", sso.Rules{}, identity("s", ""), nil, sso.ReasonEmailMissing},
		{"unverified email of an existing user", sso.Rules{}, func() *sso.Identity { i := identity("s", "taken@example.com"); i.EmailVerified = false; return i }(),
			func(t *testing.T, e *signinEnv) {
				testkit.MustCreateUser(t, e.db, testkit.UserOpts{Email: "taken@example.com"})
			}, sso.ReasonEmailUnverified},
		{"suspended user", sso.Rules{}, identity("s-susp", "s@example.com"), func(t *testing.T, e *signinEnv) {
			out, err := e.complete(t, identity("s-susp", "s@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			testkit.MustSuspend(t, e.db, out.User.ID)
		}, sso.ReasonSuspended},
		{"issuer changed", sso.Rules{}, func() *sso.Identity {
			i := identity("s-iss", "i@example.com")
			i.Issuer = "https://evil.example"
			return i
		}(),
			func(t *testing.T, e *signinEnv) {
				if _, err := e.complete(t, identity("s-iss", "i@example.com")); err != nil {
					t.Fatal(err)
				}
			}, sso.ReasonIssuerMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newSigninEnv(t, c.rules)
			if c.setup != nil {
				c.setup(t, e)
			}
			users := countUsers(t, e)
			out, err := e.complete(t, c.id)
			f, ok := sso.AsFailure(err)
			if !ok || f.Reason != c.reason || out != nil {
				t.Fatalf("got %+v, %v; want a %s failure", out, err, c.reason)
			}
			if f.Message == "" {
				t.Fatal("a refusal without a message for the person")
			}
			if countUsers(t, e) != users {
				t.Fatal("a refused sign-in created a user")
			}
			if got := e.reason(t); got != c.reason {
				t.Fatalf("audited reason %q, want %q", got, c.reason)
			}
		})
	}
}

func countUsers(t *testing.T, e *signinEnv) int {
	n, err := models.CountUsers(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAnExistingUsersEmailNeedsTheirPassword(t *testing.T) {
	t.Parallel()
	e := newSigninEnv(t, sso.Rules{JITMode: sso.JITLinkOnly})
	u := testkit.MustCreateUser(t, e.db, testkit.UserOpts{Email: "bob@example.com"})
	id := identity("bob-sub", "bob@example.com")
	out, err := e.complete(t, id)
	if err != nil || out.User != nil || out.PendingEmail != "bob@example.com" {
		t.Fatalf("first SSO sign-in of an existing email: %+v %v", out, err)
	}
	ctx := context.Background()
	other := testkit.MustCreateUser(t, e.db, testkit.UserOpts{})
	if _, err := e.svc.ConfirmLink(ctx, e.p, id, other.ID, auditlog.Meta{}); err == nil {
		t.Fatal("the identity was linked to a user of another email")
	}
	linked, err := e.svc.ConfirmLink(ctx, e.p, id, u.ID, auditlog.Meta{})
	if err != nil || linked.ID != u.ID {
		t.Fatalf("link: %v", err)
	}
	if e.events(t, auditlog.EventLink) != 1 {
		t.Fatal("the link is not audited")
	}
	again, err := e.complete(t, id)
	if err != nil || again.User == nil || again.User.ID != u.ID {
		t.Fatalf("sign-in after linking: %+v %v", again, err)
	}
}

func TestLinkingWhileSignedIn(t *testing.T) {
	t.Parallel()
	e := newSigninEnv(t, sso.Rules{})
	u := testkit.MustCreateUser(t, e.db, testkit.UserOpts{Email: "carol@example.com"})
	// The provider's email need not be the user's: the session says who it is.
	out, err := e.svc.Complete(context.Background(), e.p, identity("carol-at-work", "c.smith@corp.example"), auditlog.Meta{}, sso.PurposeLink, u)
	if err != nil || out.User.ID != u.ID || e.events(t, auditlog.EventLink) != 1 {
		t.Fatalf("%+v %v", out, err)
	}
	other := testkit.MustCreateUser(t, e.db, testkit.UserOpts{})
	_, err = e.svc.Complete(context.Background(), e.p, identity("carol-at-work", "c.smith@corp.example"), auditlog.Meta{}, sso.PurposeLink, other)
	if f, ok := sso.AsFailure(err); !ok || f.Reason != sso.ReasonIdentityInUse {
		t.Fatalf("linking another user's identity: %v", err)
	}
}

func TestRoleMapping(t *testing.T) {
	t.Parallel()
	mappings := []sso.GroupMapping{{Group: "Finance-Admins", Role: models.RoleAdmin}, {Group: "it-root", Role: models.RoleSuperAdmin},
		{Group: "staff", Role: models.RoleMember}}
	cases := []struct {
		name    string
		groups  []string
		creator bool
		start   models.Role
		source  string
		want    models.Role
	}{
		{"highest of several groups", []string{"staff", "Finance-Admins"}, false, models.RoleMember, "local", models.RoleAdmin},
		{"super admin group", []string{"staff", "it-root"}, false, models.RoleMember, "local", models.RoleSuperAdmin},
		{"case-sensitive", []string{"finance-admins"}, false, models.RoleAdmin, "sso", models.RoleMember},
		{"no group: the default role, demoting", nil, false, models.RoleAdmin, "sso", models.RoleMember},
		{"family creator stays admin", []string{"staff"}, true, models.RoleAdmin, "sso", models.RoleAdmin},
		{"super admin made outside SSO stays", []string{"staff"}, false, models.RoleSuperAdmin, "local", models.RoleSuperAdmin},
		{"super admin made by SSO is demoted", []string{"staff"}, false, models.RoleSuperAdmin, "sso", models.RoleMember},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newSigninEnv(t, sso.Rules{})
			e.p.GroupMappings = mappings
			owner := testkit.MustCreateUser(t, e.db, testkit.UserOpts{})
			u := testkit.MustCreateUser(t, e.db, testkit.UserOpts{Role: c.start, FamilyID: owner.FamilyID})
			ctx := context.Background()
			if _, err := e.db.NewRaw("UPDATE users SET family_creator = ?, role_source = ? WHERE id = ?", c.creator, c.source, u.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			id := identity("sub-"+uuid.NewString(), u.Email, c.groups...)
			if _, err := e.svc.Complete(ctx, e.p, id, auditlog.Meta{}, sso.PurposeLink, mustUser(t, e, u.ID)); err != nil {
				t.Fatal(err)
			}
			got := mustUser(t, e, u.ID)
			if got.Role != c.want {
				t.Fatalf("role %s, want %s", got.Role, c.want)
			}
			changed := e.events(t, auditlog.EventRoleChanged)
			if (c.start != c.want) != (changed == 1) {
				t.Fatalf("%d role_changed events for %s → %s", changed, c.start, c.want)
			}
		})
	}
}

func mustUser(t *testing.T, e *signinEnv, id uuid.UUID) *models.User {
	t.Helper()
	u, err := models.UserByID(context.Background(), e.db, id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
