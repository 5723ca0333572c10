-- A transaction is one side of one transfer at most.
DELETE FROM transfers t USING transfers d
WHERE (d.inflow_entry_id = t.inflow_entry_id OR d.outflow_entry_id = t.outflow_entry_id) AND d.id < t.id;
CREATE UNIQUE INDEX transfers_inflow_entry_key ON transfers (inflow_entry_id);
CREATE UNIQUE INDEX transfers_outflow_entry_key ON transfers (outflow_entry_id);
DROP INDEX transfers_outflow_entry_id_idx;
CREATE INDEX transfers_family_idx ON transfers (family_id, created_at);
-- Rejected pairs are looked up from either side.
CREATE INDEX rejected_transfers_inflow_entry_id_idx ON rejected_transfers (inflow_entry_id);

-- Transfer matching looks for the opposite amount near a date among the family's transactions.
CREATE INDEX entries_transfer_match_idx ON entries (family_id, amount, date)
    WHERE kind = 'transaction' AND parent_id IS NULL;
