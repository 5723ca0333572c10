package handlers_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
	"tally/webhooks/webhookstest"
)

// TestWebhooksHearOfABalanceAnImportMakesDiffer publishes, through the API with the worker
// running, a statement whose running balance agrees with the ledger and then one whose closing
// balance is 50.00 above it: the receiver gets one signed balance.differs, for the second
// import, naming the account and the checkpoints that differ; the first import sent none.
func TestWebhooksHearOfABalanceAnImportMakesDiffer(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"WEBHOOKS_ALLOW_INSECURE": "true"}})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	rcv := webhookstest.New(t)
	hook := e.createWebhook(t, map[string]any{"url": rcv.URL, "events": []string{models.EventBalanceDiffers}})
	rcv.SetSecret(*hook.Data.Secret)

	e.publish(t, map[string]any{"raw_file_content": runningBalanceFile(runningBalanceRows), "date_format": "%Y-%m-%d",
		"account_id": acct.ID.String(), "balance_col_label": "Balance"})
	second := e.publish(t, map[string]any{"raw_file_content": runningBalanceFile([]string{"2026-03-10,Cafe,-4.60,3349.80", "2026-03-11,Refund,10.00,3359.80"}),
		"date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "balance_col_label": "Balance"})

	// An event's deliveries are recorded with it, in the publish's transaction: both publishes
	// are complete, so every delivery either made is listed.
	if list := e.deliveries(t, hook.Data.ID); len(list) != 1 || list[0].EventType != models.EventBalanceDiffers {
		t.Fatalf("deliveries %+v, want one balance.differs", list)
	}
	got := rcv.WaitFor(t, 1, 20*time.Second)[0]
	checkPayload(t, got)
	var data models.DifferenceEvent
	if err := json.Unmarshal(got.Payload.Data, &data); err != nil {
		t.Fatal(err)
	}
	if got.Payload.Type != models.EventBalanceDiffers || data.AccountID != acct.ID || data.ImportID == nil ||
		data.ImportID.String() != second.Data.ID || len(data.Checkpoints) != 2 {
		t.Fatalf("event %s", got.Body)
	}
	for _, c := range data.Checkpoints {
		if !c.Difference.Abs().Equal(decimal.NewFromInt(50)) || c.Status != models.CheckpointDiffers {
			t.Errorf("checkpoint %+v, want one that differs by 50.00", c)
		}
	}
}
