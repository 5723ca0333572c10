DROP TRIGGER accounts_month_totals_delete ON accounts;
DROP FUNCTION accounts_month_totals_delete();
DROP TRIGGER entries_month_totals_delete ON entries;
DROP TRIGGER entries_month_totals_update ON entries;
DROP TRIGGER entries_month_totals_insert ON entries;
DROP FUNCTION entries_month_totals();
DROP TABLE account_month_totals;
