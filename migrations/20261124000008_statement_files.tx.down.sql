DROP INDEX IF EXISTS entries_pending_idx;
DELETE FROM import_undo WHERE target = 'entry';
ALTER TABLE import_undo DROP CONSTRAINT import_undo_target_check;
ALTER TABLE import_undo ADD CONSTRAINT import_undo_target_check CHECK (target IN ('category', 'rule'));
DROP TABLE IF EXISTS account_identifiers;
ALTER TABLE imports DROP COLUMN IF EXISTS statements;
DELETE FROM imports WHERE type IN ('OfxImport', 'CamtImport', 'Mt940Import');
ALTER TABLE imports DROP CONSTRAINT imports_type_check;
ALTER TABLE imports ADD CONSTRAINT imports_type_check CHECK (type IN (
    'TransactionImport', 'TradeImport', 'AccountImport', 'ExternalAppAImport', 'ExternalAppBImport',
    'ExternalAppCImport', 'CategoryImport', 'RuleImport', 'MerchantImport', 'PdfImport', 'QifImport',
    'NativeImport'));
