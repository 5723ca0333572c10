-- Families made outside onboarding (by an administrator, the CLI or a first single sign-on)
-- were stored with an empty language, which no page offers: they read the default, English.
-- Say so, and let no empty one in again.
UPDATE families SET language = 'en' WHERE language = '';
ALTER TABLE families ADD CONSTRAINT families_language_set CHECK (language <> '');
