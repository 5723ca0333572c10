package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"tally/app"
	"tally/app/apptest"
	"tally/banksync/fakesimplefin"
	"tally/handlers"
	"tally/imports"
	"tally/models"
	"tally/testkit"
	"tally/webhooks"
	"tally/webhooks/webhookstest"
)

// webhookBody is a Webhook (or WebhookWithSecret) response.
type webhookBody struct {
	Data struct {
		ID           string   `json:"id"`
		URL          string   `json:"url"`
		Description  string   `json:"description"`
		Events       []string `json:"events"`
		Active       bool     `json:"active"`
		Status       string   `json:"status"`
		FailingSince *string  `json:"failing_since"`
		Secret       *string  `json:"secret"`
	} `json:"data"`
}

// deliveryJSON is a WebhookDelivery.
type deliveryJSON struct {
	ID             string  `json:"id"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	ResponseStatus *int    `json:"response_status"`
	Error          *string `json:"error"`
	RedeliveryOf   *string `json:"redelivery_of"`
}

// createWebhook creates a webhook through the API and fails the test unless it answers 201.
func (e *importEnv) createWebhook(t *testing.T, body map[string]any) webhookBody {
	t.Helper()
	r := e.c.API(http.MethodPost, "/api/v1/webhooks", e.write, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	var b webhookBody
	r.JSON(t, &b)
	return b
}

// deliveries lists a webhook's deliveries through the API.
func (e *importEnv) deliveries(t *testing.T, id string) []deliveryJSON {
	t.Helper()
	var b struct{ Data []deliveryJSON }
	r := e.c.API(http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", e.read, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("deliveries: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &b)
	return b.Data
}

// waitForDelivery polls a webhook's deliveries until the newest is done (succeeded or failed).
func (e *importEnv) waitForDelivery(t *testing.T, id string, n int) []deliveryJSON {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list := e.deliveries(t, id)
		if len(list) >= n && list[0].Status != webhooks.DeliveryPending {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries after 30s: %+v\n%s", list, e.srv.Logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWebhooksAPI creates, lists, changes and deletes webhooks through the API: a URL must be
// public https, the events known; the secret is shown once and stored encrypted; another
// family's webhook is a 404, and only a family admin manages them.
func TestWebhooksAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	ctx := context.Background()

	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
		want  string
	}{
		{"no URL", map[string]any{"events": []string{"import.completed"}}, "url", "Enter the URL"},
		{"not a URL", map[string]any{"url": "hooks.example.com", "events": []string{"import.completed"}}, "url", "full URL"},
		{"plain http", map[string]any{"url": "http://hooks.example.com/x", "events": []string{"import.completed"}}, "url", "must use https"},
		{"loopback", map[string]any{"url": "https://127.0.0.1:8443/x", "events": []string{"import.completed"}}, "url", "WEBHOOKS_ALLOW_INSECURE"},
		{"private address", map[string]any{"url": "https://10.1.2.3/x", "events": []string{"import.completed"}}, "url", "private or link-local"},
		{"link-local address", map[string]any{"url": "https://169.254.169.254/x", "events": []string{"import.completed"}}, "url", "private or link-local"},
		{"site-local IPv6 address", map[string]any{"url": "https://[fec0::1]/x", "events": []string{"import.completed"}}, "url", "private or link-local"},
		{"SIIT address of the metadata service", map[string]any{"url": "https://[::ffff:0:a9fe:a9fe]/x", "events": []string{"import.completed"}}, "url", "private or link-local"},
		{"unknown event", map[string]any{"url": "https://hooks.example.com/x", "events": []string{"import.done"}}, "events", `"import.done" is not an event`},
		{"no events", map[string]any{"url": "https://hooks.example.com/x", "events": []string{}}, "events", "at least one event"},
	} {
		r := e.c.API(http.MethodPost, "/api/v1/webhooks", e.write, tc.body)
		var b struct {
			Error   string
			Details map[string][]string
		}
		r.JSON(t, &b)
		if r.Status != http.StatusUnprocessableEntity || len(b.Details[tc.field]) == 0 || !strings.Contains(b.Details[tc.field][0], tc.want) {
			t.Errorf("%s: %d %s; want 422 with %q on %s", tc.name, r.Status, r.Body, tc.want, tc.field)
		}
	}
	if r := e.c.API(http.MethodPost, "/api/v1/webhooks", e.write, map[string]any{"url": "https://hooks.example.com", "colour": "red"}); r.Status != http.StatusBadRequest {
		t.Errorf("an unknown field: %d", r.Status)
	}

	created := e.createWebhook(t, map[string]any{"url": "https://hooks.example.com/tally", "description": "Home automation",
		"events": []string{"import.reverted", "import.completed", "import.completed"}})
	w := created.Data
	if w.Secret == nil || !strings.HasPrefix(*w.Secret, "whsec_") || len(*w.Secret) != len("whsec_")+43 || w.Status != "active" || !w.Active ||
		strings.Join(w.Events, ",") != "import.completed,import.reverted" {
		t.Fatalf("created %+v", w)
	}
	var stored string
	if err := e.srv.DB.NewRaw("SELECT secret FROM webhook_endpoints WHERE id = ?", w.ID).Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	keys, _ := app.EncryptionKeys(e.srv.Config)
	if plain, wasPlain, err := keys.Decrypt(stored, "webhook_endpoints.secret"); strings.Contains(stored, *w.Secret) || wasPlain || err != nil || plain != *w.Secret {
		t.Fatalf("stored secret %q: plain %v, %v", stored, wasPlain, err)
	}
	// The secret is never shown again.
	for _, path := range []string{"/api/v1/webhooks", "/api/v1/webhooks/" + w.ID} {
		if r := e.c.API(http.MethodGet, path, e.read, nil); r.Status != http.StatusOK || strings.Contains(r.Body, "secret") {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}

	// PATCH changes what it is given; pausing and resuming.
	r := e.c.API(http.MethodPatch, "/api/v1/webhooks/"+w.ID, e.write, map[string]any{"active": false, "events": []string{"bank_sync.failed"}})
	var patched webhookBody
	r.JSON(t, &patched)
	if r.Status != http.StatusOK || patched.Data.Status != "paused" || patched.Data.URL != w.URL || patched.Data.Description != "Home automation" ||
		strings.Join(patched.Data.Events, ",") != "bank_sync.failed" {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if r := e.c.API(http.MethodPatch, "/api/v1/webhooks/"+w.ID, e.write, map[string]any{"url": "http://192.168.0.2/x"}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("patch to a private URL: %d", r.Status)
	}
	// A failing endpoint that is resumed is active again.
	if _, err := e.srv.DB.NewRaw("UPDATE webhook_endpoints SET failing_since = now() WHERE id = ?", w.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	e.c.API(http.MethodPatch, "/api/v1/webhooks/"+w.ID, e.write, map[string]any{"active": true}).JSON(t, &patched)
	if patched.Data.Status != "active" || patched.Data.FailingSince != nil {
		t.Fatalf("resumed: %+v", patched.Data)
	}

	// A new secret replaces the old.
	var rotated webhookBody
	e.c.API(http.MethodPost, "/api/v1/webhooks/"+w.ID+"/rotate_secret", e.write, nil).JSON(t, &rotated)
	if rotated.Data.Secret == nil || *rotated.Data.Secret == *w.Secret {
		t.Fatalf("rotated %+v", rotated.Data)
	}

	// Another family's webhook is not found; a member of this family may not manage them.
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, models.ScopeReadWrite)
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/webhooks/" + w.ID}, {http.MethodPatch, "/api/v1/webhooks/" + w.ID},
		{http.MethodDelete, "/api/v1/webhooks/" + w.ID}, {http.MethodGet, "/api/v1/webhooks/" + w.ID + "/deliveries"},
		{http.MethodPost, "/api/v1/webhooks/" + w.ID + "/rotate_secret"},
	} {
		if r := e.c.API(req.method, req.path, otherKey, map[string]any{}); r.Status != http.StatusNotFound {
			t.Errorf("another family's %s %s: %d", req.method, req.path, r.Status)
		}
	}
	var list struct{ Data []webhookBody }
	e.c.API(http.MethodGet, "/api/v1/webhooks", otherKey, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("another family lists %d webhooks", len(list.Data))
	}
	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID, Role: models.RoleMember})
	memberKey := testkit.MustCreateAPIKey(t, e.srv.DB, member.ID, models.ScopeReadWrite)
	for _, req := range []struct{ method, path string }{{http.MethodGet, "/api/v1/webhooks"}, {http.MethodPost, "/api/v1/webhooks"},
		{http.MethodGet, "/api/v1/webhooks/" + w.ID}, {http.MethodDelete, "/api/v1/webhooks/" + w.ID}} {
		r := e.c.API(req.method, req.path, memberKey, map[string]any{})
		var b struct{ Error, Message string }
		r.JSON(t, &b)
		if r.Status != http.StatusForbidden || b.Error != "forbidden" || !strings.Contains(b.Message, "admin") {
			t.Errorf("a member's %s %s: %d %s", req.method, req.path, r.Status, r.Body)
		}
	}

	if r := e.c.API(http.MethodDelete, "/api/v1/webhooks/"+w.ID, e.write, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := e.c.API(http.MethodGet, "/api/v1/webhooks/"+w.ID, e.read, nil); r.Status != http.StatusNotFound {
		t.Fatalf("after delete: %d", r.Status)
	}
}

// webhookEventSchema is the document's WebhookEvent: every delivery's body must match it.
var webhookEventSchema = sync.OnceValues(func() (*openapi3.Schema, error) {
	doc, err := openapi3.NewLoader().LoadFromData(handlers.OpenAPIDocument())
	if err != nil {
		return nil, err
	}
	return doc.Components.Schemas["WebhookEvent"].Value, nil
})

// checkPayload fails the test unless the delivery's signature is right, its Tally-Event-Id is
// its body's id, and its body is a WebhookEvent as documented.
func checkPayload(t *testing.T, d webhookstest.Delivery) {
	t.Helper()
	if d.SignatureErr != nil {
		t.Errorf("delivery %s: %v", d.Body, d.SignatureErr)
	}
	if d.EventID() != d.Payload.ID.String() || d.Header.Get("Tally-Event-Type") != d.Payload.Type {
		t.Errorf("headers %v for body %s", d.Header, d.Body)
	}
	schema, err := webhookEventSchema()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(d.Body, &v); err != nil {
		t.Fatal(err)
	}
	if err := schema.VisitJSON(v); err != nil {
		t.Errorf("the body is not a documented WebhookEvent: %v\n%s", err, d.Body)
	}
}

// TestWebhooksDeliverImportEvents publishes and reverts an import through the API, with the
// worker running, and checks what real receivers get: exactly one signed import.completed,
// a retry after a 500, a redelivery with the same event id, and an endpoint that never
// answers marked failing once its (shortened) retry window has passed.
func TestWebhooksDeliverImportEvents(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"WEBHOOKS_ALLOW_INSECURE": "true"},
		WebhookRetry: &webhooks.RetryPolicy{Delays: []time.Duration{200 * time.Millisecond}, Window: 2 * time.Second}})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	completed, reverted, down := webhookstest.New(t), webhookstest.New(t), webhookstest.New(t)
	hook := func(r *webhookstest.Receiver, events ...string) string {
		b := e.createWebhook(t, map[string]any{"url": r.URL, "events": events})
		r.SetSecret(*b.Data.Secret)
		return b.Data.ID
	}
	completedID := hook(completed, "import.completed")
	revertedID := hook(reverted, "import.reverted", "import.failed")
	downID := hook(down, "import.completed")
	reverted.AnswerNext(http.StatusInternalServerError)
	down.AlwaysAnswer(http.StatusServiceUnavailable)

	imp := e.publish(t, map[string]any{"account_id": acct.ID, "date_format": "%Y-%m-%d",
		"raw_file_content": "date,amount,name\n2026-03-01,-3.20,Coffee\n2026-03-02,-40,Market\n"})

	// Exactly one import.completed, signed, with the import's counts.
	got := completed.WaitFor(t, 1, 20*time.Second)
	list := e.waitForDelivery(t, completedID, 1)
	time.Sleep(500 * time.Millisecond) // a second delivery would have come by now
	if got = completed.Deliveries(); len(got) != 1 {
		t.Fatalf("the receiver got %d deliveries of one event", len(got))
	}
	checkPayload(t, got[0])
	var data struct {
		ImportID          string   `json:"import_id"`
		Status            string   `json:"status"`
		RowsCount         int      `json:"rows_count"`
		TransactionsCount int      `json:"transactions_count"`
		AccountIDs        []string `json:"account_ids"`
	}
	if err := json.Unmarshal(got[0].Payload.Data, &data); err != nil {
		t.Fatal(err)
	}
	if got[0].Payload.Type != "import.completed" || data.ImportID != imp.Data.ID || data.Status != "complete" || data.RowsCount != 2 ||
		data.TransactionsCount != 2 || len(data.AccountIDs) != 1 || data.AccountIDs[0] != acct.ID.String() {
		t.Fatalf("event %s", got[0].Body)
	}
	if d := list[0]; len(list) != 1 || d.Status != "succeeded" || d.Attempts != 1 || *d.ResponseStatus != 200 || d.EventID != got[0].EventID() {
		t.Fatalf("deliveries %+v", list)
	}

	// Redelivered: the same event id again, as a new delivery.
	r := e.c.API(http.MethodPost, "/api/v1/webhooks/"+completedID+"/deliveries/"+list[0].ID+"/redeliver", e.write, nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	again := completed.WaitFor(t, 2, 20*time.Second)[1]
	checkPayload(t, again)
	if again.EventID() != got[0].EventID() || string(again.Body) != string(got[0].Body) {
		t.Fatalf("redelivered %s %s, first %s", again.EventID(), again.Body, got[0].Body)
	}
	list = e.waitForDelivery(t, completedID, 2)
	if len(list) != 2 || list[0].Status != "succeeded" || list[0].RedeliveryOf == nil || *list[0].RedeliveryOf != list[1].ID {
		t.Fatalf("after the redelivery %+v", list)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/webhooks/"+revertedID+"/deliveries/"+list[0].ID+"/redeliver", e.write, nil); r.Status != http.StatusNotFound {
		t.Errorf("redelivering another endpoint's delivery: %d", r.Status)
	}

	// The revert's receiver answers 500 first: the retry succeeds.
	e.revert(t, imp.Data.ID)
	rl := e.waitForDelivery(t, revertedID, 1)
	if d := rl[0]; d.EventType != "import.reverted" || d.Status != "succeeded" || d.Attempts != 2 || *d.ResponseStatus != 200 {
		t.Fatalf("the reverted delivery %+v", rl)
	}
	rg := reverted.Deliveries()
	if len(rg) != 2 || rg[0].Status != 500 || rg[1].Status != 200 || rg[0].EventID() != rg[1].EventID() {
		t.Fatalf("the revert's receiver got %d requests", len(rg))
	}
	checkPayload(t, rg[1])

	// The endpoint that never answers 2xx fails its delivery when the window passes, and is
	// marked failing.
	dl := e.waitForDelivery(t, downID, 1)
	if d := dl[0]; d.Status != "failed" || d.Attempts < 2 || *d.ResponseStatus != 503 || !strings.Contains(*d.Error, "HTTP 503") {
		t.Fatalf("the failing delivery %+v", d)
	}
	var w webhookBody
	e.c.API(http.MethodGet, "/api/v1/webhooks/"+downID, e.read, nil).JSON(t, &w)
	if w.Data.Status != "failing" || w.Data.FailingSince == nil {
		t.Fatalf("the endpoint that never answers: %+v", w.Data)
	}
	if n := len(down.Deliveries()); n != dl[0].Attempts {
		t.Fatalf("%d requests for %d attempts", n, dl[0].Attempts)
	}
	// Paused, it is not redelivered to.
	e.c.API(http.MethodPatch, "/api/v1/webhooks/"+downID, e.write, map[string]any{"active": false})
	if r := e.c.API(http.MethodPost, "/api/v1/webhooks/"+downID+"/deliveries/"+dl[0].ID+"/redeliver", e.write, nil); r.Status != http.StatusConflict {
		t.Errorf("redelivering to a paused endpoint: %d %s", r.Status, r.Body)
	}
}

// TestWebhooksDeliverBankSyncEvents syncs a bank through the fake provider and then has the
// provider refuse the connection: the receiver gets bank_sync.completed, then
// bank_sync.failed saying a new token is needed.
func TestWebhooksDeliverBankSyncEvents(t *testing.T) {
	t.Parallel()
	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Everyday Checking", Currency: "USD", Balance: "500.00", BalanceDate: time.Now()})
	fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: "T1", Posted: time.Now().Add(-48 * time.Hour), Amount: "-19.99", Description: "Bookshop"})
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true", "WEBHOOKS_ALLOW_INSECURE": "true"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	api := apptest.NewClient(t, srv)
	rcv := webhookstest.New(t)
	r := api.API(http.MethodPost, "/api/v1/webhooks", key, map[string]any{"url": rcv.URL, "events": []string{"bank_sync.completed", "bank_sync.failed"}})
	var b webhookBody
	r.JSON(t, &b)
	rcv.SetSecret(*b.Data.Secret)

	token := fake.NewSetupToken()
	c.Get("/settings/bank_connections")
	r = c.PostForm("/settings/bank_connections", url.Values{"setup_token": {token}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("connect: %d %s", r.Status, r.Body)
	}
	page := c.Get(r.Location())
	name, _ := page.Doc(t).Find(`[data-testid="link-choice"]`).Attr("name")
	if r := c.PostForm(r.Location(), url.Values{name: {"new:Depository"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("link: %d", r.Status)
	}
	first := rcv.WaitFor(t, 1, 20*time.Second)[0]
	checkPayload(t, first)
	var data struct {
		ConnectionID string   `json:"connection_id"`
		Status       string   `json:"status"`
		AccountIDs   []string `json:"account_ids"`
		Stats        struct{ Created int }
		Error        *string `json:"error"`
	}
	json.Unmarshal(first.Payload.Data, &data)
	conn := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	if first.Payload.Type != "bank_sync.completed" || data.ConnectionID != conn || data.Status != "good" || data.Stats.Created != 1 ||
		len(data.AccountIDs) != 1 || data.Error != nil {
		t.Fatalf("first event %s", first.Body)
	}

	var accessURL string
	keysURL(t, srv, context.Background(), conn, &accessURL)
	fake.RevokeAccess(accessURL)
	waitForSyncsToFinish(t, srv)
	c.Get("/settings/bank_connections")
	c.PostForm("/settings/bank_connections/"+conn+"/sync", nil)
	second := rcv.WaitFor(t, 2, 20*time.Second)[1]
	checkPayload(t, second)
	json.Unmarshal(second.Payload.Data, &data)
	if second.Payload.Type != "bank_sync.failed" || data.Status != "needs_token" || data.Error == nil || !strings.Contains(*data.Error, "new setup token") {
		t.Fatalf("second event %s", second.Body)
	}
	if strings.Contains(string(second.Body), accessURL) {
		t.Fatal("the event holds the access URL")
	}
}

// TestWebhooksHearOfFailedImports sends import.failed for a publish that fails and for one
// whose job was lost (the reaper's), each with the import's error.
func TestWebhooksHearOfFailedImports(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"WEBHOOKS_ALLOW_INSECURE": "true"}})
	rcv := webhookstest.New(t)
	rcv.SetSecret(*e.createWebhook(t, map[string]any{"url": rcv.URL, "events": []string{"import.failed"}}).Data.Secret)
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	foreign := uuid.New()
	mustExecDB(t, e, "INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Theirs')", foreign, other.FamilyID)
	var failed importBody
	e.create(t, map[string]any{"type": "RuleImport", "publish": "true", "raw_file_content": "name,resource_type,active,effective_date,conditions,actions\n" +
		`Sneaky,transaction,true,,[{"condition_type":"transaction_name","operator":"like","value":"x"}],[{"action_type":"set_transaction_category","value":"` + foreign.String() + `"}]` + "\n"}, http.StatusCreated).JSON(t, &failed)
	if done := e.waitFor(t, failed.Data.ID); done.Data.Status != "failed" {
		t.Fatalf("the rule import is %s", done.Data.Status)
	}

	// An import left importing without a job is reaped.
	var lost importBody
	e.create(t, map[string]any{"raw_file_content": "date,amount,name\n01/02/2024,1,A\n"}, http.StatusCreated).JSON(t, &lost)
	mustExecDB(t, e, "UPDATE imports SET status = 'importing', job_id = NULL, status_changed_at = now() - interval '5 minutes' WHERE id = ?", lost.Data.ID)
	if _, err := e.srv.Imports.ReapLost(context.Background(), 2*time.Hour); err != nil {
		t.Fatal(err)
	}

	got := rcv.WaitFor(t, 2, 20*time.Second)
	errs := map[string]string{}
	for _, d := range got {
		checkPayload(t, d)
		var data struct {
			ImportID string  `json:"import_id"`
			Status   string  `json:"status"`
			Error    *string `json:"error"`
		}
		json.Unmarshal(d.Payload.Data, &data)
		if d.Payload.Type != "import.failed" || data.Status != "failed" || data.Error == nil {
			t.Errorf("event %s", d.Body)
			continue
		}
		errs[data.ImportID] = *data.Error
	}
	if !strings.Contains(errs[failed.Data.ID], "not one of this family's") || errs[lost.Data.ID] != imports.MsgPublishLost {
		t.Fatalf("errors by import %v", errs)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rcv.Deliveries()); n != 2 {
		t.Fatalf("%d deliveries of two events", n)
	}
}
