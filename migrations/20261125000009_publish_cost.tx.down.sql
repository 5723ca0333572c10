DROP INDEX IF EXISTS entries_valuation_idx;
ALTER TABLE imports ALTER COLUMN content SET COMPRESSION default;
DROP TRIGGER IF EXISTS imports_delete_rows ON imports;
DROP FUNCTION IF EXISTS import_rows_cascade();
DELETE FROM import_rows r WHERE NOT EXISTS (SELECT 1 FROM imports i WHERE i.id = r.import_id);
ALTER TABLE import_rows ADD FOREIGN KEY (import_id) REFERENCES imports (id) ON DELETE CASCADE;
