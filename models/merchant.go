package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Merchant is who a family's transactions are with: a shop, an employer, a landlord.
type Merchant struct {
	bun.BaseModel `bun:"table:merchants,alias:m"`

	ID         uuid.UUID  `bun:"id,pk,type:uuid"`
	FamilyID   uuid.UUID  `bun:"family_id,type:uuid"`
	Name       string     `bun:"name"`
	Color      string     `bun:"color"` // empty when none was chosen
	WebsiteURL string     `bun:"website_url"`
	LogoURL    string     `bun:"logo_url"`
	ImportID   *uuid.UUID `bun:"import_id,type:uuid"`
	// Claimed: a member named it while only accounts kept from them used it (taxon.claim);
	// every member sees it from then on.
	Claimed   bool      `bun:"claimed"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()"`
	// TransactionsCount is how many transactions are with the merchant, as Merchants and
	// MerchantByID read it.
	TransactionsCount int `bun:"transactions_count,scanonly"`
}

// MerchantInput is a merchant to create, or the fields of one to change: nil leaves a field
// as it is, and an empty colour or URL clears it.
type MerchantInput struct {
	Name       *string
	Color      *string
	WebsiteURL *string
	LogoURL    *string
}

// Validate normalises the input and reports every problem with it. Creating needs a name.
func (in *MerchantInput) Validate(creating bool) error {
	var v apperr.Validation
	validName(&v, in.Name, creating)
	validColor(&v, in.Color, true)
	validURL(&v, "website_url", "website", in.WebsiteURL)
	validURL(&v, "logo_url", "logo's address", in.LogoURL)
	return v.Err()
}

// merchantCounts counts the family's entries per merchant: each of the family's merchants'
// entries, read from entries_merchant_idx alone (an index-only scan by its leading column),
// as a merchant's entries are its family's; with accounts kept from the viewer, their
// entries are left out (taxon).
const merchantCounts = `SELECT e.merchant_id AS id, count(*) AS count FROM merchants m JOIN entries e ON e.merchant_id = m.id
	WHERE m.family_id = ? AND %s GROUP BY e.merchant_id`

var merchantList = taxon[Merchant]{noun: "merchant", alias: "m", counts: merchantCounts, accountColumn: "e.account_id",
	use: taxonUses["merchants"]}

// Merchants returns one page of the family's merchants by name, with the counts of the
// viewer's transactions, and how many there are.
func Merchants(ctx context.Context, db bun.IDB, v Viewer, p Page) ([]Merchant, int, error) {
	return merchantList.page(ctx, db, v, p)
}

// MerchantByID returns the family's merchant with id, with the count of the viewer's
// transactions.
func MerchantByID(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) (*Merchant, error) {
	return merchantList.byID(ctx, db, v, id)
}

// CreateMerchant creates a merchant in v's family. Named as one that only accounts kept from v
// use, it is that one, claimed (taxon.claim).
func CreateMerchant(ctx context.Context, db bun.IDB, v Viewer, in MerchantInput) (*Merchant, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	if m, err := merchantList.claim(ctx, db, v, *in.Name); m != nil || err != nil {
		return m, err
	}
	m := &Merchant{ID: newID(), FamilyID: v.FamilyID, Name: *in.Name}
	assign(&m.Color, in.Color)
	assign(&m.WebsiteURL, in.WebsiteURL)
	assign(&m.LogoURL, in.LogoURL)
	if _, err := db.NewInsert().Model(m).Exec(ctx); err != nil {
		return nil, nameTaken(err, m.Name)
	}
	return m, nil
}

// UpdateMerchant changes the fields of in on the family's merchant, and returns it as the
// viewer v reads it; one kept from v is not found.
func UpdateMerchant(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID, in MerchantInput) (*Merchant, error) {
	if err := merchantList.seen(ctx, db, v, id); err != nil {
		return nil, err
	}
	if err := in.Validate(false); err != nil {
		return nil, err
	}
	q := db.NewUpdate().Model((*Merchant)(nil))
	columns := map[string]*string{"name": in.Name, "color": in.Color, "website_url": in.WebsiteURL, "logo_url": in.LogoURL}
	if err := updateNamed(ctx, q, "merchant", v.FamilyID, id, columns); err != nil {
		return nil, err
	}
	return MerchantByID(ctx, db, v, id)
}

// DeleteMerchant deletes the family's merchant; its transactions and recurring transactions
// keep no merchant (the foreign keys set it NULL). A merchant that a rule names is refused
// (Conflict): setting it would fail every later import. One kept from v is not found.
func DeleteMerchant(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := merchantList.seen(ctx, tx, v, id); err != nil {
			return err
		}
		return deleteUnreferenced(ctx, tx, "merchants", "merchant", v.FamilyID, id)
	})
}
