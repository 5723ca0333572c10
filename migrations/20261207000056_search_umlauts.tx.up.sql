-- Search folds German umlauts both ways: "gruenwald" finds "Grünwald", as people without a
-- German keyboard type it, and "grünwald" finds "Gruenwald", as banks that write umlauts out
-- print it (ß and ss are one already: unaccent folds ß to ss). search_text folds ü to u, so it
-- cannot tell "Grünwald" from "Grunwald"; rather than change its expression, which would
-- rewrite every row of entries, a search word with an umlaut or ae, oe, ue is looked for
-- through the same trigram index by a pattern that takes either spelling
-- (search_umlaut_regex), and each row found is compared with both sides spelled out
-- (search_fold_de). Only functions are added here.

-- search_fold_de is text as search compares it with the umlauts spelled out: ä, ö, ü as ae,
-- oe, ue, then folded by search_fold. The capitals are replaced apart, as lower() leaves them
-- alone in a database of the C locale.
CREATE FUNCTION search_fold_de(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN search_fold(replace(replace(replace(replace(replace(replace($1,
        'ä', 'ae'), 'ö', 'oe'), 'ü', 'ue'), 'Ä', 'Ae'), 'Ö', 'Oe'), 'Ü', 'Ue'));

-- search_pattern_de is the LIKE pattern of text found anywhere in a text folded by
-- search_fold_de, escaped as search_pattern is.
CREATE FUNCTION search_pattern_de(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN '%' || replace(replace(replace(search_fold_de($1), '\', '\\'), '%', '\%'), '_', '\_') || '%';

-- search_umlaut_regex is a regular expression that finds in search_text every text whose
-- search_fold_de holds text's: text spelled out, its other characters escaped, and each ae,
-- oe, ue with its e or without (search_fold wrote ä as a). The trigram index reads it.
CREATE FUNCTION search_umlaut_regex(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN regexp_replace(regexp_replace(search_fold_de($1), '([^[:alnum:][:space:]])', '\\\1', 'g'), '([aou])e', '\1e?', 'g');
