package imports

import (
	"context"
	"fmt"

	"tally/merchants"
)

// deriveMerchants gives each bank text of the rows that become transactions its merchant
// (merchants.Derive), which the rules and the entries' insert join (publisher.merchantJoin).
func (p *publisher) deriveMerchants(ctx context.Context) error {
	var texts []string
	if err := p.tx.NewRaw(`SELECT DISTINCT r.name FROM import_rows r WHERE `+entryRows+` AND r.ticker IS NULL AND r.name <> ''`,
		p.im.ID).Scan(ctx, &texts); err != nil {
		return fmt.Errorf("bank texts: %w", err)
	}
	var err error
	p.merchants, err = merchants.Derive(ctx, p.tx, p.im.FamilyID, &p.im.ID, texts)
	return err
}

// dropUnusedMerchants removes the merchants deriveMerchants made that no entry has: a merchant
// this publish made for transactions whose merchant a rule set instead is not one the family
// has to tidy away. It runs after the rules, whichever way they ran.
func (p *publisher) dropUnusedMerchants(ctx context.Context) error {
	if !p.merchants {
		return nil
	}
	_, err := p.tx.NewRaw(`DELETE FROM merchants m WHERE m.family_id = ? AND m.import_id = ?
		AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.merchant_id = m.id)`, p.im.FamilyID, p.im.ID).Exec(ctx)
	return err
}
