-- Search finds every word of a query, in any order, whatever its case and accents ("rewe
-- grunwald" finds "REWE Markt Grünwald"), through a trigram index of the folded text.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- search_fold is text as search compares it: lower case, without accents (ß is ss). unaccent()
-- is only STABLE, as its dictionary could change; an index needs an IMMUTABLE function, and
-- Tally never changes the dictionary. The SQL-standard body binds the function and the
-- dictionary when it is created, so no search_path can make it read another.
CREATE FUNCTION search_fold(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN lower(unaccent('unaccent'::regdictionary, $1));

-- search_pattern is the LIKE pattern of text found anywhere in a folded text: folded first,
-- then escaped, as folding can make a LIKE wildcard (a full-width ％ becomes %).
CREATE FUNCTION search_pattern(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN '%' || replace(replace(replace(search_fold($1), '\', '\\'), '%', '\%'), '_', '\_') || '%';

-- A transaction's name and notes as search reads them, kept with the row: a word that many
-- transactions have is then compared with each of them as plain text, ten times faster than
-- folding each again, and the column's statistics tell the planner how many have it.
ALTER TABLE entries ADD COLUMN search_text text GENERATED ALWAYS AS (search_fold(name || ' ' || notes)) STORED;
-- The transactions the lists read (not valuations, trades or the parts of a split): a word is
-- found in their name or notes through this index.
CREATE INDEX entries_search_idx ON entries USING gin (search_text gin_trgm_ops)
    WHERE kind = 'transaction' AND parent_id IS NULL;

-- A word is also found in the merchant's name: the entries of the merchants whose name has it
-- are read through this index. It also serves the merchant filter, and a merchant's deletion
-- or merge, which would otherwise read every entry.
CREATE INDEX entries_merchant_idx ON entries (merchant_id) WHERE merchant_id IS NOT NULL;
