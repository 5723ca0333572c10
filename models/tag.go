package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Tag labels a family's transactions across categories ("vacation", "tax deductible").
type Tag struct {
	bun.BaseModel `bun:"table:tags,alias:t"`

	ID       uuid.UUID  `bun:"id,pk,type:uuid"`
	FamilyID uuid.UUID  `bun:"family_id,type:uuid"`
	Name     string     `bun:"name"`
	Color    string     `bun:"color"`
	ImportID *uuid.UUID `bun:"import_id,type:uuid"`
	// Claimed: a member named it while only accounts kept from them used it (taxon.claim);
	// every member sees it from then on.
	Claimed   bool      `bun:"claimed"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()"`
	// TransactionsCount is how many transactions carry the tag, as Tags and TagByID read it.
	TransactionsCount int `bun:"transactions_count,scanonly"`
}

// DefaultTagColor is a new tag's colour when none is given (the table's default).
const DefaultTagColor = "#e99537"

// TagInput is a tag to create, or the fields of one to change: nil leaves a field as it is.
type TagInput struct {
	Name  *string
	Color *string
}

// Validate normalises the input and reports every problem with it. Creating needs a name.
func (in *TagInput) Validate(creating bool) error {
	var v apperr.Validation
	validName(&v, in.Name, creating)
	validColor(&v, in.Color, false)
	return v.Err()
}

// tagCounts counts the family's entries per tag.
const tagCounts = `SELECT u.id, count(*) AS count FROM entries, unnest(tag_ids) AS u(id)
	WHERE family_id = ? AND tag_ids <> '{}' AND %s GROUP BY u.id`

var tagList = taxon[Tag]{noun: "tag", alias: "t", counts: tagCounts, accountColumn: "account_id", use: taxonUses["tags"]}

// Tags returns one page of the family's tags by name, with the counts of the viewer's
// transactions, and how many there are.
func Tags(ctx context.Context, db bun.IDB, v Viewer, p Page) ([]Tag, int, error) {
	return tagList.page(ctx, db, v, p)
}

// TagByID returns the family's tag with id, with the count of the viewer's transactions.
func TagByID(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) (*Tag, error) {
	return tagList.byID(ctx, db, v, id)
}

// CreateTag creates a tag in v's family. Named as one that only accounts kept from v use, it
// is that one, claimed (taxon.claim).
func CreateTag(ctx context.Context, db bun.IDB, v Viewer, in TagInput) (*Tag, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	if t, err := tagList.claim(ctx, db, v, *in.Name); t != nil || err != nil {
		return t, err
	}
	t := &Tag{ID: newID(), FamilyID: v.FamilyID, Name: *in.Name, Color: DefaultTagColor}
	assign(&t.Color, in.Color)
	if _, err := db.NewInsert().Model(t).Exec(ctx); err != nil {
		return nil, nameTaken(err, t.Name)
	}
	return t, nil
}

// UpdateTag changes the fields of in on the family's tag, and returns it as the viewer v
// reads it; one kept from v is not found.
func UpdateTag(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID, in TagInput) (*Tag, error) {
	if err := tagList.seen(ctx, db, v, id); err != nil {
		return nil, err
	}
	if err := in.Validate(false); err != nil {
		return nil, err
	}
	q := db.NewUpdate().Model((*Tag)(nil))
	if err := updateNamed(ctx, q, "tag", v.FamilyID, id, map[string]*string{"name": in.Name, "color": in.Color}); err != nil {
		return nil, err
	}
	return TagByID(ctx, db, v, id)
}

// DeleteTag deletes one of the family's tags and takes it off every entry that carries it.
// Entries hold their tags in an array, which no foreign key can clean up. A tag that a rule
// adds is refused (Conflict): the rule would go on adding the deleted id. One kept from v is
// not found.
func DeleteTag(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) error {
	familyID := v.FamilyID
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := tagList.seen(ctx, tx, v, id); err != nil {
			return err
		}
		if err := deleteUnreferenced(ctx, tx, "tags", "tag", familyID, id); err != nil {
			return err
		}
		if err := forgetMappings(ctx, tx, familyID, "tag", id, nil); err != nil {
			return err
		}
		// The transactions it comes off record who deleted it.
		actor := ActorOf(ctx)
		_, err := tx.NewRaw(`UPDATE entries SET tag_ids = array_remove(tag_ids, ?), updated_at = now(), `+SetActorSQL+`
			WHERE family_id = ? AND tag_ids @> ARRAY[?::uuid]`, id, actor.UserID, actor.ViaOrNil(), familyID, id).Exec(ctx)
		return err
	})
}
