-- Bank statement files (OFX/QFX, camt.05x, MT940/MT942): three import types, what each of a
-- file's statements says about itself, the accounts a family has linked to a bank's account
-- identifiers, and the entries a publish corrected in place.

ALTER TABLE imports DROP CONSTRAINT imports_type_check;
ALTER TABLE imports ADD CONSTRAINT imports_type_check CHECK (type IN (
    'TransactionImport', 'TradeImport', 'AccountImport', 'ExternalAppAImport', 'ExternalAppBImport',
    'ExternalAppCImport', 'CategoryImport', 'RuleImport', 'MerchantImport', 'PdfImport', 'QifImport',
    'NativeImport', 'OfxImport', 'CamtImport', 'Mt940Import'));

-- One entry per statement of the file: its account, balances, period and reconciliation.
ALTER TABLE imports ADD COLUMN statements jsonb;

-- A bank's identifier of an account (an IBAN, or bank id and number) and the family's account
-- it stands for, remembered so that the next file of that account needs no mapping.
CREATE TABLE account_identifiers (
    family_id  uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    key        text NOT NULL,
    account_id uuid NOT NULL,
    -- The import that made the link; its revert removes it.
    import_id  uuid REFERENCES imports (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (family_id, key),
    FOREIGN KEY (account_id, family_id) REFERENCES accounts (id, family_id) ON DELETE CASCADE
);
CREATE INDEX account_identifiers_account_idx ON account_identifiers (account_id);
CREATE INDEX account_identifiers_import_idx ON account_identifiers (import_id) WHERE import_id IS NOT NULL;

-- A statement can correct an entry the bank sent before (same id, new amount or date) or book
-- one that was pending: publish changes it in place and keeps its previous values here.
ALTER TABLE import_undo DROP CONSTRAINT import_undo_target_check;
ALTER TABLE import_undo ADD CONSTRAINT import_undo_target_check CHECK (target IN ('category', 'rule', 'entry'));

-- Pending entries are looked up by account when a booked statement arrives.
CREATE INDEX entries_pending_idx ON entries (account_id, date) WHERE pending;
