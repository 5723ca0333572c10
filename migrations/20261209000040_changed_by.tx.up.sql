-- Who did what (issue 44): the last change of a transaction, an account, a rule and a
-- budget's category records who made it. updated_by is the member whose page or API request
-- made it (kept NULL when they leave Tally); updated_via is "member", or the machinery that
-- made it instead ("rule", "bank sync"). Both stay NULL on what an import publishes or a bank
-- sync adds: their rows say so already (import_id, source), and the publish writes nothing
-- more per row. Nullable columns without a default are added without rewriting the tables.
ALTER TABLE entries ADD COLUMN updated_by uuid REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE entries ADD COLUMN updated_via text;
ALTER TABLE accounts ADD COLUMN updated_by uuid REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE accounts ADD COLUMN updated_via text;
ALTER TABLE rules ADD COLUMN updated_by uuid REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE rules ADD COLUMN updated_via text;
ALTER TABLE budget_categories ADD COLUMN updated_by uuid REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE budget_categories ADD COLUMN updated_via text;
-- The "changed by" filter of the transactions list (a user is of one family), and a user's
-- deletion (ON DELETE SET NULL) finds their rows through these. Partial: the rows an import
-- publishes or a sync adds have none, and cost nothing.
CREATE INDEX entries_updated_by_idx ON entries (updated_by) WHERE updated_by IS NOT NULL;
CREATE INDEX accounts_updated_by_idx ON accounts (updated_by) WHERE updated_by IS NOT NULL;
CREATE INDEX rules_updated_by_idx ON rules (updated_by) WHERE updated_by IS NOT NULL;
CREATE INDEX budget_categories_updated_by_idx ON budget_categories (updated_by) WHERE updated_by IS NOT NULL;
