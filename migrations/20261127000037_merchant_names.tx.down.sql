DROP TABLE merchant_names;
