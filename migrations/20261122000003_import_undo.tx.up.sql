-- What a publish changed on records that existed before it (a CategoryImport updating a
-- category's colour, a RuleImport replacing a named rule's conditions), so that revert can put
-- the previous values back.
CREATE TABLE import_undo (
    import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    target    text NOT NULL CHECK (target IN ('category', 'rule')),
    record_id uuid NOT NULL,
    previous  jsonb NOT NULL,
    PRIMARY KEY (import_id, target, record_id)
);
