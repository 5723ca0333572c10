-- What a rule applied to the history changed, kept for its undo, is now any change of many
-- transactions at once: a rule's (rule_id set) or a person's bulk edit (rule_id NULL).
ALTER TABLE rule_applications RENAME TO transaction_changes;
ALTER INDEX rule_applications_pkey RENAME TO transaction_changes_pkey;
ALTER INDEX rule_applications_family_idx RENAME TO transaction_changes_family_idx;
