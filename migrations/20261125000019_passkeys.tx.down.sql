DROP TABLE passkeys;
