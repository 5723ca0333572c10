package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/imports"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/secrets"
	"tally/jobs"
	"tally/models"
	"tally/testkit"
	"tally/webhooks"
	"tally/webhooks/webhookstest"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestSignatureIsAnHMACOfTheTimestampAndBody(t *testing.T) {
	t.Parallel()
	secret, body, at := "whsec_test", []byte(`{"id":"1","type":"import.completed"}`), time.Unix(1767225600, 0)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("1767225600." + string(body)))
	want := "t=1767225600,v1=" + hex.EncodeToString(mac.Sum(nil))
	header := webhooks.Sign(secret, at, body)
	if header != want {
		t.Fatalf("Sign = %s, want %s", header, want)
	}
	for _, tc := range []struct {
		name           string
		secret, header string
		body           []byte
		now            time.Time
		want           error
	}{
		{"as sent", secret, header, body, at.Add(time.Minute), nil},
		{"another signature beside it", secret, "t=1767225600,v1=00ff," + header[len("t=1767225600,"):], body, at, nil},
		{"a changed body", secret, header, []byte(`{"id":"2","type":"import.completed"}`), at, webhooks.ErrBadSignature},
		{"another secret", "whsec_other", header, body, at, webhooks.ErrBadSignature},
		{"a changed timestamp", secret, strings.Replace(header, "t=1767225600", "t=1767225601", 1), body, at, webhooks.ErrBadSignature},
		{"no signature", secret, "t=1767225600", body, at, webhooks.ErrBadSignature},
		{"replayed an hour later", secret, header, body, at.Add(time.Hour), webhooks.ErrStale},
	} {
		if err := webhooks.Verify(tc.secret, tc.header, tc.body, tc.now, 5*time.Minute); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// env is a webhook service on a fresh database whose job client only queues (no worker):
// tests call Deliver themselves, with a clock they move.
type env struct {
	svc      *webhooks.Service
	d        *db.DB
	familyID uuid.UUID
	admin    webhooks.Actor // the family's admin, who changes its endpoints
	mu       sync.Mutex
	now      time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	d := testkit.MustOpenDB(t)
	keys, err := secrets.New(strings.Repeat("webhook-test-", 4))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{d: d, now: time.Now()}
	e.svc = &webhooks.Service{DB: d, Keys: keys, Log: testkit.DiscardLogger(), AllowInsecure: true, Now: e.clock,
		Retry: webhooks.RetryPolicy{Delays: []time.Duration{time.Hour}, Window: 2 * time.Hour}}
	if _, err := jobs.New(d, testkit.DiscardLogger(), jobs.Options{Webhooks: e.svc}); err != nil {
		t.Fatal(err)
	}
	admin := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	e.familyID, e.admin = admin.FamilyID, webhooks.Actor{UserID: admin.ID}
	return e
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

// endpoint creates an endpoint for r's URL subscribed to events, and gives r its secret.
func (e *env) endpoint(t *testing.T, r *webhookstest.Receiver, events ...string) *webhooks.Endpoint {
	t.Helper()
	url := r.URL
	ep, secret, err := e.svc.Create(context.Background(), e.familyID, e.admin, webhooks.Input{URL: &url, Events: &events})
	if err != nil {
		t.Fatal(err)
	}
	r.SetSecret(secret)
	return ep
}

// emit emits an import.completed event in a transaction that commits unless rollback.
func (e *env) emit(t *testing.T, rollback bool) {
	t.Helper()
	errRollback := errors.New("rolled back")
	err := e.d.InTx(context.Background(), func(ctx context.Context, tx db.Tx) error {
		if err := e.svc.Emit(ctx, tx, e.familyID, imports.EventCompleted, map[string]any{"import_id": "i-1", "rows_count": 3}); err != nil {
			return err
		}
		if rollback {
			return errRollback
		}
		return nil
	})
	if err != nil && !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
}

func (e *env) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.d.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pending returns the ids of the pending deliveries, oldest first.
func (e *env) pending(t *testing.T) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	if err := e.d.NewRaw("SELECT id FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id").Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestEmitQueuesDeliveriesOnlyWhenTheEventCommits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := webhookstest.New(t)
	e.endpoint(t, r, imports.EventCompleted)
	e.endpoint(t, r, imports.EventFailed) // not subscribed
	paused := e.endpoint(t, r, imports.EventCompleted)
	off := false
	if _, err := e.svc.Update(context.Background(), e.familyID, paused.ID, e.admin, webhooks.Input{Active: &off}); err != nil {
		t.Fatal(err)
	}

	e.emit(t, true)
	if n := e.count(t, "SELECT count(*) FROM webhook_events") + e.count(t, "SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery'"); n != 0 {
		t.Fatalf("a rolled-back event left %d rows", n)
	}
	e.emit(t, false)
	if n := e.count(t, "SELECT count(*) FROM webhook_deliveries"); n != 1 {
		t.Fatalf("%d deliveries, want one: to the active endpoint subscribed to the event", n)
	}
	if n := e.count(t, "SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery' AND args->>'delivery_id' = ?", e.pending(t)[0].String()); n != 1 {
		t.Fatalf("%d jobs for the delivery", n)
	}
	// An event of another family's is not this family's endpoints' business.
	other := testkit.MustCreateUser(t, e.d, testkit.UserOpts{}).FamilyID
	if err := e.d.InTx(context.Background(), func(ctx context.Context, tx db.Tx) error {
		return e.svc.Emit(ctx, tx, other, imports.EventCompleted, map[string]any{})
	}); err != nil {
		t.Fatal(err)
	}
	if n := e.count(t, "SELECT count(*) FROM webhook_events"); n != 1 {
		t.Fatalf("%d events recorded, want only the subscribed family's", n)
	}
}

func TestDeliveryRetriesWithinItsWindowThenMarksTheEndpointFailing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	r := webhookstest.New(t)
	ep := e.endpoint(t, r, imports.EventCompleted)
	r.AlwaysAnswer(http.StatusInternalServerError)
	e.emit(t, false)
	id := e.pending(t)[0]

	// Attempt 1 fails; the next, an hour later, is within the two-hour window.
	if err := e.svc.Deliver(ctx, id, 1, false); err == nil || errors.Is(err, webhooks.ErrGaveUp) {
		t.Fatalf("first failure: %v, want an error to retry", err)
	}
	_, list, err := e.svc.Deliveries(ctx, models.FamilyViewer(e.familyID), ep.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("deliveries %v %v", list, err)
	}
	d := list[0]
	if d.Status != webhooks.DeliveryPending || d.Attempts != 1 || *d.ResponseStatus != 500 || *d.ResponseBody != "Internal Server Error" ||
		*d.Error != "The endpoint answered HTTP 500." || d.NextAttemptAt == nil || d.EventType != imports.EventCompleted {
		t.Fatalf("after one failure: %+v", d)
	}
	got := r.Deliveries()
	if len(got) != 1 || got[0].SignatureErr != nil || got[0].EventID() != got[0].Payload.ID.String() || got[0].Payload.Type != imports.EventCompleted ||
		string(got[0].Payload.Data) != `{"import_id": "i-1", "rows_count": 3}` && string(got[0].Payload.Data) != `{"import_id":"i-1","rows_count":3}` {
		t.Fatalf("the receiver got %+v", got)
	}

	// Attempt 2, 90 minutes in: the next would come after the window, so it gives up.
	e.advance(90 * time.Minute)
	if err := e.svc.Deliver(ctx, id, 2, false); !errors.Is(err, webhooks.ErrGaveUp) {
		t.Fatalf("second failure: %v, want ErrGaveUp", err)
	}
	ep, _ = e.svc.Get(ctx, e.familyID, ep.ID)
	if ep.Status() != webhooks.StatusFailing {
		t.Fatalf("endpoint %s after giving up", ep.Status())
	}
	// A job run again for a finished delivery sends nothing.
	if err := e.svc.Deliver(ctx, id, 3, false); err != nil || len(r.Deliveries()) != 2 {
		t.Fatalf("a finished delivery ran again: %v, %d requests", err, len(r.Deliveries()))
	}

	// The endpoint is fixed: a redelivery of the same event succeeds, and clears failing.
	r.AlwaysAnswer(http.StatusNoContent)
	again, err := e.svc.Redeliver(ctx, models.FamilyViewer(e.familyID), ep.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Deliver(ctx, again.ID, 1, false); err != nil {
		t.Fatal(err)
	}
	got = r.Deliveries()
	if len(got) != 3 || got[2].EventID() != got[0].EventID() || got[2].Payload.ID != got[0].Payload.ID {
		t.Fatalf("the redelivery: %+v", got[len(got)-1])
	}
	ep, _ = e.svc.Get(ctx, e.familyID, ep.ID)
	if ep.Status() != webhooks.StatusActive {
		t.Fatalf("endpoint %s after a success", ep.Status())
	}

	// The last attempt River allows gives up too, whatever the window says.
	r.AlwaysAnswer(http.StatusBadGateway)
	e.emit(t, false)
	if err := e.svc.Deliver(ctx, e.pending(t)[0], 25, true); !errors.Is(err, webhooks.ErrGaveUp) {
		t.Fatalf("last attempt: %v", err)
	}
}

func TestDeliveriesKeepTheNewestFiftyAndNeverAPendingOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	r := webhookstest.New(t)
	ep := e.endpoint(t, r, imports.EventCompleted)
	for range 55 {
		e.emit(t, false)
	}
	ids := e.pending(t)
	// The oldest stays pending (its endpoint is down); all the others are delivered.
	for _, id := range ids[1:] {
		if err := e.svc.Deliver(ctx, id, 1, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ?", ep.ID); n != 51 {
		t.Fatalf("%d deliveries kept, want the newest 50 and the pending one", n)
	}
	if left := e.pending(t); len(left) != 1 || left[0] != ids[0] {
		t.Fatalf("pending %v", left)
	}
	_, list, _ := e.svc.Deliveries(ctx, models.FamilyViewer(e.familyID), ep.ID)
	if len(list) != webhooks.KeptDeliveries || list[0].ID != ids[54] {
		t.Fatalf("listed %d, newest %s", len(list), list[0].ID)
	}
	// Events whose deliveries are gone are pruned a day later.
	if n, err := webhooks.Prune(ctx, e.d, time.Now().Add(25*time.Hour)); err != nil || n != 4 {
		t.Fatalf("pruned %d events (%v), want the 4 whose deliveries were pruned", n, err)
	}
}

func TestDeletingAnEndpointLeavesItsQueuedJobsNothingToDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	r := webhookstest.New(t)
	ep := e.endpoint(t, r, imports.EventCompleted)
	e.emit(t, false)
	id := e.pending(t)[0]
	if err := e.svc.Delete(ctx, e.familyID, ep.ID, e.admin); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Deliver(ctx, id, 1, false); err != nil || len(r.Deliveries()) != 0 {
		t.Fatalf("a deleted endpoint's delivery: %v, %d sent", err, len(r.Deliveries()))
	}
	if _, err := e.svc.Get(ctx, e.familyID, ep.ID); err == nil {
		t.Fatal("the endpoint is still there")
	}
}

// The README's signature check is the test receiver's, word for word.
func TestREADMEShowsTheReceiversSignatureCheck(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("webhookstest/receiver.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	fn := s[strings.Index(s, "func verify("):]
	if !strings.Contains(string(readme), "```go\n"+fn+"```") {
		t.Fatalf("README.md does not show the check of webhookstest/receiver.go:\n%s", fn)
	}
}

// An event recorded before its account was made private is the owner's to see in the
// endpoint's deliveries, and nobody else's (another admin's Deliveries leave it out and their
// Redeliver does not find it); and it is sent to no one, as Emit sends nothing about a private
// account: its retry records why.
func TestAnEventAboutAnAccountMadePrivateSinceIsKeptAndNotSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	r := webhookstest.New(t)
	ep := e.endpoint(t, r, imports.EventCompleted)
	acct := testkit.MustCreateAccount(t, e.d, e.familyID, "Savings", "Depository", "")
	if err := e.d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		return e.svc.Emit(ctx, tx, e.familyID, imports.EventCompleted, imports.EventData{ImportID: uuid.New(), AccountID: &acct.ID})
	}); err != nil {
		t.Fatal(err)
	}
	id := e.pending(t)[0]
	if n := e.count(t, "SELECT count(*) FROM webhook_events WHERE account_ids = ARRAY[?::uuid]", acct.ID); n != 1 {
		t.Fatalf("the event does not record its account")
	}
	owner, _ := e.svc.Get(ctx, e.familyID, ep.ID)
	if _, err := e.d.NewRaw("UPDATE accounts SET private = true WHERE id = ?", acct.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	other := models.Viewer{FamilyID: e.familyID, UserID: uuid.New(), Hidden: []uuid.UUID{acct.ID}}
	if _, list, err := e.svc.Deliveries(ctx, other, ep.ID); err != nil || len(list) != 0 {
		t.Errorf("another admin's deliveries: %+v %v", list, err)
	}
	if _, err := e.svc.Redeliver(ctx, other, ep.ID, id); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another admin's redelivery: %v", err)
	}
	if _, list, err := e.svc.Deliveries(ctx, models.FamilyViewer(e.familyID), ep.ID); err != nil || len(list) != 1 || list[0].ID != id {
		t.Errorf("the owner's deliveries: %+v %v", list, err)
	}
	if err := e.svc.Deliver(ctx, id, 1, false); err != nil || len(r.Deliveries()) != 0 {
		t.Fatalf("the delivery: %v, %d sent", err, len(r.Deliveries()))
	}
	_, list, _ := e.svc.Deliveries(ctx, models.FamilyViewer(e.familyID), ep.ID)
	if d := list[0]; d.Status != webhooks.DeliveryFailed || d.Error == nil || !strings.Contains(*d.Error, "private") {
		t.Errorf("the delivery after its attempt: %+v", d)
	}
	if now, _ := e.svc.Get(ctx, e.familyID, ep.ID); now.Status() != owner.Status() {
		t.Errorf("the endpoint is %s, was %s: nothing failed", now.Status(), owner.Status())
	}
}
