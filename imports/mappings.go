package imports

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// syncMappings builds the import's mappings from its rows (DECISIONS 2: the API path maps
// automatically): every distinct account, category and tag name is matched to the family's
// record of exactly that name, or marked to be created on publish; account-type words carry
// the account type they stand for.
func syncMappings(ctx context.Context, tx db.Tx, im *Import, names rowKeys) error {
	if im.Type.IsStatementFile() {
		return syncStatementMappings(ctx, tx, im)
	}
	for _, kind := range specs[im.Type].mappings {
		if kind == MapAccount && im.AccountID != nil {
			continue // every row goes to the fixed account
		}
		keys := names.sorted(kind)
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

// rowKeys holds, for each mapping kind, the names an import's rows use.
type rowKeys map[string]map[string]struct{}

// add records the names row uses: its account, category and tags as the file wrote them, and
// the word it used for an account type.
func (k rowKeys) add(r *Row) {
	put := func(kind, key string) {
		if k[kind] == nil {
			k[kind] = map[string]struct{}{}
		}
		k[kind][key] = struct{}{}
	}
	if r.AccountKey != "" {
		put(MapAccount, r.AccountKey)
	}
	if r.CategoryKey != "" {
		put(MapCategory, r.CategoryKey)
	}
	for _, t := range r.Tags {
		put(MapTag, t)
	}
	if r.Raw[ColEntityType] != "" {
		put(MapAccountType, r.Raw[ColEntityType])
	}
}

// sorted returns the names of kind in order.
func (k rowKeys) sorted(kind string) []string {
	return slices.Sorted(maps.Keys(k[kind]))
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

// AccountChoice is what a person chose for an account the file names: an existing account of
// the family, or a new one of a type.
type AccountChoice struct {
	AccountID *uuid.UUID
	// NewType is the type of the account publish creates, when AccountID is nil.
	NewType string
}

// SetAccountMapping points the import's account mapping with key at the family's account, or
// at a new account of a type. Only an import that is not published (pending or failed) can
// change; another family's account is refused as if it did not exist.
func (s *Service) SetAccountMapping(ctx context.Context, viewer models.Viewer, importID uuid.UUID, key string, choice AccountChoice) error {
	familyID := viewer.FamilyID
	return s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, importID)
		if err != nil {
			return err
		}
		if im.FamilyID != familyID {
			return importNotFound()
		}
		if im.Status != StatusPending && im.Status != StatusFailed {
			return apperr.Errorf(apperr.Conflict, "The mappings of an import that is %s cannot change: revert it first.", im.Status).WithSlug("not_editable")
		}
		var v apperr.Validation
		if choice.AccountID != nil {
			if _, err := models.AccountByID(ctx, tx, viewer, *choice.AccountID); apperr.Is(err, apperr.NotFound) {
				v.Add("account_id", "Account must belong to your family")
			} else if err != nil {
				return err
			}
		} else if _, ok := models.AccountTypeByName(choice.NewType); !ok {
			v.Add("account_type", fmt.Sprintf("Account type %q is not one of: %s", choice.NewType, accountTypeNames()))
		}
		if err := v.Err(); err != nil {
			e := apperr.As(err)
			e.Message, e.Slug = "Mapping could not be changed", "validation_failed"
			return e
		}
		q := tx.NewUpdate().Model((*mapping)(nil)).Where("import_id = ? AND kind = ? AND key = ?", importID, MapAccount, key)
		if choice.AccountID != nil {
			q = q.Set("target_id = ?", *choice.AccountID).Set("create_when_empty = false")
		} else {
			q = q.Set("target_id = NULL").Set("create_when_empty = true").Set("value = ?", choice.NewType)
		}
		res, err := q.Set("created = false").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.Errorf(apperr.NotFound, "The import has no account mapping %q", key).WithSlug("not_found")
		}
		return nil
	})
}

func accountTypeNames() string {
	names := make([]string, len(models.AccountTypes))
	for i, t := range models.AccountTypes {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
