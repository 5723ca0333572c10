-- The character that quotes a CSV file's fields: " as usual, or ' as some exports write.
ALTER TABLE imports ADD COLUMN quote_char text NOT NULL DEFAULT '"' CHECK (quote_char IN ('"', ''''));
