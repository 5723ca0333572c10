DROP INDEX entries_transfer_match_idx;
DROP INDEX rejected_transfers_inflow_entry_id_idx;
DROP INDEX transfers_family_idx;
CREATE INDEX transfers_outflow_entry_id_idx ON transfers (outflow_entry_id);
DROP INDEX transfers_outflow_entry_key;
DROP INDEX transfers_inflow_entry_key;
