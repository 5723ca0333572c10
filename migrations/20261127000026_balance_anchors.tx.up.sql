-- Balances a household can trust (docs/architecture.md, "Balances: anchors and checkpoints").
--
-- An account's history is walked from its anchor, the balance a person typed (or the one a
-- first statement or export gave it), backwards and forwards through its transactions, so
-- that it never jumps where no entry explains it. Every other balance a bank states is a
-- checkpoint: compared with the walk, never a reset. Only accounts whose value moves without
-- transactions (investments, crypto, property, vehicles, other assets) take each valuation as
-- their value from that day on.
ALTER TABLE valuations DROP CONSTRAINT valuations_kind_check;
ALTER TABLE valuations ADD CONSTRAINT valuations_kind_check
    CHECK (kind IN ('reconciliation', 'opening_anchor', 'current_anchor', 'checkpoint'));

-- A balance typed at a moment: the day's transactions added after it move it forward, those
-- added before it are in it. NULL (a bank's balance at a day's end) takes in the whole day.
ALTER TABLE valuations ADD COLUMN as_of timestamptz;
UPDATE valuations v SET as_of = e.created_at
FROM entries e
WHERE e.id = v.entry_id AND v.kind = 'opening_anchor' AND e.source IS NULL AND e.import_id IS NULL;

-- An account's anchors and checkpoints, read on every balance.
CREATE INDEX entries_valuations_idx ON entries (account_id, date) WHERE kind = 'valuation';
