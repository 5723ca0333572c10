DROP TABLE IF EXISTS import_undo;
