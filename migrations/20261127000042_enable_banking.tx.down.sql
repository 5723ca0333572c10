DROP TABLE bank_aspsps;
DROP TABLE bank_authorizations;
ALTER TABLE bank_accounts DROP COLUMN account_key, DROP COLUMN iban;
DELETE FROM bank_connections WHERE provider <> 'simplefin';
DROP INDEX bank_connections_consent_idx;
ALTER TABLE bank_connections DROP CONSTRAINT bank_connections_credentials_check;
ALTER TABLE bank_connections DROP CONSTRAINT bank_connections_status_check;
UPDATE bank_connections SET status = 'good' WHERE status = 'needs_renewal';
ALTER TABLE bank_connections ADD CONSTRAINT bank_connections_status_check CHECK (status IN ('good', 'needs_token'));
ALTER TABLE bank_connections
    DROP COLUMN consent_notice_days,
    DROP COLUMN consent_expires_at,
    DROP COLUMN aspsp_country,
    DROP COLUMN aspsp_name,
    DROP COLUMN session_id,
    ALTER COLUMN access_url SET NOT NULL,
    DROP COLUMN provider;
