DROP TABLE IF EXISTS rejected_transfers, transfers, recurring_transactions, budget_categories, budgets,
    rules, balances, holdings, valuations, trades, entries, securities, merchants, tags,
    categories, accounts, rate_limits, api_keys, password_resets, sessions, users, families;
