package banksync

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/models"
)

// syncHoldings records an investment account's positions as the provider reports them, as
// the holdings of the balance's day. A position the provider stopped reporting that day is
// removed from it; earlier days keep their snapshots. Nothing is written when nothing changed.
func syncHoldings(ctx context.Context, tx db.Tx, acct *models.Account, a *Account, now time.Time, stats *Stats) error {
	day := now
	if a.BalanceDate != nil {
		day = *a.BalanceDate
	}
	day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)

	var ids []uuid.UUID
	var tickers, names, exts, currencies []string
	var qtys, prices, amounts []decimal.Decimal
	var costs []string // "" for none
	for _, h := range a.Holdings {
		ticker := securityTicker(h)
		if ticker == "" || h.Shares.IsZero() {
			continue // nothing to hold, or a closed position
		}
		currency := strings.ToUpper(strings.TrimSpace(h.Currency))
		if len(currency) != 3 {
			currency = acct.Currency // "" (or a custom currency URL) means the account's
		}
		cost := ""
		if !h.CostBasis.IsZero() {
			cost = h.CostBasis.String()
		}
		ids = append(ids, uuid.Must(uuid.NewV7()))
		tickers, names, exts, currencies = append(tickers, ticker), append(names, h.Description), append(exts, h.ID), append(currencies, currency)
		qtys, amounts = append(qtys, h.Shares), append(amounts, h.MarketValue)
		prices = append(prices, h.MarketValue.DivRound(h.Shares, 8))
		costs = append(costs, cost)
	}

	if len(ids) > 0 {
		// Securities are shared by every family: add the ones not known yet, change none.
		if _, err := tx.NewRaw(`INSERT INTO securities (id, ticker, name)
			SELECT DISTINCT ON (x.ticker) x.id, x.ticker, x.name FROM unnest(?::uuid[], ?::text[], ?::text[]) AS x(id, ticker, name)
			ON CONFLICT (ticker, coalesce(exchange_operating_mic, '')) DO NOTHING`,
			pgdialect.Array(ids), pgdialect.Array(tickers), pgdialect.Array(names)).Exec(ctx); err != nil {
			return err
		}
		var written upserts
		err := tx.NewRaw(`INSERT INTO holdings (id, family_id, account_id, security_id, date, qty, price, amount, currency,
				cost_basis, cost_basis_source, external_id, source)
			SELECT x.id, ?, ?, s.id, ?, x.qty, x.price, x.amount, x.currency, nullif(x.cost, '')::numeric,
				CASE WHEN x.cost = '' THEN NULL ELSE 'provider' END, x.ext, ?
			FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[], ?::text[])
				AS x(id, ticker, ext, currency, qty, price, amount, cost)
			JOIN securities s ON s.ticker = x.ticker AND s.exchange_operating_mic IS NULL
			ON CONFLICT (account_id, security_id, date, currency) DO UPDATE SET qty = excluded.qty, price = excluded.price,
				amount = excluded.amount,
				cost_basis = CASE WHEN holdings.cost_basis_locked THEN holdings.cost_basis ELSE excluded.cost_basis END,
				cost_basis_source = CASE WHEN holdings.cost_basis_locked THEN holdings.cost_basis_source ELSE excluded.cost_basis_source END,
				external_id = excluded.external_id, source = excluded.source, updated_at = now()
			WHERE (holdings.qty, holdings.price, holdings.amount, holdings.external_id, holdings.source, holdings.cost_basis)
				IS DISTINCT FROM (excluded.qty, excluded.price, excluded.amount, excluded.external_id, excluded.source,
					CASE WHEN holdings.cost_basis_locked THEN holdings.cost_basis ELSE excluded.cost_basis END)
			RETURNING (xmax = 0) AS inserted`,
			acct.FamilyID, acct.ID, day, Source, pgdialect.Array(ids), pgdialect.Array(tickers), pgdialect.Array(exts),
			pgdialect.Array(currencies), pgdialect.Array(qtys), pgdialect.Array(prices), pgdialect.Array(amounts),
			pgdialect.Array(costs)).Scan(ctx, &written)
		if err != nil && !db.IsNoRows(err) {
			return err
		}
		stats.add(written)
	}

	// A position sold since the last sync the same day.
	res, err := tx.NewRaw(`DELETE FROM holdings WHERE account_id = ? AND date = ? AND source = ? AND NOT (external_id = ANY(?::text[]))`,
		acct.ID, day, Source, pgdialect.Array(append([]string{}, exts...))).Exec(ctx)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	stats.Removed += int(n)
	return nil
}

// securityTicker names a holding's security: its symbol, or for funds without one (a 401k's),
// its description.
func securityTicker(h Holding) string {
	if h.Symbol != "" {
		return h.Symbol
	}
	t := strings.ToUpper(strings.Join(strings.Fields(h.Description), " "))
	if len(t) > 64 {
		t = t[:64]
	}
	return t
}
