package imports

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// Revert queues the removal of what the family's import published.
func (s *Service) Revert(ctx context.Context, familyID, id uuid.UUID) error {
	return s.queue(ctx, familyID, id, StatusReverting, "revert_failed", s.Jobs.EnqueueRevert,
		func(_ context.Context, _ db.Tx, im *Import) error {
			if !im.Revertable() {
				return apperr.Errorf(apperr.Conflict, "Import is not revertable: it is %s, and only a complete import (or one whose revert failed) can be reverted.", im.Status).
					WithSlug("not_revertable")
			}
			return nil
		})
}

// RunRevert is the revert job. In one transaction it removes exactly what the publish created:
// its entries, and the accounts, categories, tags, merchants and rules it created that nothing
// else uses now. Records that existed before the import are never touched. On success the
// import is pending again and can be published anew.
func (s *Service) RunRevert(ctx context.Context, id uuid.UUID) error {
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if im.Status != StatusReverting {
			return nil
		}
		var accounts []uuid.UUID
		// The accounts of its own entries, and of the entries it corrected in place.
		if err := tx.NewRaw(`SELECT coalesce(array_agg(DISTINCT account_id), '{}') FROM (
				SELECT account_id FROM entries WHERE import_id = ?
				UNION SELECT e.account_id FROM import_undo u JOIN entries e ON e.id = u.record_id WHERE u.import_id = ? AND u.target = 'entry') a`,
			id, id).Scan(ctx, pgdialect.Array(&accounts)); err != nil {
			return err
		}
		removed, err := s.footprintFor(ctx, tx, id)
		if err != nil {
			return err
		}
		// What it changes back rather than removes records who asked for the revert (a member
		// deleted since is nobody known).
		actor := models.ActorOf(ctx)
		for _, stmt := range revertStatements {
			args := []any{id}
			if changedBack[stmt.what] {
				args = append(args, actor.UserID, actor.ViaOrNil())
			}
			if _, err := tx.NewRaw(stmt.sql, args...).Exec(ctx); err != nil {
				return fmt.Errorf("revert %s: %w", stmt.what, err)
			}
		}
		if err := models.RecomputeBalances(ctx, tx, accounts); err != nil {
			return err
		}
		q := tx.NewUpdate().Model((*Import)(nil)).Where("id = ?", id)
		if err := markChunks(ctx, tx, im, ChunkPending, nil); err != nil {
			return err
		}
		if im.Statements != nil {
			q = q.Set("statements = ?", im.Statements.unpublished())
		}
		if im.Type.Native() {
			now := s.now().UTC()
			q = q.Set("readback = ?", &Readback{Status: ReadbackReverted, CheckedAt: &now}).Set("summary = '{}'")
			if im.MoveIn != nil {
				im.MoveIn.Readback = nil
				q = q.Set("move_in = ?", im.MoveIn)
			}
		}
		_, err = q.Set("status = ?", StatusPending).Set("error = NULL").Set("duplicate_rows_count = 0").
			Set("status_changed_at = now()").Set("updated_at = now()").Exec(ctx)
		if err != nil {
			return err
		}
		return s.notify(ctx, tx, im, EventReverted, nil, removed)
	})
	return s.finish(ctx, id, StatusReverting, StatusRevertFailed, "revert", err)
}

// changedBack are the revertStatements that change records back, which record who reverted.
var changedBack = map[string]bool{"updated rules": true, "updated entries": true, "transfer counterparts": true}

// revertStatements remove an import's data, most dependent first. Each takes the import's id;
// those of changedBack, what they change back rather than remove, also the actor's user id
// (?1) and updated_via (?2), the import's id being ?0.
var revertStatements = []struct{ what, sql string }{
	// Records that existed before the import get back the values it replaced.
	{"updated categories", `UPDATE categories c SET color = u.previous->>'color', lucide_icon = u.previous->>'lucide_icon',
			classification = u.previous->>'classification', parent_id = (u.previous->>'parent_id')::uuid, updated_at = now()
		FROM import_undo u WHERE u.import_id = ? AND u.target = 'category' AND c.id = u.record_id`},
	{"updated rules", `UPDATE rules r SET conditions = u.previous->'conditions', actions = u.previous->'actions',
			active = (u.previous->>'active')::boolean, effective_date = (u.previous->>'effective_date')::date, updated_at = now(),
			updated_by = (SELECT id FROM users WHERE id = ?1), updated_via = ?2
		FROM import_undo u WHERE u.import_id = ?0 AND u.target = 'rule' AND r.id = u.record_id`},
	{"updated entries", `UPDATE entries e SET date = (u.previous->>'date')::date, amount = (u.previous->>'amount')::numeric,
			currency = u.previous->>'currency', name = u.previous->>'name', notes = u.previous->>'notes',
			-- An undo record written before they kept original_name leaves it as it is.
			original_name = CASE WHEN u.previous->'original_name' IS NOT NULL THEN u.previous->>'original_name' ELSE e.original_name END,
			pending = (u.previous->>'pending')::boolean, external_id = u.previous->>'external_id', updated_at = now(),
			updated_by = (SELECT id FROM users WHERE id = ?1), updated_via = ?2
		FROM import_undo u WHERE u.import_id = ?0 AND u.target = 'entry' AND e.id = u.record_id`},
	{"undo records", `DELETE FROM import_undo WHERE import_id = ?`},
	{"account identifiers", `DELETE FROM account_identifiers WHERE import_id = ?`},
	// An account the import created that other entries use now stays, and keeps the opening
	// balance the import gave it: its history starts there.
	{"kept opening balances", `UPDATE entries v SET import_id = NULL
		WHERE v.import_id = ? AND v.kind = 'valuation'
			AND EXISTS (SELECT 1 FROM valuations x WHERE x.entry_id = v.id AND x.kind = 'opening_anchor')
			AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = v.account_id AND a.import_id = v.import_id)
			AND EXISTS (SELECT 1 FROM entries o WHERE o.account_id = v.account_id AND o.import_id IS DISTINCT FROM v.import_id)`},
	// A transfer's other side, outside the import, counts as spending or income again.
	{"transfer counterparts", `UPDATE entries o SET transaction_kind = 'standard', updated_at = now(),
			updated_by = (SELECT id FROM users WHERE id = ?1), updated_via = ?2
		FROM transfers t JOIN entries e ON e.id IN (t.inflow_entry_id, t.outflow_entry_id)
		WHERE e.import_id = ?0 AND o.id IN (t.inflow_entry_id, t.outflow_entry_id) AND o.import_id IS DISTINCT FROM e.import_id`},
	{"transfers", `DELETE FROM transfers WHERE import_id = ?`},
	{"rejected transfers", `DELETE FROM rejected_transfers WHERE import_id = ?`},
	{"balances", `DELETE FROM balances WHERE import_id = ?`},
	{"holdings", `DELETE FROM holdings WHERE import_id = ?`},
	{"recurring transactions", `DELETE FROM recurring_transactions WHERE import_id = ?`},
	{"budget categories", `DELETE FROM budget_categories WHERE import_id = ?`},
	{"entries", `DELETE FROM entries WHERE import_id = ?`},
	{"rules", `DELETE FROM rules WHERE import_id = ?`},
	// A goal a move-in wrote, unless a person changed it since (which made it theirs).
	{"goals", `DELETE FROM category_goals WHERE import_id = ?`},
	// A series detection proposed from the import's entries goes with them: with none of its
	// account's entries left it stands on nothing, and it would keep the account.
	{"proposed series", `DELETE FROM recurring_transactions t WHERE t.status = 'proposed' AND t.import_id IS NULL
		AND t.account_id IN (SELECT a.id FROM accounts a WHERE a.import_id = ? AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.account_id = a.id))`},
	{"accounts", `DELETE FROM accounts a WHERE a.import_id = ?
		AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.account_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM holdings h WHERE h.account_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM recurring_transactions t WHERE t.account_id = a.id)`},
	{"tags", `DELETE FROM tags t WHERE t.import_id = ? AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.tag_ids @> ARRAY[t.id] AND e.tag_ids <> '{}')
		AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.family_id = t.family_id AND (r.conditions::text || r.actions::text) LIKE '%' || t.id::text || '%')`},
	{"merchants", `DELETE FROM merchants m WHERE m.import_id = ?
		AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.merchant_id = m.id)
		AND NOT EXISTS (SELECT 1 FROM recurring_transactions t WHERE t.merchant_id = m.id)
		AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.family_id = m.family_id AND (r.conditions::text || r.actions::text) LIKE '%' || m.id::text || '%')`},
	// Children before parents: a category is removed when no entry, budget or remaining
	// category needs it.
	{"child categories", `DELETE FROM categories c WHERE c.import_id = ? AND c.parent_id IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.category_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM budget_categories b WHERE b.category_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.family_id = c.family_id AND (r.conditions::text || r.actions::text) LIKE '%' || c.id::text || '%')`},
	{"categories", `DELETE FROM categories c WHERE c.import_id = ?
		AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.category_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM budget_categories b WHERE b.category_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM categories k WHERE k.parent_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.family_id = c.family_id AND (r.conditions::text || r.actions::text) LIKE '%' || c.id::text || '%')`},
	// What the import created but something else uses now stays, and is no longer the
	// import's: a later revert must not remove it.
	{"budgets", `DELETE FROM budgets b WHERE b.import_id = ?
		AND NOT EXISTS (SELECT 1 FROM budget_categories c WHERE c.budget_id = b.id)`},
	{"kept budgets", `UPDATE budgets SET import_id = NULL WHERE import_id = ?`},
	{"links", `DELETE FROM import_links WHERE import_id = ?`},
	{"kept accounts", `UPDATE accounts SET import_id = NULL WHERE import_id = ?`},
	{"kept tags", `UPDATE tags SET import_id = NULL WHERE import_id = ?`},
	{"kept merchants", `UPDATE merchants SET import_id = NULL WHERE import_id = ?`},
	{"kept categories", `UPDATE categories SET import_id = NULL WHERE import_id = ?`},
	{"mappings", `UPDATE import_mappings SET target_id = NULL, created = false WHERE import_id = ? AND created`},
	{"duplicates", `UPDATE import_rows SET duplicate = false WHERE import_id = ? AND duplicate`},
}

// Delete removes the family's import. An import whose data is published must be reverted
// first, so that deleting it never leaves data nobody can revert; a running one must finish.
func (s *Service) Delete(ctx context.Context, familyID, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if im.FamilyID != familyID {
			return importNotFound()
		}
		switch im.Status {
		case StatusPending, StatusFailed:
		case StatusComplete, StatusRevertFailed:
			return apperr.New(apperr.Conflict, "This import's data is published: revert it before deleting it.").WithSlug("not_deletable")
		default:
			return apperr.Errorf(apperr.Conflict, "This import is %s: wait until it finishes.", im.Status).WithSlug("not_deletable")
		}
		_, err = tx.NewDelete().Model((*Import)(nil)).Where("id = ?", id).Exec(ctx)
		return err
	})
}
