-- The date formats a file's dates fit when they read as different dates in each (03/04/2026):
-- the file leaves the choice to a person, who is asked.
ALTER TABLE imports ADD COLUMN date_choices text[] NOT NULL DEFAULT '{}';
