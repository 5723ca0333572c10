ALTER TABLE families DROP CONSTRAINT families_language_set;
