-- The language of the pages and mails: the family's, chosen at onboarding, and each person's
-- own, NULL to follow the family's. Separate from locale, which is how numbers are written.
ALTER TABLE families ADD COLUMN language text NOT NULL DEFAULT 'en';
ALTER TABLE users ADD COLUMN language text;
