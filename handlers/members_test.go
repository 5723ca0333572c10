package handlers_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/banksync"
	"tally/handlers"
	"tally/models"
	"tally/sso/ssotest"
	"tally/testkit"
	"tally/webhooks"
)

// membersEnv is a family with an admin signed in on the Members page.
type membersEnv struct {
	t     *testing.T
	srv   *apptest.Server
	admin *models.User
	c     *testkit.Client
}

func newMembersEnv(t *testing.T, opts apptest.ServerOptions) *membersEnv {
	t.Helper()
	srv := apptest.StartServer(t, opts)
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(admin.Email, testkit.Password)
	wantPage(t, c.Get("/settings/family/members"), http.StatusOK)
	return &membersEnv{t: t, srv: srv, admin: admin, c: c}
}

// invite invites email as role from the Members page and returns the link it shows.
func (e *membersEnv) invite(email, role string) string {
	e.t.Helper()
	r := e.c.PostForm("/settings/family/invitations", url.Values{"email": {email}, "role": {role}})
	wantPage(e.t, r, http.StatusCreated)
	link, _ := r.Doc(e.t).Find(`[data-testid="invitation-link"]`).Attr("value")
	if !strings.HasPrefix(link, e.srv.URL+"/invitations/accept?token=") {
		e.t.Fatalf("the page shows no invitation link: %s", r.Body)
	}
	return link
}

// path is link without the server's address.
func (e *membersEnv) path(link string) string { return strings.TrimPrefix(link, e.srv.URL) }

// accept opens link in a fresh browser and sets a password there; it returns that browser's
// answer to the form.
func (e *membersEnv) accept(link, first string) *testkit.Response {
	e.t.Helper()
	c := apptest.NewClient(e.t, e.srv)
	page := c.Get(e.path(link))
	if page.Status != http.StatusOK {
		return page
	}
	token, _ := url.Parse(link)
	return c.PostForm("/invitations/accept", url.Values{"token": {token.Query().Get("token")}, "first_name": {first},
		"last_name": {"Okafor"}, "password": {"a brand new passphrase"}})
}

func (e *membersEnv) events(kind string) int {
	return len(testkitStrings(e.t, e.srv, "SELECT id::text FROM sso_audit_logs WHERE event_type = ?", kind))
}

// Without mail set up, the admin is shown the link; whoever opens it sets a password, signs in
// and is in the inviting family with the invitation's role. The link works once, and only its
// hash is stored.
func TestInvitationLinkIsShownAndJoinsTheFamily(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	link := e.invite("Jana@Example.com", "viewer")
	if n := e.srv.Outbox.Count(); n != 0 {
		t.Fatalf("%d mails sent without mail set up", n)
	}
	token, _ := url.Parse(link)
	raw := token.Query().Get("token")
	stored := testkitStrings(t, e.srv, "SELECT token_hash FROM invitations WHERE email = 'jana@example.com'")
	if len(stored) != 1 || stored[0] != models.HashSecret(raw) {
		t.Fatalf("stored %v, want only the token's hash", stored)
	}
	if r := e.c.Get("/settings/family/members"); r.Doc(t).Find(`[data-testid="invitation-row"][data-email="jana@example.com"]`).Length() != 1 {
		t.Fatalf("the pending invitation is not listed: %s", r.Body)
	}

	fresh := apptest.NewClient(t, e.srv)
	page := fresh.Get(e.path(link))
	wantPage(t, page, http.StatusOK)
	if !strings.Contains(page.TestID(t, "invitation-summary"), "Viewer") {
		t.Fatalf("the page does not say the role: %s", page.TestID(t, "invitation-summary"))
	}
	r := fresh.PostForm("/invitations/accept", url.Values{"token": {raw}, "first_name": {"Jana"}, "password": {"short"}})
	if r.Status != http.StatusUnprocessableEntity || !r.Has(t, "error-password") {
		t.Fatalf("a short password: %d", r.Status)
	}
	r = fresh.PostForm("/invitations/accept", url.Values{"token": {raw}, "first_name": {"Jana"}, "password": {"a brand new passphrase"}})
	wantRedirect(t, r, "/sessions/new")
	fresh.SignIn("jana@example.com", "a brand new passphrase")
	jana, err := models.UserByEmail(context.Background(), e.srv.DB, "jana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if jana.FamilyID != e.admin.FamilyID || jana.Role != models.RoleViewer || jana.FirstName != "Jana" {
		t.Fatalf("jana is in family %s as %s, want %s as viewer", jana.FamilyID, jana.Role, e.admin.FamilyID)
	}
	if row := e.c.Get("/settings/family/members").Doc(t).Find(`[data-testid="member-row"][data-email="jana@example.com"] [data-testid="member-role"]`); row.Text() != "Viewer" {
		t.Fatalf("the Members page shows jana as %q", row.Text())
	}

	// Single use.
	again := apptest.NewClient(t, e.srv)
	wantRedirect(t, again.Get(e.path(link)), "/sessions/new")
	if msg := again.Get("/sessions/new").TestID(t, "flash-error"); !strings.Contains(msg, "already used, revoked or has expired") {
		t.Fatalf("a used link says %q", msg)
	}
	if e.events("invitation_created") != 1 || e.events("invitation_accepted") != 1 {
		t.Fatalf("audit: %d created, %d accepted", e.events("invitation_created"), e.events("invitation_accepted"))
	}
	// A super admin finds them in the audit log by its filter.
	root := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	rc := apptest.NewClient(t, e.srv)
	rc.SignIn(root.Email, testkit.Password)
	log := rc.Get("/admin/sso_audit_logs?event_type=invitation_accepted")
	wantPage(t, log, http.StatusOK)
	if got := log.Doc(t).Find(`option[value="invitation_accepted"]`).Text(); got != "Invitation accepted" {
		t.Fatalf("the audit filter offers %q", got)
	}
	if !strings.Contains(log.Body, "jana@example.com") {
		t.Fatal("the audit log does not list the acceptance")
	}
}

// With mail set up, the invitation is mailed and the page shows no link.
func TestInvitationIsMailedWhenMailIsSetUp(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"SMTP_URL": "smtp://mail.invalid:25"}})
	r := e.c.PostForm("/settings/family/invitations", url.Values{"email": {"jana@example.com"}, "role": {"member"}})
	wantPage(t, r, http.StatusCreated)
	if r.Has(t, "invitation-link") || !strings.Contains(r.TestID(t, "invitation-mailed"), "jana@example.com") {
		t.Fatalf("the page after a mailed invitation: %s", r.Body)
	}
	m, ok := e.srv.Outbox.Last()
	if !ok || m.To != "jana@example.com" || !strings.Contains(m.Body, m.Link) || !strings.HasPrefix(m.Link, e.srv.URL+"/invitations/accept?token=") {
		t.Fatalf("mail %+v", m)
	}
	wantRedirect(t, e.accept(m.Link, "Jana"), "/sessions/new")
}

// A mail that cannot be sent leaves the invitation standing: the page and the API show its
// link and that the mail failed, not the mail server's words (the operator's log has them),
// and the link works.
func TestInvitationWhoseMailFailsShowsItsLink(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"SMTP_URL": "smtp://mail.invalid:25"}})
	e.srv.Outbox.Refuse(errors.New("550 mailbox unavailable"))
	r := e.c.PostForm("/settings/family/invitations", url.Values{"email": {"jana@example.com"}, "role": {"member"}})
	wantPage(t, r, http.StatusCreated)
	if !r.Has(t, "invitation-mail-failed") || strings.Contains(r.Body, "550") || r.Has(t, "invitation-mailed") {
		t.Fatalf("the page after a failed mail: %s", r.Body)
	}
	link := r.Doc(t).Find(`[data-testid="invitation-link"]`).AttrOr("value", "")
	if !strings.HasPrefix(link, e.srv.URL+"/invitations/accept?token=") {
		t.Fatalf("the page shows no link: %q", link)
	}

	key := testkit.MustCreateAPIKey(t, e.srv.DB, e.admin.ID, models.ScopeReadWrite)
	api := e.c.API(http.MethodPost, "/api/v1/invitations", key, map[string]any{"email": "ole@example.com", "role": "viewer"})
	var b struct {
		Data struct {
			Mailed     bool   `json:"mailed"`
			AcceptURL  string `json:"accept_url"`
			MailFailed bool   `json:"mail_failed"`
		} `json:"data"`
	}
	api.JSON(t, &b)
	if api.Status != http.StatusCreated || b.Data.Mailed || b.Data.AcceptURL == "" || !b.Data.MailFailed || strings.Contains(api.Body, "550") {
		t.Fatalf("the API after a failed mail: %d %s", api.Status, api.Body)
	}
	wantRedirect(t, e.accept(link, "Jana"), "/sessions/new")
}

// Resending kills the old link; revoking kills the link; a link older than a week is refused
// and its expiry audited.
func TestInvitationResendRevokeAndExpiry(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true, Now: clock})
	first := e.invite("a@example.com", "member")
	id := testkitStrings(t, e.srv, "SELECT id::text FROM invitations WHERE email = 'a@example.com'")[0]
	r := e.c.PostForm("/settings/family/invitations/"+id+"/resend", nil)
	wantPage(t, r, http.StatusOK)
	second, _ := r.Doc(t).Find(`[data-testid="invitation-link"]`).Attr("value")
	if second == "" || second == first {
		t.Fatalf("resent link %q", second)
	}
	wantRedirect(t, e.accept(first, "A"), "/sessions/new")
	if _, err := models.UserByEmail(context.Background(), e.srv.DB, "a@example.com"); err == nil {
		t.Fatal("the old link still worked after a resend")
	}

	revoked := e.invite("b@example.com", "member")
	id = testkitStrings(t, e.srv, "SELECT id::text FROM invitations WHERE email = 'b@example.com'")[0]
	wantRedirect(t, e.c.PostForm("/settings/family/invitations/"+id+"/revoke", nil), "/settings/family/members")
	wantRedirect(t, apptest.NewClient(t, e.srv).Get(e.path(revoked)), "/sessions/new")

	old := e.invite("c@example.com", "member")
	mu.Lock()
	now = now.Add(models.InvitationLifetime + time.Minute)
	mu.Unlock()
	wantRedirect(t, apptest.NewClient(t, e.srv).Get(e.path(old)), "/sessions/new")
	if got := testkitStrings(t, e.srv, "SELECT status FROM invitations WHERE email = 'c@example.com'"); got[0] != "expired" {
		t.Fatalf("an old invitation is %s", got[0])
	}
	if e.events("invitation_revoked") != 1 || e.events("invitation_expired") < 1 {
		t.Fatalf("audit: %d revoked, %d expired", e.events("invitation_revoked"), e.events("invitation_expired"))
	}
	// The resent one expired too, seen by the Members page.
	if e.c.Get("/settings/family/members").Doc(t).Find(`[data-testid="invitation-row"]`).Length() != 0 || e.events("invitation_expired") != 2 {
		t.Fatalf("expired invitations still listed, or unaudited (%d)", e.events("invitation_expired"))
	}
}

// A bad email or role names its field; a family holds a bounded number of open invitations,
// and sends a bounded number an hour.
func TestInvitationLimits(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	r := e.c.PostForm("/settings/family/invitations", url.Values{"email": {"not an address"}, "role": {"owner"}})
	if r.Status != http.StatusUnprocessableEntity || !r.Has(t, "error-email") || !r.Has(t, "error-role") {
		t.Fatalf("bad email and role: %d %s", r.Status, r.Body)
	}
	r = e.c.PostForm("/settings/family/invitations", url.Values{"email": {strings.ToUpper(e.admin.Email)}, "role": {"member"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-email"), "already a member") {
		t.Fatalf("inviting a member of the family: %d", r.Status)
	}
	for i := range models.MaxPendingInvitations {
		e.invite("p"+string(rune('a'+i))+"@example.com", "member")
	}
	r = e.c.PostForm("/settings/family/invitations", url.Values{"email": {"one-more@example.com"}, "role": {"member"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-email"), "most open invitations") {
		t.Fatalf("an invitation over the cap: %d", r.Status)
	}
	// Every request counts against the family's 30 an hour, refused ones too.
	for range 7 {
		e.c.PostForm("/settings/family/invitations", url.Values{"email": {"one-more@example.com"}, "role": {"member"}})
	}
	r = e.c.PostForm("/settings/family/invitations", url.Values{"email": {"later@example.com"}, "role": {"member"}})
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("over the family's hourly limit: %d", r.Status)
	}
}

// Only a family's admins see the Members page and the invitations API; a viewer's key reads.
func TestMembersAreAdminsOnly(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.admin.FamilyID, Role: models.RoleMember})
	c := apptest.NewClient(t, e.srv)
	c.SignIn(member.Email, testkit.Password)
	wantPage(t, c.Get("/settings/family/members"), http.StatusNotFound)
	if r := c.PostForm("/settings/family/invitations", url.Values{"email": {"x@example.com"}, "role": {"admin"}}); r.Status != http.StatusNotFound {
		t.Fatalf("a member invites: %d", r.Status)
	}
	memberKey := testkit.MustCreateAPIKey(t, e.srv.DB, member.ID, models.ScopeReadWrite)
	if r := c.API(http.MethodPost, "/api/v1/invitations", memberKey, map[string]string{"email": "x@example.com", "role": "admin"}); r.Status != http.StatusForbidden {
		t.Fatalf("a member's key invites: %d %s", r.Status, r.Body)
	}
	if r := c.API(http.MethodGet, "/api/v1/invitations", memberKey, nil); r.Status != http.StatusForbidden {
		t.Fatalf("a member's key lists invitations: %d", r.Status)
	}
}

func TestInvitationsAPI(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	key := testkit.MustCreateAPIKey(t, e.srv.DB, e.admin.ID, models.ScopeReadWrite)
	for _, tc := range []struct{ name, email, role, field string }{
		{"bad email", "nope", "member", "email"},
		{"bad role", "x@example.com", "super_admin", "role"},
	} {
		r := e.c.API(http.MethodPost, "/api/v1/invitations", key, map[string]string{"email": tc.email, "role": tc.role})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"`+tc.field+`"`) {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
	r := e.c.API(http.MethodPost, "/api/v1/invitations", key, map[string]string{"email": "Jana@example.com", "role": "member"})
	var sent struct {
		Data struct {
			ID        string `json:"id"`
			Email     string `json:"email"`
			AcceptURL string `json:"accept_url"`
		} `json:"data"`
	}
	r.JSON(t, &sent)
	if r.Status != http.StatusCreated || sent.Data.Email != "jana@example.com" || !strings.HasPrefix(sent.Data.AcceptURL, e.srv.URL+"/invitations/accept?token=") {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if r := e.c.API(http.MethodGet, "/api/v1/invitations", key, nil); r.Status != http.StatusOK || !strings.Contains(r.Body, sent.Data.ID) {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	r = e.c.API(http.MethodPost, "/api/v1/invitations/"+sent.Data.ID+"/resend", key, nil)
	first := sent.Data.AcceptURL
	r.JSON(t, &sent)
	if r.Status != http.StatusOK || sent.Data.AcceptURL == first {
		t.Fatalf("resend: %d %s", r.Status, r.Body)
	}
	if r := e.c.API(http.MethodDelete, "/api/v1/invitations/"+sent.Data.ID, key, nil); r.Status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	wantRedirect(t, apptest.NewClient(t, e.srv).Get(e.path(sent.Data.AcceptURL)), "/sessions/new")
	// Another family's invitation is not found.
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, models.ScopeReadWrite)
	mine := e.c.API(http.MethodPost, "/api/v1/invitations", key, map[string]string{"email": "k@example.com", "role": "member"})
	mine.JSON(t, &sent)
	if r := e.c.API(http.MethodDelete, "/api/v1/invitations/"+sent.Data.ID, otherKey, nil); r.Status != http.StatusNotFound {
		t.Fatalf("another family revokes: %d", r.Status)
	}
}

// An address that has a user already: the link asks them to sign in, then to confirm, and
// says that only the membership moves. Bob's family has another member, who keeps it.
func TestInvitationOfAnExistingUserMovesOnlyTheMembership(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	bob := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "bob@example.com"})
	testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: bob.FamilyID, Role: models.RoleAdmin})
	acct := testkit.MustCreateAccount(t, e.srv.DB, bob.FamilyID, "Bob's savings", "Depository", "100")
	link := e.invite("bob@example.com", "admin")

	c := apptest.NewClient(t, e.srv)
	page := c.Get(e.path(link))
	wantPage(t, page, http.StatusOK)
	if !page.Has(t, "invitation-sign-in") || page.Has(t, "invitation-accept-form") {
		t.Fatalf("an existing user's link offers a password form: %s", page.Body)
	}
	r := c.PostForm("/sessions", url.Values{"email": {"bob@example.com"}, "password": {testkit.Password}})
	wantRedirect(t, r, e.path(link))
	page = c.Get(e.path(link))
	if note := page.TestID(t, "invitation-move-note"); !strings.Contains(note, "moves only your membership") {
		t.Fatalf("the confirm page says %q", note)
	}
	token, _ := url.Parse(link)
	wantRedirect(t, c.PostForm("/invitations/join", url.Values{"token": {token.Query().Get("token")}}), "/")
	moved, _ := models.UserByID(context.Background(), e.srv.DB, bob.ID)
	if moved.FamilyID != e.admin.FamilyID || moved.Role != models.RoleAdmin {
		t.Fatalf("bob is in %s as %s", moved.FamilyID, moved.Role)
	}
	if got := testkitStrings(t, e.srv, "SELECT family_id::text FROM accounts WHERE id = ?", acct.ID); got[0] != bob.FamilyID.String() {
		t.Fatalf("bob's account moved to %s", got[0])
	}
	if page.Has(t, "invitation-delete-note") {
		t.Errorf("a family with another member is said to be deleted: %s", page.TestID(t, "invitation-delete-note"))
	}
}

// The only member of a family who joins another leaves it to no one: it is deleted, and when
// it holds accounts only once they tick that they want it deleted. Nothing is deleted before.
func TestJoiningFromAFamilyOfOneDeletesItWhenConfirmed(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	familyOf := func(email string) string {
		return testkitStrings(t, e.srv, "SELECT coalesce((SELECT family_id::text FROM users WHERE email = ?), '')", email)[0]
	}
	familyExists := func(id string) bool {
		return testkitStrings(t, e.srv, "SELECT EXISTS (SELECT 1 FROM families WHERE id = ?)::text", id)[0] == "true"
	}
	join := func(link, email string, confirm bool) (*testkit.Response, *testkit.Response) {
		c := apptest.NewClient(t, e.srv)
		c.PostForm("/sessions", url.Values{"email": {email}, "password": {testkit.Password}})
		page := c.Get(e.path(link))
		wantPage(t, page, http.StatusOK)
		token, _ := url.Parse(link)
		form := url.Values{"token": {token.Query().Get("token")}}
		if confirm {
			form.Set("delete_family", "1")
		}
		return page, c.PostForm("/invitations/join", form)
	}

	// An empty family of one goes without asking.
	empty := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "empty@example.com"})
	page, r := join(e.invite("empty@example.com", "member"), "empty@example.com", false)
	if note := page.TestID(t, "invitation-delete-note"); !strings.Contains(note, "holds no accounts: joining deletes it") || page.Has(t, "field-delete_family") {
		t.Errorf("an empty family's note %q, or it asks to confirm", note)
	}
	wantRedirect(t, r, "/")
	if familyOf("empty@example.com") != e.admin.FamilyID.String() || familyExists(empty.FamilyID.String()) {
		t.Errorf("after joining from an empty family: in %s, old family kept %v", familyOf("empty@example.com"), familyExists(empty.FamilyID.String()))
	}

	// A family with an account is deleted only when the person ticks it.
	cara := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{Email: "cara@example.com"})
	testkit.MustCreateAccount(t, e.srv.DB, cara.FamilyID, "Cara's savings", "Depository", "100")
	link := e.invite("cara@example.com", "member")
	page, r = join(link, "cara@example.com", false)
	if note := page.TestID(t, "invitation-delete-note"); !strings.Contains(note, "joining deletes it with its accounts and transactions") || !page.Has(t, "field-delete_family") {
		t.Errorf("a family with data: note %q, and a box to tick: %v", note, page.Has(t, "field-delete_family"))
	}
	wantPage(t, r, http.StatusUnprocessableEntity)
	if msg := r.Doc(t).Find("[role=alert]#error-delete_family").Text(); !strings.Contains(msg, "Confirm that") {
		t.Errorf("refused without the tick, the page says %q", msg)
	}
	if familyOf("cara@example.com") != cara.FamilyID.String() || !familyExists(cara.FamilyID.String()) {
		t.Fatal("refused, yet cara moved or her family went")
	}
	_, r = join(link, "cara@example.com", true)
	wantRedirect(t, r, "/")
	if familyOf("cara@example.com") != e.admin.FamilyID.String() || familyExists(cara.FamilyID.String()) {
		t.Errorf("after confirming: cara in %s, old family kept %v", familyOf("cara@example.com"), familyExists(cara.FamilyID.String()))
	}
	if n := testkitStrings(t, e.srv, "SELECT count(*)::text FROM accounts WHERE name = 'Cara''s savings'")[0]; n != "0" {
		t.Errorf("%s of cara's accounts remain", n)
	}
}

// A provider's first sign-in of an invited address joins the inviting family with the
// invitation's role, and makes no family of its own.
func TestSSOFirstSignInOfAnInvitedAddressJoinsTheFamily(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op))}})
	families := len(testkitStrings(t, e.srv, "SELECT id::text FROM families"))
	e.invite("jana@example.com", "member")
	op.SetUser(map[string]any{"sub": "jana-at-corp", "email": "jana@example.com", "email_verified": true, "name": "Jana Novak"})
	c := apptest.NewClient(t, e.srv)
	if r := opLogin(t, c, op); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("SSO sign-in: %d %s %s", r.Status, r.Location(), r.Body)
	}
	jana, err := models.UserByEmail(context.Background(), e.srv.DB, "jana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if jana.FamilyID != e.admin.FamilyID || jana.Role != models.RoleMember {
		t.Fatalf("jana is in %s as %s", jana.FamilyID, jana.Role)
	}
	if n := len(testkitStrings(t, e.srv, "SELECT id::text FROM families")); n != families {
		t.Fatalf("%d families, want %d: a family was made for an invited address", n, families)
	}
	if got := testkitStrings(t, e.srv, "SELECT status FROM invitations WHERE email = 'jana@example.com'"); got[0] != "accepted" {
		t.Fatalf("the invitation is %s", got[0])
	}
}

// Changing a role and removing a member take the admin's second factor again; the family's
// last admin can be neither demoted nor removed.
func TestMemberRoleAndRemovalTakeTheSecondFactor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Now: clock})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	secret := apptest.MustEnrolTOTP(t, srv, admin)
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})
	c := apptest.NewClient(t, srv)
	c.PostForm("/sessions", url.Values{"email": {admin.Email}, "password": {testkit.Password}})
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm("/sessions/mfa", url.Values{"code": {code}}); r.Status != http.StatusSeeOther {
		t.Fatalf("second factor: %d", r.Status)
	}
	wantPage(t, c.Get("/settings/family/members"), http.StatusOK)
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	role := func(id any) string { return testkitStrings(t, srv, "SELECT role FROM users WHERE id = ?", id)[0] }

	r := c.PostForm("/settings/family/members/"+member.ID.String()+"/role", url.Values{"role": {"admin"}})
	if r.Status != http.StatusOK || !r.Has(t, "step-up-form") || role(member.ID) != "member" {
		t.Fatalf("a role change without the second factor: %d, role %s", r.Status, role(member.ID))
	}
	code, _ = totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	r = c.PostForm("/settings/family/members/"+member.ID.String()+"/role", url.Values{"role": {"viewer"}, "step_up_code": {code}})
	wantRedirect(t, r, "/settings/family/members")
	if role(member.ID) != "viewer" {
		t.Fatalf("role %s after the step-up", role(member.ID))
	}

	// The only admin can't demote or remove themselves.
	wantRedirect(t, c.PostForm("/settings/family/members/"+admin.ID.String()+"/role", url.Values{"role": {"member"}}), "/settings/family/members")
	if msg := c.Get("/settings/family/members").TestID(t, "flash-error"); !strings.Contains(msg, "only admin") || role(admin.ID) != "admin" {
		t.Fatalf("the last admin demoted: %q, role %s", msg, role(admin.ID))
	}
	wantRedirect(t, c.PostForm("/settings/family/members/"+admin.ID.String()+"/remove", nil), "/settings/family/members")
	if n := testkitStrings(t, srv, "SELECT count(*)::text FROM users WHERE id = ?", admin.ID); n[0] != "1" {
		t.Fatal("the last admin was removed")
	}
	// Another family's member is not found.
	stranger := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})
	wantPage(t, c.PostForm("/settings/family/members/"+stranger.ID.String()+"/remove", nil), http.StatusNotFound)
}

// Inviting an admin hands the family over as a role change does: it takes the second factor
// again, while inviting a member does not. Another family's admin finds none of the family's
// invitations to resend or revoke.
func TestAdminInvitationTakesTheSecondFactor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Now: clock})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	secret := apptest.MustEnrolTOTP(t, srv, admin)
	c := apptest.NewClient(t, srv)
	c.PostForm("/sessions", url.Values{"email": {admin.Email}, "password": {testkit.Password}})
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm("/sessions/mfa", url.Values{"code": {code}}); r.Status != http.StatusSeeOther {
		t.Fatalf("second factor: %d", r.Status)
	}
	wantPage(t, c.Get("/settings/family/members"), http.StatusOK)
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	invited := func(email string) int {
		return len(testkitStrings(t, srv, "SELECT id::text FROM invitations WHERE email = ?", email))
	}

	wantPage(t, c.PostForm("/settings/family/invitations", url.Values{"email": {"m@example.com"}, "role": {"member"}}), http.StatusCreated)
	r := c.PostForm("/settings/family/invitations", url.Values{"email": {"boss@example.com"}, "role": {"admin"}})
	if r.Status != http.StatusOK || !r.Has(t, "step-up-form") || invited("boss@example.com") != 0 {
		t.Fatalf("an admin invited without the second factor: %d, %d invitations", r.Status, invited("boss@example.com"))
	}
	code, _ = totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	r = c.PostForm("/settings/family/invitations", url.Values{"email": {"boss@example.com"}, "role": {"admin"}, "step_up_code": {code}})
	wantPage(t, r, http.StatusCreated)
	if invited("boss@example.com") != 1 {
		t.Fatal("no invitation after the step-up")
	}

	id := testkitStrings(t, srv, "SELECT id::text FROM invitations WHERE email = 'm@example.com'")[0]
	other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	oc := apptest.NewClient(t, srv)
	oc.SignIn(other.Email, testkit.Password)
	wantPage(t, oc.Get("/settings/family/members"), http.StatusOK)
	wantPage(t, oc.PostForm("/settings/family/invitations/"+id+"/resend", nil), http.StatusNotFound)
	wantPage(t, oc.PostForm("/settings/family/invitations/"+id+"/revoke", nil), http.StatusNotFound)
	if got := testkitStrings(t, srv, "SELECT status FROM invitations WHERE id = ?", id); got[0] != "pending" {
		t.Fatalf("another family's admin left the invitation %s", got[0])
	}
}

// Two admins demoting each other at once: the family's lock lets one through, and the family
// keeps an admin.
func TestConcurrentDemotionsKeepAnAdmin(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	a := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	b := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: a.FamilyID, Role: models.RoleAdmin})
	ca, cb := apptest.NewClient(t, srv), apptest.NewClient(t, srv)
	ca.SignIn(a.Email, testkit.Password)
	cb.SignIn(b.Email, testkit.Password)
	ca.Get("/settings/family/members")
	cb.Get("/settings/family/members")
	for range 5 {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			ca.PostForm("/settings/family/members/"+b.ID.String()+"/role", url.Values{"role": {"member"}})
		}()
		go func() {
			defer wg.Done()
			cb.PostForm("/settings/family/members/"+a.ID.String()+"/role", url.Values{"role": {"member"}})
		}()
		wg.Wait()
		admins := testkitStrings(t, srv, "SELECT id::text FROM users WHERE family_id = ? AND role = 'admin'", a.FamilyID)
		if len(admins) != 1 {
			t.Fatalf("%d admins after two concurrent demotions", len(admins))
		}
		if _, err := srv.DB.NewRaw("UPDATE users SET role = 'admin' WHERE family_id = ?", a.FamilyID).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// A removed member's session, API key and OAuth token stop working at their next request.
func TestRemovedMemberCredentialsDieAtOnce(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t) // e.user: signed in, with an OAuth token
	tok := e.token(e.conf)
	key := testkit.MustCreateAPIKey(t, e.srv.DB, e.user.ID, models.ScopeRead)
	if r := e.c.API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusOK {
		t.Fatalf("key before: %d", r.Status)
	}
	admin := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID})
	ac := apptest.NewClient(t, e.srv)
	ac.SignIn(admin.Email, testkit.Password)
	ac.Get("/settings/family/members")
	wantRedirect(t, ac.PostForm("/settings/family/members/"+e.user.ID.String()+"/remove", nil), "/settings/family/members")

	if r := e.c.Get("/"); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("the removed member's session: %d %s", r.Status, r.Location())
	}
	if r := e.c.API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("the removed member's API key: %d", r.Status)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", tok.AccessToken, ""); r.Status != http.StatusUnauthorized {
		t.Fatalf("the removed member's OAuth token: %d", r.Status)
	}
	if n := testkitStrings(t, e.srv, "SELECT id::text FROM sso_audit_logs WHERE event_type = 'member_removed'"); len(n) != 1 {
		t.Fatalf("%d removals audited", len(n))
	}
}

// allRoutes are every route of Tally's router with every optional part on, as "METHOD /path".
func allRoutes(t *testing.T) []string {
	t.Helper()
	e := handlers.New(handlers.Deps{SSO: &handlers.SSO{}, Bank: &banksync.Service{}, Webhooks: &webhooks.Service{}})
	var out []string
	for _, rt := range e.Routes() {
		if strings.HasPrefix(rt.Method, "echo_") { // Echo's not-found routes of each group
			continue
		}
		out = append(out, rt.Method+" "+rt.Path)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Every route declares what a viewer may do there: a new route without a rule fails here.
func TestEveryRouteHasAViewerRule(t *testing.T) {
	t.Parallel()
	routes := allRoutes(t)
	for _, known := range []string{"POST /accounts", "GET /settings/family/members", "DELETE /api/v1/transactions/:id", "POST /sign_out"} {
		if !slices.Contains(routes, known) {
			t.Errorf("the router has no %s: reading its routes went wrong", known)
		}
	}
	for _, route := range routes {
		if _, ok := handlers.ViewerRule(route); !ok {
			t.Errorf("%s declares no rule for viewers in handlers/viewer_rules.go", route)
		}
	}
}

// A viewer reads and changes nothing: every route declared a change answers their session and
// their key (made read_write) with 403, and no read refuses them for being a viewer (reads for
// admins only still refuse them as they refuse members).
func TestViewerChangesNothing(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	viewer := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleViewer})
	acct := testkit.MustCreateAccount(t, srv.DB, admin.FamilyID, "Joint", "Depository", "100")
	key := testkit.MustCreateAPIKey(t, srv.DB, viewer.ID, models.ScopeReadWrite)
	c := apptest.NewClient(t, srv)
	c.SignIn(viewer.Email, testkit.Password)
	wantPage(t, c.Get("/accounts/"+acct.ID.String()), http.StatusOK)
	// The pages offer a viewer none of their actions.
	for _, page := range []struct{ path, action string }{{"/", "new-account"}, {"/accounts", "new-account"}, {"/imports", "new-import"}, {"/settings/rules", "rule-new"}} {
		r := c.Get(page.path)
		wantPage(t, r, http.StatusOK)
		if r.Has(t, page.action) {
			t.Errorf("%s offers a viewer %s", page.path, page.action)
		}
	}
	param := regexp.MustCompile(`:[a-z_]+`)
	denied := 0
	for _, route := range allRoutes(t) {
		rule, _ := handlers.ViewerRule(route)
		method, path, _ := strings.Cut(route, " ")
		if strings.Contains(path, "*") || rule == "before_sign_in" || rule == "own_account" {
			continue
		}
		path = param.ReplaceAllStringFunc(path, func(p string) string {
			if p == ":month" {
				return "2026-01"
			}
			return acct.ID.String()
		})
		var r *testkit.Response
		if strings.HasPrefix(path, "/api/") {
			r = c.API(method, path, key, map[string]string{})
		} else if method == http.MethodPost {
			c.Get("/accounts")
			r = c.PostForm(path, url.Values{})
		} else {
			r = c.Get(path)
		}
		switch {
		case rule == "denied" && (r.Status != http.StatusForbidden || !strings.Contains(r.Body, "change nothing")):
			// The viewer's own refusal: a key's scope, capped at read, or a CSRF failure would
			// answer 403 as well, without the viewer guard.
			t.Errorf("%s answered a viewer %d, want 403 for a viewer: %s", route, r.Status, r.Body)
		case rule == "reads" && r.Status == http.StatusForbidden && strings.Contains(r.Body, "change nothing"):
			t.Errorf("%s, a read, refused a viewer: %s", route, r.Body)
		}
		if rule == "denied" {
			denied++
		}
	}
	if denied < 100 {
		t.Fatalf("only %d changes walked", denied)
	}
	if n := testkitStrings(t, srv, "SELECT count(*)::text FROM accounts WHERE family_id = ?", admin.FamilyID); n[0] != "1" {
		t.Fatalf("a viewer changed the accounts: %s", n[0])
	}
	// Their own account stays theirs to manage; their keys read, whatever they asked for.
	r := c.PostForm("/settings/api_keys", url.Values{"name": {"phone"}, "scope": {models.ScopeReadWrite}})
	if r.Status != http.StatusUnprocessableEntity || !r.Has(t, "error-scope") {
		t.Fatalf("a viewer's read_write key: %d", r.Status)
	}
	if r := c.PostForm("/settings/api_keys", url.Values{"name": {"phone"}, "scope": {models.ScopeRead}}); r.Status != http.StatusCreated {
		t.Fatalf("a viewer's read key: %d", r.Status)
	}
}

// A German family's invitation is mailed in German, the family's language, which the invitee
// joins, and its page says so in German.
func TestAGermanFamilysInvitationIsMailedInGerman(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"SMTP_URL": "smtp://mail.invalid:25"}})
	if _, err := e.srv.DB.ExecContext(t.Context(), `UPDATE families SET language = 'de' WHERE id = ?`, e.admin.FamilyID); err != nil {
		t.Fatal(err)
	}
	r := e.c.PostForm("/settings/family/invitations", url.Values{"email": {"jana@example.com"}, "role": {"member"}})
	wantPage(t, r, http.StatusCreated)
	if got := r.TestID(t, "invitation-mailed"); got != "Die Einladung wurde an jana@example.com gesendet. Der Link darin funktioniert einmal, 7 Tage lang." {
		t.Errorf("the page says %q", got)
	}
	m, ok := e.srv.Outbox.Last()
	if !ok {
		t.Fatal("no mail")
	}
	if want := e.admin.DisplayName() + " lädt dich zu " + e.admin.Family.Name + " bei Tally ein"; m.Subject != want {
		t.Errorf("subject %q, want %q", m.Subject, want)
	}
	if !strings.Contains(m.Body, "mit der Rolle Mitglied.") || !strings.Contains(m.Body, "innerhalb von 7 Tagen diesen Link:\n\n"+m.Link+"\n\n") {
		t.Errorf("body:\n%s", m.Body)
	}
}
