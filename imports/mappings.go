package imports

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/db"
)

// syncMappings builds the import's mappings from its rows (DECISIONS 2: the API path maps
// automatically): every distinct account, category and tag name is matched to the family's
// record of exactly that name, or marked to be created on publish; account-type words carry
// the account type they stand for.
func syncMappings(ctx context.Context, tx db.Tx, im *Import) error {
	for _, kind := range specs[im.Type].mappings {
		if kind == MapAccount && im.AccountID != nil {
			continue // every row goes to the fixed account
		}
		keys, err := distinctKeys(ctx, tx, im.ID, kind)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			continue
		}
		existing, err := familyNames(ctx, tx, im.FamilyID, kind)
		if err != nil {
			return err
		}
		for _, key := range keys {
			m := mapping{ID: uuid.Must(uuid.NewV7()), ImportID: im.ID, Kind: kind, Key: key}
			switch kind {
			case MapAccountType:
				if t, ok := GuessAccountType(key); ok {
					m.Value = &t
				}
			case MapCategory:
				if id, ok := existing[categoryLeaf(key)]; ok {
					m.TargetID = &id
				} else {
					m.CreateWhenEmpty = true
				}
			default:
				if id, ok := existing[key]; ok {
					m.TargetID = &id
				} else {
					m.CreateWhenEmpty = true
				}
			}
			if _, err := tx.NewInsert().Model(&m).Exec(ctx); err != nil {
				return fmt.Errorf("insert %s mapping: %w", kind, err)
			}
		}
	}
	return nil
}

// mapping is a row of import_mappings.
type mapping struct {
	bun.BaseModel `bun:"table:import_mappings,alias:m"`

	ID              uuid.UUID  `bun:"id,pk,type:uuid"`
	ImportID        uuid.UUID  `bun:"import_id,type:uuid"`
	Kind            string     `bun:"kind"`
	Key             string     `bun:"key"`
	TargetID        *uuid.UUID `bun:"target_id,type:uuid"`
	Value           *string    `bun:"value"`
	CreateWhenEmpty bool       `bun:"create_when_empty"`
	Created         bool       `bun:"created"`
}

func distinctKeys(ctx context.Context, idb bun.IDB, importID uuid.UUID, kind string) ([]string, error) {
	var q string
	switch kind {
	case MapAccount:
		q = "SELECT DISTINCT account_key FROM import_rows WHERE import_id = ? AND account_key IS NOT NULL ORDER BY 1"
	case MapCategory:
		q = "SELECT DISTINCT category_key FROM import_rows WHERE import_id = ? AND category_key IS NOT NULL ORDER BY 1"
	case MapTag:
		q = "SELECT DISTINCT t FROM import_rows, unnest(tags) AS t WHERE import_id = ? ORDER BY 1"
	case MapAccountType:
		// The raw word the file used, which the typed row replaced by the account type.
		q = fmt.Sprintf("SELECT DISTINCT raw[%[1]d] FROM import_rows WHERE import_id = ? AND raw[%[1]d] <> '' ORDER BY 1", ColEntityType+1)
	}
	var keys []string
	err := idb.NewRaw(q, importID).Scan(ctx, &keys)
	return keys, err
}

// familyNames maps the names of the family's records of a mapping kind to their ids.
func familyNames(ctx context.Context, idb bun.IDB, familyID uuid.UUID, kind string) (map[string]uuid.UUID, error) {
	table := map[string]string{MapAccount: "accounts", MapCategory: "categories", MapTag: "tags"}[kind]
	out := map[string]uuid.UUID{}
	if table == "" {
		return out, nil
	}
	var rows []struct {
		ID   uuid.UUID `bun:"id"`
		Name string    `bun:"name"`
	}
	if err := idb.NewRaw("SELECT id, name FROM ? WHERE family_id = ?", bun.Ident(table), familyID).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if _, dup := out[r.Name]; !dup {
			out[r.Name] = r.ID
		}
	}
	return out, nil
}

// categoryLeaf is the category a "Parent:Child" name stands for: the child.
func categoryLeaf(key string) string {
	if _, child, ok := strings.Cut(key, ":"); ok && strings.TrimSpace(child) != "" {
		return strings.TrimSpace(child)
	}
	return strings.TrimSpace(key)
}

// categoryParent is the parent of a "Parent:Child" name, or "".
func categoryParent(key string) string {
	if parent, child, ok := strings.Cut(key, ":"); ok && strings.TrimSpace(child) != "" {
		return strings.TrimSpace(parent)
	}
	return ""
}
