-- Exchange rates by date (package fx): the European Central Bank's reference rates, fetched
-- daily for every family (family_id NULL, base EUR), and the rates a family sets itself, which
-- win over the fetched ones for their pair.

CREATE TABLE exchange_rates (
    id         uuid PRIMARY KEY,
    family_id  uuid REFERENCES families (id) ON DELETE CASCADE, -- NULL: fetched, for every family
    date       date NOT NULL,
    base       text NOT NULL CHECK (base ~ '^[A-Z]{3}$'),
    quote      text NOT NULL CHECK (quote ~ '^[A-Z]{3}$' AND quote <> base),
    rate       numeric(28, 12) NOT NULL CHECK (rate > 0), -- 1 base buys rate quote
    source     text NOT NULL,                              -- 'ecb' when fetched, 'family' for a family's own
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- A pair's latest rate on or before a day is the first entry of these indexes from that day.
CREATE UNIQUE INDEX exchange_rates_fetched_key ON exchange_rates (base, quote, date DESC) WHERE family_id IS NULL;
CREATE UNIQUE INDEX exchange_rates_family_key ON exchange_rates (family_id, base, quote, date DESC) WHERE family_id IS NOT NULL;
