-- Whether a provider's sign-in counts as the second factor of a user who has one, and the
-- amr/acr values (OIDC) or AuthnContextClassRefs (SAML) that say it checked one; an empty
-- list means the built-in ones (sso.DefaultSecondFactorValues).
ALTER TABLE sso_providers
    ADD COLUMN trust_second_factor boolean NOT NULL DEFAULT false,
    ADD COLUMN second_factor_values text[] NOT NULL DEFAULT '{}';
