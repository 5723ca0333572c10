-- A merchant or a tag that only private accounts use is kept from the members who may not see
-- those accounts. When such a member names a new one exactly as a kept one is named, Tally
-- gives them the existing record rather than saying the name is taken (which would tell of the
-- private transactions), and marks it claimed: seen by every member from then on.
ALTER TABLE merchants ADD COLUMN claimed boolean NOT NULL DEFAULT false;
ALTER TABLE tags ADD COLUMN claimed boolean NOT NULL DEFAULT false;
