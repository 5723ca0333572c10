-- Imports give transactions a merchant read out of the bank's text (imports.MerchantName). A
-- merchant an import created keeps the name it was made from here, folded as search compares
-- names, so that a later import finds it under that name after a person renamed it.
CREATE TABLE merchant_names (
    family_id   uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    name        text NOT NULL,
    merchant_id uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    PRIMARY KEY (family_id, name)
);
-- A merchant's deletion finds its names through this index.
CREATE INDEX merchant_names_merchant_idx ON merchant_names (merchant_id);
