DROP INDEX entries_valuations_idx;
ALTER TABLE valuations DROP COLUMN as_of;
DELETE FROM entries e USING valuations v WHERE v.entry_id = e.id AND v.kind = 'checkpoint';
ALTER TABLE valuations DROP CONSTRAINT valuations_kind_check;
ALTER TABLE valuations ADD CONSTRAINT valuations_kind_check
    CHECK (kind IN ('reconciliation', 'opening_anchor', 'current_anchor'));
