-- Private accounts whose owner left (issue 44). Before members' private accounts were handed
-- to the family as they leave it (models.ShareWhenLeaving), a member removed, deleted or
-- joining another family left them private to nobody: owner_id NULL (the user deleted) or a
-- user of another family, hidden from everyone and unreachable. Each becomes a shared account
-- of its family without an owner, as the leaving does now, and forgets the members it was
-- shared with; nothing else is lost.
UPDATE accounts a SET private = false, owner_id = NULL, updated_at = now(), updated_by = NULL, updated_via = NULL
WHERE a.private AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = a.owner_id AND u.family_id = a.family_id);
DELETE FROM account_shares s USING accounts a WHERE s.account_id = a.id AND NOT a.private;
-- What else a leaver held in the family: the shared accounts they owned (which only an owner
-- may make private), the accounts shared with them, and their own bank connections, whose
-- accounts are now shared, become the family's.
UPDATE accounts a SET owner_id = NULL
WHERE a.owner_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = a.owner_id AND u.family_id = a.family_id);
DELETE FROM account_shares s USING accounts a, users u
WHERE s.account_id = a.id AND u.id = s.user_id AND u.family_id <> a.family_id;
UPDATE bank_connections c SET user_id = NULL, updated_at = now()
WHERE c.user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = c.user_id AND u.family_id = c.family_id);
