-- A category's stored goal (issue 41): an amount to budget each month, or a balance to have
-- in the category, by a month when one is set. The budget page shows its progress, and the
-- "goal" quick fill budgets towards it. A move-in from Actual or YNAB brings its goals here;
-- import_id names the import that made one, so that its revert removes only those (a goal a
-- person changes afterwards is theirs: the change clears import_id).
CREATE TABLE category_goals (
    id          uuid PRIMARY KEY,
    family_id   uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    category_id uuid NOT NULL UNIQUE REFERENCES categories (id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('monthly', 'balance')),
    amount      numeric(19, 4) NOT NULL CHECK (amount > 0),
    by_month    date CHECK (by_month = date_trunc('month', by_month)::date),
    currency    text NOT NULL,
    import_id   uuid,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (by_month IS NULL OR kind = 'balance')
);
CREATE INDEX category_goals_family_idx ON category_goals (family_id);
CREATE INDEX category_goals_import_id_idx ON category_goals (import_id) WHERE import_id IS NOT NULL;
