ALTER TABLE imports DROP COLUMN move_in;
DELETE FROM imports WHERE type IN ('ActualImport', 'YnabImport');
ALTER TABLE imports DROP CONSTRAINT imports_type_check;
ALTER TABLE imports ADD CONSTRAINT imports_type_check CHECK (type IN (
    'TransactionImport', 'TradeImport', 'AccountImport', 'ExternalAppAImport', 'ExternalAppBImport',
    'ExternalAppCImport', 'CategoryImport', 'RuleImport', 'MerchantImport', 'PdfImport', 'QifImport',
    'NativeImport', 'OfxImport', 'CamtImport', 'Mt940Import'));
