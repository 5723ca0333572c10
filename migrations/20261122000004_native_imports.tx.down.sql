DROP INDEX IF EXISTS balances_import_id_idx, holdings_import_id_idx, budgets_import_id_idx,
    budget_categories_import_id_idx, recurring_transactions_import_id_idx, transfers_import_id_idx,
    rejected_transfers_import_id_idx;
DROP TABLE IF EXISTS import_links;
DROP TABLE IF EXISTS import_chunks;
DROP INDEX IF EXISTS imports_client_session_key;
ALTER TABLE imports DROP COLUMN IF EXISTS expected_record_counts, DROP COLUMN IF EXISTS readback,
    DROP COLUMN IF EXISTS summary, DROP COLUMN IF EXISTS problems, DROP COLUMN IF EXISTS warnings,
    DROP COLUMN IF EXISTS session, DROP COLUMN IF EXISTS client_session_id,
    DROP COLUMN IF EXISTS expected_chunks, DROP COLUMN IF EXISTS statement;
