ALTER TABLE imports DROP COLUMN IF EXISTS date_choices;
