ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_import_id_fkey;
ALTER TABLE categories DROP CONSTRAINT IF EXISTS categories_import_id_fkey;
ALTER TABLE tags DROP CONSTRAINT IF EXISTS tags_import_id_fkey;
ALTER TABLE merchants DROP CONSTRAINT IF EXISTS merchants_import_id_fkey;
ALTER TABLE rules DROP CONSTRAINT IF EXISTS rules_import_id_fkey;
DROP INDEX IF EXISTS categories_import_id_idx, tags_import_id_idx, merchants_import_id_idx, rules_import_id_idx;
DROP TABLE IF EXISTS import_mappings, import_rows, import_progress, imports;
