DROP INDEX entries_merchant_idx;
DROP INDEX entries_search_idx;
ALTER TABLE entries DROP COLUMN search_text;
DROP FUNCTION search_pattern(text);
DROP FUNCTION search_fold(text);
-- The extensions stay: another schema object may use them, and they cost nothing unused.
