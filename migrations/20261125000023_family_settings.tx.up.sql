-- Settings › Family: the week's first day joins the family's locale, date format and time
-- zone. Families were made with the locale 'en', which no page offers: it is the default
-- number style, en-US, by name now.
ALTER TABLE families ADD COLUMN week_start text NOT NULL DEFAULT 'monday' CHECK (week_start IN ('monday', 'sunday'));
UPDATE families SET locale = 'en-US' WHERE locale = 'en';
ALTER TABLE families ALTER COLUMN locale SET DEFAULT 'en-US';

-- A person's number style and date format are now optional: '' follows the family's. The
-- old defaults could not be told from a choice, and they were what every family showed, so
-- people who kept them follow their family from now on (and see nothing change until a
-- family admin picks another style).
ALTER TABLE users ALTER COLUMN locale SET DEFAULT '';
ALTER TABLE users ALTER COLUMN date_format SET DEFAULT '';
UPDATE users SET locale = '' WHERE locale = 'en-US';
UPDATE users SET date_format = '' WHERE date_format = '%Y-%m-%d';
