ALTER TABLE sso_providers
    DROP COLUMN second_factor_values,
    DROP COLUMN trust_second_factor;
