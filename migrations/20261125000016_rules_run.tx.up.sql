-- Rules run on every new transaction (package rules): in order, the first match setting each
-- field, stopping at a matching rule unless it says to go on; conditions combine with all or any.
ALTER TABLE rules
    ADD COLUMN position integer NOT NULL DEFAULT 0,
    ADD COLUMN match text NOT NULL DEFAULT 'all' CHECK (match IN ('all', 'any')),
    ADD COLUMN continue_matching boolean NOT NULL DEFAULT false;
-- Imported rules keep the order they were written in.
UPDATE rules r SET position = o.n FROM (
    SELECT id, row_number() OVER (PARTITION BY family_id ORDER BY created_at, id) AS n FROM rules) o
WHERE o.id = r.id;
CREATE INDEX rules_family_position_idx ON rules (family_id, position) WHERE active;

-- Fields a person set by hand ('category', 'merchant', 'tags', 'name', 'excluded'): rules
-- never change them. original_name is the source's name when a rule cleaned it up, so that a
-- bank sync compares the bank's names with the bank's, and the page can show both.
ALTER TABLE entries
    ADD COLUMN locked_fields text[] NOT NULL DEFAULT '{}',
    ADD COLUMN original_name text;

-- A rule applied to a family's history keeps what it changed for a short while, so that the
-- person who applied it can take it back ("Undo" for 10 seconds).
CREATE TABLE rule_applications (
    id         uuid PRIMARY KEY,
    family_id  uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    rule_id    uuid REFERENCES rules (id) ON DELETE SET NULL,
    changed    integer NOT NULL,
    previous   jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    undo_until timestamptz NOT NULL,
    undone_at  timestamptz
);
CREATE INDEX rule_applications_family_idx ON rule_applications (family_id, created_at);
