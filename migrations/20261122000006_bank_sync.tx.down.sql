DROP TABLE IF EXISTS bank_accounts;
DROP TABLE IF EXISTS bank_connections;
