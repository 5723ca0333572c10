DROP FUNCTION search_umlaut_regex(text);
DROP FUNCTION search_pattern_de(text);
DROP FUNCTION search_fold_de(text);
