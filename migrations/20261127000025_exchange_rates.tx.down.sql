DROP TABLE exchange_rates;
