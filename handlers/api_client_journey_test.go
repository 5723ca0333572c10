package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/webhooks/webhookstest"
)

// TestClientJourney is what the client API is for, end to end: a bank-export robot pushes an
// OFX file (and, having timed out, pushes it again with the same Idempotency-Key), learns by a
// signed webhook that it finished, reads back exactly the transactions it made a page at a
// time, recategorises them in one call, and repeats that call safely.
func TestClientJourney(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"WEBHOOKS_ALLOW_INSECURE": "true"}})
	receiver := webhookstest.New(t)
	hook := e.createWebhook(t, map[string]any{"url": receiver.URL, "events": []string{"import.completed", "import.failed"}})
	receiver.SetSecret(*hook.Data.Secret)
	groceries := e.named(t, "categories", "Card spending")

	push := func() *importBody {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"type": "auto", "raw_file_content": cardOFX, "publish": "true"})
		r := e.c.Do(http.MethodPost, "/api/v1/imports", bytes.NewReader(b),
			map[string]string{"Content-Type": "application/json", "X-Api-Key": e.write, "Idempotency-Key": "statement-2026-02"})
		if r.Status != http.StatusCreated {
			t.Fatalf("push: %d %s", r.Status, r.Body)
		}
		var ib importBody
		r.JSON(t, &ib)
		return &ib
	}
	first, retry := push(), push()
	if first.Data.ID != retry.Data.ID {
		t.Fatalf("a retried push made import %s besides %s", retry.Data.ID, first.Data.ID)
	}

	got := receiver.WaitFor(t, 1, 30*time.Second)
	time.Sleep(300 * time.Millisecond) // room for a second delivery that must not come
	if got = receiver.Deliveries(); len(got) != 1 || got[0].SignatureErr != nil || got[0].Payload.Type != "import.completed" {
		t.Fatalf("webhook deliveries: %d, first %+v", len(got), got[0])
	}
	var data struct {
		ImportID          string `json:"import_id"`
		TransactionsCount int    `json:"transactions_count"`
	}
	if err := json.Unmarshal(got[0].Payload.Data, &data); err != nil || data.ImportID != first.Data.ID || data.TransactionsCount != 3 {
		t.Fatalf("event data %s (%v)", got[0].Payload.Data, err)
	}

	// Exactly the transactions the file made, one per page to walk the cursor.
	var ids, names []string
	cursor := ""
	for {
		p := e.list(t, "per_page=1&import_id="+data.ImportID+"&cursor="+cursor)
		for _, d := range p.Data {
			ids, names = append(ids, d.ID), append(names, d.Name+" "+d.Amount)
		}
		if p.Meta.NextCursor == nil {
			break
		}
		cursor = *p.Meta.NextCursor
	}
	want := []string{"PAYMENT THANK YOU -100.00", "CITY PARKING 7.83", "GROCERY OUTLET #12 42.17"}
	if !slices.Equal(names, want) {
		t.Fatalf("the import's transactions: %v, want %v", names, want)
	}

	for range 2 { // a retried change changes nothing more
		r := e.c.API(http.MethodPatch, "/api/v1/transactions", e.write, map[string]any{"ids": ids, "category_id": groceries})
		if r.Status != http.StatusOK {
			t.Fatalf("recategorise: %d %s", r.Status, r.Body)
		}
	}
	for _, d := range e.list(t, "import_id="+data.ImportID).Data {
		if d.Category == nil || *d.Category != groceries {
			t.Errorf("%s has category %v", d.Name, d.Category)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 1 {
		t.Errorf("%d imports", n)
	}
}
