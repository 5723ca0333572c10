DROP TABLE IF EXISTS rule_applications;
ALTER TABLE entries DROP COLUMN locked_fields, DROP COLUMN original_name;
DROP INDEX IF EXISTS rules_family_position_idx;
ALTER TABLE rules DROP COLUMN position, DROP COLUMN match, DROP COLUMN continue_matching;
