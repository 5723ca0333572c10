-- People who followed their family keep what they saw: the family's style becomes theirs.
UPDATE users u SET locale = f.locale FROM families f WHERE f.id = u.family_id AND u.locale = '';
UPDATE users u SET date_format = f.date_format FROM families f WHERE f.id = u.family_id AND u.date_format = '';
ALTER TABLE users ALTER COLUMN date_format SET DEFAULT '%Y-%m-%d';
ALTER TABLE users ALTER COLUMN locale SET DEFAULT 'en-US';
ALTER TABLE families ALTER COLUMN locale SET DEFAULT 'en';
ALTER TABLE families DROP COLUMN IF EXISTS week_start;
