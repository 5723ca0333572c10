DELETE FROM transaction_changes WHERE rule_id IS NULL;
ALTER INDEX transaction_changes_family_idx RENAME TO rule_applications_family_idx;
ALTER INDEX transaction_changes_pkey RENAME TO rule_applications_pkey;
ALTER TABLE transaction_changes RENAME TO rule_applications;
