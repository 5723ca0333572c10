-- What Tally read off a CSV file because the request did not say (the name column, the
-- separator, the date format...), the file's headers, and those it reads for nothing.
ALTER TABLE imports ADD COLUMN guessed text[] NOT NULL DEFAULT '{}';
ALTER TABLE imports ADD COLUMN unmapped_columns text[] NOT NULL DEFAULT '{}';
ALTER TABLE imports ADD COLUMN headers text[] NOT NULL DEFAULT '{}';
