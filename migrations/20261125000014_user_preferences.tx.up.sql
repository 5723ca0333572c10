-- How a person reads amounts and dates on the pages: a locale for the number style and a date
-- format, set on their profile page.
ALTER TABLE users ADD COLUMN locale text NOT NULL DEFAULT 'en-US';
ALTER TABLE users ADD COLUMN date_format text NOT NULL DEFAULT '%Y-%m-%d';
