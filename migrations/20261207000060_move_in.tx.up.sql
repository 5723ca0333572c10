-- Moving in from another app: Actual Budget's export and YNAB's budget are two import types,
-- published through the native import, and an import keeps what its dry run found (counts per
-- kind, and every renaming and what was not kept).
ALTER TABLE imports DROP CONSTRAINT imports_type_check;
ALTER TABLE imports ADD CONSTRAINT imports_type_check CHECK (type IN (
    'TransactionImport', 'TradeImport', 'AccountImport', 'ExternalAppAImport', 'ExternalAppBImport',
    'ExternalAppCImport', 'CategoryImport', 'RuleImport', 'MerchantImport', 'PdfImport', 'QifImport',
    'NativeImport', 'OfxImport', 'CamtImport', 'Mt940Import', 'ActualImport', 'YnabImport'));

ALTER TABLE imports ADD COLUMN move_in jsonb;
