package models_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/uuid"

	"tally/models"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestDeleteTagTakesItOffEntries(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	keep, drop := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{keep, drop} {
		if _, err := d.NewRaw("INSERT INTO tags (id, family_id, name) VALUES (?, ?, ?)", id, u.FamilyID, id.String()).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, tag_ids)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', '2024-01-01', 1, 'USD', ARRAY[?::uuid, ?::uuid])`, u.FamilyID, acct.ID, keep, drop).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := models.DeleteTag(ctx, d, models.FamilyViewer(other.FamilyID), drop); err == nil {
		t.Fatal("another family deleted the tag")
	}
	if err := models.DeleteTag(ctx, d, models.FamilyViewer(u.FamilyID), drop); err != nil {
		t.Fatal(err)
	}
	var tags []string
	if err := d.NewRaw("SELECT unnest(tag_ids)::text FROM entries").Scan(ctx, &tags); err != nil {
		t.Fatal(err)
	}
	if len(tags) != 1 || tags[0] != keep.String() {
		t.Fatalf("entry tags after delete: %v", tags)
	}
}
