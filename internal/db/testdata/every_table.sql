-- A family's data with at least one row in every table of Tally's schema, for
-- TestEveryDownMigrationAsksBeforeDestroyingData (migrate_test.go). A migration that adds a
-- table adds a row for it here. Where a down migration deletes some rows of a table (the
-- event types, import types and statuses a later migration added), rows of those kinds are
-- here too, so that the test sees it.

-- The family and its people.
INSERT INTO families (id, name, currency, locale, timezone, week_start)
VALUES ('f0000000-0000-4000-8000-000000000001', 'The Okafors', 'EUR', 'en-GB', 'Europe/London', 'sunday');
INSERT INTO users (id, family_id, email, password_hash, first_name, last_name, role, family_creator, role_source, locale, date_format)
VALUES ('f0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'ada@example.com',
        '$argon2id$v=19$m=65536,t=1,p=4$c2FsdHNhbHQ$aGFzaGhhc2g', 'Ada', 'Okafor', 'admin', true, 'sso', 'en-GB', '%d/%m/%Y'),
       ('f0000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', 'ben@example.com',
        NULL, 'Ben', 'Okafor', 'member', false, 'local', '', ''),
       ('f0000000-0000-4000-8000-000000000009', 'f0000000-0000-4000-8000-000000000001', 'cleo@example.com',
        NULL, 'Cleo', 'Okafor', 'viewer', false, 'local', '', '');
INSERT INTO sessions (token, data, expiry, user_id, ip_address, user_agent)
VALUES ('session-token-1', '\x00', now() + interval '1 day', 'f0000000-0000-4000-8000-000000000002', '192.0.2.1', 'Firefox');
INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scope)
VALUES ('f0000000-0000-4000-8000-000000000004', 'f0000000-0000-4000-8000-000000000002', 'Phone', 'tly_ab12', 'hash-of-key', 'read_write');
INSERT INTO password_resets (id, user_id, token_hash, expires_at)
VALUES ('f0000000-0000-4000-8000-000000000005', 'f0000000-0000-4000-8000-000000000003', 'hash-of-reset', now() + interval '1 hour');
INSERT INTO rate_limits (key, window_start, count) VALUES ('login:ada@example.com', date_trunc('minute', now()), 2);
INSERT INTO idempotency_keys (user_id, key, fingerprint, status, response)
VALUES ('f0000000-0000-4000-8000-000000000002', 'create-account-1', '\xdeadbeef', 201, '{"id": "x"}');
INSERT INTO user_totp (user_id, secret, confirmed_at) VALUES ('f0000000-0000-4000-8000-000000000002', 'JBSWY3DPEHPK3PXP', now());
INSERT INTO recovery_codes (id, user_id, code_hash)
VALUES ('f0000000-0000-4000-8000-000000000006', 'f0000000-0000-4000-8000-000000000002', '\x0102');
INSERT INTO passkeys (id, user_id, credential_id, credential, name)
VALUES ('f0000000-0000-4000-8000-000000000007', 'f0000000-0000-4000-8000-000000000002', '\x0a0b', '{"id": "CgsK"}', 'Laptop');
INSERT INTO known_browsers (id, user_id, mark_hash, user_agent, ip_address, expires_at)
VALUES ('f0000000-0000-4000-8000-000000000008', 'f0000000-0000-4000-8000-000000000002', '\x0c0d', 'Firefox', '192.0.2.1',
        now() + interval '180 days');

-- Single sign-on and OAuth.
INSERT INTO sso_providers (id, strategy, name, label, issuer, client_id, client_secret, trust_second_factor, second_factor_values)
VALUES ('f0000000-0000-4000-8000-000000000010', 'openid_connect', 'corp', 'Corp SSO', 'https://sso.example.com', 'tally',
        'secret', true, '{mfa}');
INSERT INTO sso_identities (id, user_id, provider, subject, issuer, email)
VALUES ('f0000000-0000-4000-8000-000000000011', 'f0000000-0000-4000-8000-000000000002', 'corp', 'ada-1',
        'https://sso.example.com', 'ada@example.com');
INSERT INTO sso_flows (state, flow, binding, expires_at) VALUES ('state-1', '{}', 'browser-1', now() + interval '10 minutes');
INSERT INTO sso_saml_assertions (id, expires_at) VALUES ('assertion-1', now() + interval '1 hour');
INSERT INTO sso_audit_logs (id, event_type, user_id, provider, ip_address)
VALUES ('f0000000-0000-4000-8000-000000000012', 'login', 'f0000000-0000-4000-8000-000000000002', 'corp', '192.0.2.1'),
       ('f0000000-0000-4000-8000-000000000013', 'oauth_grant', 'f0000000-0000-4000-8000-000000000002', NULL, '192.0.2.1'),
       ('f0000000-0000-4000-8000-000000000014', 'mfa_enabled', 'f0000000-0000-4000-8000-000000000002', NULL, '192.0.2.1'),
       ('f0000000-0000-4000-8000-000000000015', 'webhook_changed', 'f0000000-0000-4000-8000-000000000002', NULL, '192.0.2.1'),
       ('f0000000-0000-4000-8000-000000000016', 'bank_consent', 'f0000000-0000-4000-8000-000000000002', NULL, '192.0.2.1'),
       ('f0000000-0000-4000-8000-000000000017', 'invitation_created', 'f0000000-0000-4000-8000-000000000002', NULL, '192.0.2.1');
INSERT INTO invitations (id, family_id, email, role, token_hash, invited_by, expires_at)
VALUES ('f0000000-0000-4000-8000-000000000018', 'f0000000-0000-4000-8000-000000000001', 'dara@example.com', 'member',
        'hash-of-invitation', 'f0000000-0000-4000-8000-000000000002', now() + interval '7 days');
INSERT INTO oauth_clients (id, name, secret_hash, redirect_uris, owner_user_id)
VALUES ('budget-app', 'Budget app', 'hash-of-secret', '{https://app.example.com/callback}', 'f0000000-0000-4000-8000-000000000002');
INSERT INTO oauth_tokens (kind, signature, request_id, client_id, user_id, requested_at, expires_at, granted_scopes)
VALUES ('refresh', 'signature-1', 'request-1', 'budget-app', 'f0000000-0000-4000-8000-000000000002', now(),
        now() + interval '30 days', '{read}');

-- Accounts, and what they are sorted by.
INSERT INTO accounts (id, family_id, name, accountable_type, currency, balance)
VALUES ('a0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001', 'Current account', 'Depository', 'EUR', 1830.50),
       ('a0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'Savings', 'Depository', 'EUR', 5000),
       ('a0000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', 'Brokerage', 'Investment', 'EUR', 1200);
UPDATE accounts SET private = true, owner_id = 'f0000000-0000-4000-8000-000000000002'
 WHERE id = 'a0000000-0000-4000-8000-000000000002';
INSERT INTO account_shares (account_id, user_id)
VALUES ('a0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000003');
INSERT INTO categories (id, family_id, parent_id, name, classification, budget_rollover)
VALUES ('c0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001', NULL, 'Food', 'expense', 'surplus'),
       ('c0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-000000000001',
        'Groceries', 'expense', 'off'),
       ('c0000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', NULL, 'Salary', 'income', 'off');
INSERT INTO merchants (id, family_id, name) VALUES ('c0000000-0000-4000-8000-000000000010', 'f0000000-0000-4000-8000-000000000001', 'Corner Grocer');
INSERT INTO merchant_names (family_id, name, merchant_id)
VALUES ('f0000000-0000-4000-8000-000000000001', 'corner grocer', 'c0000000-0000-4000-8000-000000000010');
INSERT INTO tags (id, family_id, name) VALUES ('c0000000-0000-4000-8000-000000000020', 'f0000000-0000-4000-8000-000000000001', 'Holiday');
INSERT INTO securities (id, ticker, name, exchange_operating_mic) VALUES ('c0000000-0000-4000-8000-000000000030', 'VWRL', 'Vanguard FTSE All-World', 'XLON');

-- An import, with its rows and what it made.
INSERT INTO imports (id, family_id, user_id, type, status, account_id, date_col_label, amount_col_label, name_col_label,
                     filename, content, expected_record_counts, readback, summary, problems, warnings, client_session_id,
                     expected_chunks, statement, statements, guessed, unmapped_columns, headers, debit_col_label,
                     credit_col_label, fee_col_label, preset, skipped_rows, date_choices, quote_char, balance_col_label,
                     keep_likely_duplicates, likely_duplicate_rows_count)
VALUES ('10000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000002',
        'TransactionImport', 'complete', 'a0000000-0000-4000-8000-000000000001', 'Date', 'Amount', 'Description',
        'bank.csv', 'Date,Amount,Description', '{"Transaction": 1}', '{}', '{}', '[]', '[]',
        'session-1', 1, '{}', '[]', '{date}', '{Reference}', '{Date,Amount,Description,Reference}', 'Debit', 'Credit', 'Fee',
        'bank', 1, '{%Y-%m-%d}', '''', 'Balance', true, 1),
       ('10000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000002',
        'OfxImport', 'pending', 'a0000000-0000-4000-8000-000000000002', NULL, NULL, NULL,
        'savings.ofx', '<OFX></OFX>', NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, '[{"account": "1234"}]', '{}', '{}', '{}', NULL, NULL, NULL, NULL, 0, '{}', '"', NULL, false, 0);
-- A move-in from Actual Budget, dry run only: migration 060 removes its type and column.
INSERT INTO imports (id, family_id, user_id, type, status, filename, content, move_in)
VALUES ('10000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000002',
        'ActualImport', 'pending', 'budget.zip', '{}', '{"counts": {"accounts": 1}}');
UPDATE imports SET profile_id = 'c0000000-0000-4000-8000-000000000040' WHERE id = '10000000-0000-4000-8000-000000000001';
INSERT INTO import_profiles (id, family_id, account_id, name, headers, settings)
VALUES ('c0000000-0000-4000-8000-000000000040', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        'Bank CSV', '{Date,Amount,Description}', '{"date_col_label": "Date"}');
INSERT INTO import_rows (import_id, row_number, line, raw, record_id, date, amount, currency, name, keep)
VALUES ('10000000-0000-4000-8000-000000000001', 1, 2, '{2026-11-03,-42.10,Corner Grocer}', 'e0000000-0000-4000-8000-000000000001',
        '2026-11-03', -42.10, 'EUR', 'Corner Grocer', true);
INSERT INTO import_mappings (id, import_id, kind, key, target_id)
VALUES ('10000000-0000-4000-8000-000000000010', '10000000-0000-4000-8000-000000000001', 'category', 'Groceries',
        'c0000000-0000-4000-8000-000000000002');
INSERT INTO import_progress (import_id, done, total) VALUES ('10000000-0000-4000-8000-000000000001', 1, 1);
INSERT INTO import_chunks (import_id, sequence, client_chunk_id, sha256, content, byte_size, rows_count, status)
VALUES ('10000000-0000-4000-8000-000000000001', 1, 'chunk-1', '\x00', '\x00', 1, 1, 'complete');
INSERT INTO import_links (import_id, entity, record_id, role)
VALUES ('10000000-0000-4000-8000-000000000001', 'merchant', 'c0000000-0000-4000-8000-000000000010', 'merged');
INSERT INTO import_undo (import_id, target, record_id, previous)
VALUES ('10000000-0000-4000-8000-000000000001', 'category', 'c0000000-0000-4000-8000-000000000002', '{"name": "Groceries"}'),
       ('10000000-0000-4000-8000-000000000001', 'entry', 'e0000000-0000-4000-8000-000000000001', '{"name": "CORNER GROCER"}');
INSERT INTO account_identifiers (family_id, key, account_id, import_id)
VALUES ('f0000000-0000-4000-8000-000000000001', 'iban:GB33BUKB20201555555555', 'a0000000-0000-4000-8000-000000000001',
        '10000000-0000-4000-8000-000000000001');

-- Entries: a purchase, a salary, a transfer, a trade and balance anchors.
INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, merchant_id, tag_ids,
                     import_id, locked_fields, original_name)
VALUES ('e0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        'transaction', '2026-11-03', 42.10, 'EUR', 'Corner Grocer', 'c0000000-0000-4000-8000-000000000002',
        'c0000000-0000-4000-8000-000000000010', '{c0000000-0000-4000-8000-000000000020}', '10000000-0000-4000-8000-000000000001',
        '{category_id}', 'CORNER GROCER 0311'),
       ('e0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        'transaction', '2026-11-01', -2500, 'EUR', 'Salary', 'c0000000-0000-4000-8000-000000000003', NULL, '{}', NULL, '{}', NULL),
       ('e0000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        'transaction', '2026-11-05', 500, 'EUR', 'To savings', NULL, NULL, '{}', NULL, '{}', NULL),
       ('e0000000-0000-4000-8000-000000000004', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002',
        'transaction', '2026-11-05', -500, 'EUR', 'From current account', NULL, NULL, '{}', NULL, '{}', NULL),
       ('e0000000-0000-4000-8000-000000000005', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000003',
        'trade', '2026-11-06', 1200, 'EUR', 'Buy 12 VWRL', NULL, NULL, '{}', NULL, '{}', NULL),
       ('e0000000-0000-4000-8000-000000000006', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002',
        'valuation', '2026-10-01', 4500, 'EUR', 'Opening balance', NULL, NULL, '{}', NULL, '{}', NULL),
       ('e0000000-0000-4000-8000-000000000007', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002',
        'valuation', '2026-11-10', 5000, 'EUR', 'Balance checked', NULL, NULL, '{}', NULL, '{}', NULL);
INSERT INTO trades (entry_id, security_id, qty, price, fee, currency)
VALUES ('e0000000-0000-4000-8000-000000000005', 'c0000000-0000-4000-8000-000000000030', 12, 100, 1.5, 'EUR');
INSERT INTO valuations (entry_id, kind, as_of)
VALUES ('e0000000-0000-4000-8000-000000000006', 'opening_anchor', NULL),
       ('e0000000-0000-4000-8000-000000000007', 'checkpoint', '2026-11-10 18:00:00+00');
INSERT INTO transfers (id, family_id, inflow_entry_id, outflow_entry_id, status)
VALUES ('e0000000-0000-4000-8000-000000000010', 'f0000000-0000-4000-8000-000000000001', 'e0000000-0000-4000-8000-000000000004',
        'e0000000-0000-4000-8000-000000000003', 'confirmed');
INSERT INTO rejected_transfers (id, family_id, inflow_entry_id, outflow_entry_id)
VALUES ('e0000000-0000-4000-8000-000000000011', 'f0000000-0000-4000-8000-000000000001', 'e0000000-0000-4000-8000-000000000002',
        'e0000000-0000-4000-8000-000000000001');
INSERT INTO holdings (id, family_id, account_id, security_id, date, qty, price, amount, currency, cost_basis, cost_basis_source)
VALUES ('e0000000-0000-4000-8000-000000000020', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000003',
        'c0000000-0000-4000-8000-000000000030', '2026-11-06', 12, 100, 1200, 'EUR', 1201.5, 'calculated');
INSERT INTO balances (id, family_id, account_id, date, currency, balance, cash_balance)
VALUES ('e0000000-0000-4000-8000-000000000021', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        '2026-11-05', 'EUR', 1830.50, 1830.50);

-- Rules and what they changed.
INSERT INTO rules (id, family_id, name, active, conditions, actions, position, match, continue_matching)
VALUES ('b0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001', 'Groceries', true,
        '[{"type": "transaction_name", "operator": "like", "value": "grocer"}]',
        '[{"type": "set_transaction_category", "value": "c0000000-0000-4000-8000-000000000002"}]', 1, 'any', true);
INSERT INTO transaction_changes (id, family_id, rule_id, changed, previous, undo_until)
VALUES ('b0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001',
        1, '[]', now() + interval '1 day'),
       ('b0000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', NULL, 1, '[]', now() + interval '1 day');

-- Budgets.
INSERT INTO budgets (id, family_id, start_date, end_date, budgeted_spending, expected_income, currency)
VALUES ('b0000000-0000-4000-8000-000000000010', 'f0000000-0000-4000-8000-000000000001', '2026-11-01', '2026-11-30', 800, 2500, 'EUR');
INSERT INTO budget_categories (id, family_id, budget_id, category_id, budgeted_spending, currency)
VALUES ('b0000000-0000-4000-8000-000000000011', 'f0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000010',
        'c0000000-0000-4000-8000-000000000002', 400, 'EUR');
INSERT INTO category_goals (id, family_id, category_id, kind, amount, by_month, currency)
VALUES ('b0000000-0000-4000-8000-000000000013', 'f0000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-000000000002',
        'balance', 1200, '2027-06-01', 'EUR');
INSERT INTO budget_moves (id, family_id, month, from_category_id, to_category_id, amount, currency, reason, created_by)
VALUES ('b0000000-0000-4000-8000-000000000012', 'f0000000-0000-4000-8000-000000000001', '2026-11-01',
        'c0000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-000000000002', 50, 'EUR', 'Party',
        'f0000000-0000-4000-8000-000000000002');

-- Recurring payments: one confirmed, one Tally proposes, one ignored.
INSERT INTO recurring_transactions (id, family_id, account_id, merchant_id, name, amount, currency, expected_day_of_month,
                                    last_occurrence_date, next_expected_date, status, "interval", category_id, confidence,
                                    match_key, last_amount)
VALUES ('b0000000-0000-4000-8000-000000000020', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        'c0000000-0000-4000-8000-000000000010', 'Veg box', 42.10, 'EUR', 3, '2026-11-03', '2026-12-03', 'confirmed', 'monthly',
        'c0000000-0000-4000-8000-000000000002', 0.9, 'm:corner grocer', 42.10),
       ('b0000000-0000-4000-8000-000000000021', 'f0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000001',
        NULL, 'Salary', -2500, 'EUR', 1, '2026-11-01', '2026-12-01', 'proposed', 'monthly', NULL, 0.6, 'n:salary', -2500),
       ('b0000000-0000-4000-8000-000000000022', 'f0000000-0000-4000-8000-000000000001', NULL,
        NULL, 'Gym', 30, 'EUR', 15, '2026-10-15', '2026-11-15', 'ignored', 'monthly', NULL, 0.5, 'n:gym', 30);

-- Bank sync: a SimpleFIN connection and an Enable Banking one.
INSERT INTO bank_connections (id, family_id, name, access_url, status, provider, session_id, aspsp_name, aspsp_country,
                              consent_expires_at, consent_notice_days)
VALUES ('d0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001', 'SimpleFIN', 'https://bridge.example.com/x',
        'good', 'simplefin', NULL, NULL, NULL, NULL, NULL),
       ('d0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001', 'Nordea', NULL,
        'needs_renewal', 'enable_banking', 'session-1', 'Nordea', 'FI', now() + interval '5 days', 7),
       ('d0000000-0000-4000-8000-000000000003', 'f0000000-0000-4000-8000-000000000001', 'OP', NULL,
        'failing', 'enable_banking', 'session-2', 'OP', 'FI', now() + interval '90 days', 7);
INSERT INTO bank_accounts (id, connection_id, family_id, provider_account_id, name, currency, balance, account_id, iban, account_key)
VALUES ('d0000000-0000-4000-8000-000000000003', 'd0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000001',
        'ACT-1', 'Current account', 'EUR', 1830.50, 'a0000000-0000-4000-8000-000000000001', 'GB33BUKB20201555555555', 'key-1'),
       ('d0000000-0000-4000-8000-000000000004', 'd0000000-0000-4000-8000-000000000002', 'f0000000-0000-4000-8000-000000000001',
        'nordea-1', 'Savings', 'EUR', 5000, 'a0000000-0000-4000-8000-000000000002', 'FI2112345600000785', 'key-2');
INSERT INTO bank_authorizations (id, family_id, user_id, state_hash, aspsp_name, aspsp_country, history_days, authorization_url,
                                 connection_id, renewal, expires_at)
VALUES ('d0000000-0000-4000-8000-000000000005', 'f0000000-0000-4000-8000-000000000001', 'f0000000-0000-4000-8000-000000000002',
        'hash-of-state', 'Nordea', 'FI', 90, 'https://bank.example.com/auth', 'd0000000-0000-4000-8000-000000000002', true,
        now() + interval '1 hour');
INSERT INTO bank_aspsps (country, aspsps, fetched_at) VALUES ('FI', '[{"name": "Nordea"}]', now());

-- Webhooks.
INSERT INTO webhook_endpoints (id, family_id, url, events, secret)
VALUES ('d0000000-0000-4000-8000-000000000010', 'f0000000-0000-4000-8000-000000000001', 'https://hooks.example.com/tally',
        '{transaction.created}', 'webhook-secret');
INSERT INTO webhook_events (id, family_id, type, data)
VALUES ('d0000000-0000-4000-8000-000000000011', 'f0000000-0000-4000-8000-000000000001', 'transaction.created', '{"id": "x"}');
INSERT INTO webhook_deliveries (id, endpoint_id, event_id, family_id, status, attempts, response_status)
VALUES ('d0000000-0000-4000-8000-000000000012', 'd0000000-0000-4000-8000-000000000010', 'd0000000-0000-4000-8000-000000000011',
        'f0000000-0000-4000-8000-000000000001', 'succeeded', 1, 200);

-- Exchange rates: the ECB's, and one the family set.
INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source)
VALUES ('d0000000-0000-4000-8000-000000000020', NULL, '2026-11-02', 'EUR', 'USD', 1.08, 'ecb'),
       ('d0000000-0000-4000-8000-000000000021', 'f0000000-0000-4000-8000-000000000001', '2026-11-02', 'EUR', 'GBP', 0.87, 'manual');

-- The rates feed's last fetches.
INSERT INTO fx_feed_status (last_success_at, failing_since, last_failure_at, last_error)
VALUES (now() - interval '2 days', now() - interval '1 day', now(), 'lookup rates host: no such host');
