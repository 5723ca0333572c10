ALTER TABLE tags DROP COLUMN claimed;
ALTER TABLE merchants DROP COLUMN claimed;
