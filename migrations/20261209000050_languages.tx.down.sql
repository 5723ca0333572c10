ALTER TABLE users DROP COLUMN language;
ALTER TABLE families DROP COLUMN language;
