package models

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Category classifications: whether a category's transactions are money earned or spent.
const (
	CategoryIncome  = "income"
	CategoryExpense = "expense"
)

// Category groups a family's transactions. Categories nest one level: a subcategory's parent
// is a top-level category of the same family, and has the parent's classification.
type Category struct {
	bun.BaseModel `bun:"table:categories,alias:c"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid"`
	FamilyID       uuid.UUID  `bun:"family_id,type:uuid"`
	ParentID       *uuid.UUID `bun:"parent_id,type:uuid"`
	Name           string     `bun:"name"`
	Color          string     `bun:"color"`
	Icon           string     `bun:"lucide_icon"` // a Lucide icon's name
	Classification string     `bun:"classification"`
	ImportID       *uuid.UUID `bun:"import_id,type:uuid"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:now()"`
	// TransactionsCount is how many transactions (split parts included) carry the category,
	// as Categories and CategoryByID read it.
	TransactionsCount int `bun:"transactions_count,scanonly"`
	// BudgetRollover is how the category's budget carries into the next month (off,
	// surplus, both); only the budgets package changes it.
	BudgetRollover string `bun:"budget_rollover,scanonly"`
}

// A new category's look when none is given (the table's defaults). The pages start their
// colour picker at DefaultCategoryColor.
const (
	DefaultCategoryColor = "#737373"
	defaultCategoryIcon  = "shapes"
)

var lucideName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// CategoryInput is a category to create, or the fields of one to change: nil leaves a field
// as it is.
type CategoryInput struct {
	Name           *string
	Classification *string
	Color          *string
	Icon           *string
	// ParentID, when set, moves the category: under **ParentID, or to the top when that is nil.
	ParentID **uuid.UUID
}

// Validate normalises the input and reports every problem that needs no database. Creating
// needs a name.
func (in *CategoryInput) Validate(creating bool) error {
	var v apperr.Validation
	validName(&v, in.Name, creating)
	validColor(&v, in.Color, false)
	if in.Icon != nil {
		*in.Icon = strings.TrimSpace(*in.Icon)
		if len(*in.Icon) > 64 || !lucideName.MatchString(*in.Icon) {
			v.Add("icon", fmt.Sprintf("Icon %q must be a Lucide icon name such as shopping-cart", *in.Icon))
		}
	}
	if in.Classification != nil && *in.Classification != CategoryIncome && *in.Classification != CategoryExpense {
		v.Add("classification", "Classification must be income or expense")
	}
	return v.Err()
}

// categoryCounts counts the family's entries per category.
const categoryCounts = `SELECT category_id AS id, count(*) AS count FROM entries
	WHERE family_id = ? AND category_id IS NOT NULL AND %s GROUP BY category_id`

var categoryList = taxon[Category]{noun: "category", alias: "c", counts: categoryCounts, accountColumn: "account_id"}

// Categories returns one page of the family's categories by name, with the counts of the
// viewer's transactions, and how many there are.
func Categories(ctx context.Context, db bun.IDB, v Viewer, p Page) ([]Category, int, error) {
	return categoryList.page(ctx, db, v, p)
}

// AllCategories returns every category of the family by name, with the counts of the
// viewer's transactions, as the page draws their tree.
func AllCategories(ctx context.Context, db bun.IDB, v Viewer) ([]Category, error) {
	list := []Category{}
	err := categoryList.byName(db, &list, v).Scan(ctx)
	return list, err
}

// CategoryByID returns the family's category with id, with the count of the viewer's
// transactions.
func CategoryByID(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) (*Category, error) {
	return categoryList.byID(ctx, db, v, id)
}

// CreateCategory creates a category in the family: expense, grey and "shapes" unless told
// otherwise, or under a parent with the parent's classification.
func CreateCategory(ctx context.Context, db bun.IDB, familyID uuid.UUID, in CategoryInput) (*Category, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	c := &Category{ID: newID(), FamilyID: familyID, Name: *in.Name, Color: DefaultCategoryColor, Icon: defaultCategoryIcon,
		Classification: CategoryExpense}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := c.apply(ctx, tx, in, false); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(c).Exec(ctx)
		return nameTaken(err, c.Name)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// UpdateCategory changes the fields of in on the family's category, and returns it as the
// viewer v reads it. A top-level category's
// new classification is its subcategories' too.
func UpdateCategory(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID, in CategoryInput) (*Category, error) {
	if err := in.Validate(false); err != nil {
		return nil, err
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		c := new(Category)
		// Locked, so that no subcategory is added under it while it becomes one itself.
		if err := tx.NewSelect().Model(c).Where("id = ? AND family_id = ?", id, v.FamilyID).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "category")
		}
		if err := c.apply(ctx, tx, in, true); err != nil {
			return err
		}
		_, err := tx.NewUpdate().Model(c).Column("name", "color", "lucide_icon", "classification", "parent_id").
			Set("updated_at = now()").WherePK().Exec(ctx)
		if err != nil {
			return nameTaken(err, c.Name)
		}
		if c.ParentID == nil {
			_, err = tx.NewRaw("UPDATE categories SET classification = ?, updated_at = now() WHERE parent_id = ? AND family_id = ? AND classification <> ?",
				c.Classification, c.ID, c.FamilyID, c.Classification).Exec(ctx)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return CategoryByID(ctx, db, v, id)
}

// apply sets in's fields on c and checks its place: a parent must be a top-level category
// of the family, a category with subcategories cannot become one, and a subcategory has its
// parent's classification (taken from it when in names none).
func (c *Category) apply(ctx context.Context, tx bun.IDB, in CategoryInput, existing bool) error {
	assign(&c.Name, in.Name)
	assign(&c.Color, in.Color)
	assign(&c.Icon, in.Icon)
	assign(&c.Classification, in.Classification)
	if in.ParentID != nil {
		c.ParentID = *in.ParentID
	}
	if c.ParentID == nil {
		return nil
	}
	var v apperr.Validation
	parent := new(Category)
	err := tx.NewSelect().Model(parent).Where("id = ? AND family_id = ?", *c.ParentID, c.FamilyID).For("SHARE").Scan(ctx)
	switch {
	case *c.ParentID == c.ID:
		v.Add("parent_id", "A category cannot be its own parent")
	case isNoRows(err):
		v.Add("parent_id", fmt.Sprintf("parent_id %s is not one of this family's categories", *c.ParentID))
	case err != nil:
		return err
	case parent.ParentID != nil:
		v.Add("parent_id", fmt.Sprintf("“%s” is a subcategory itself: categories nest one level only", parent.Name))
	case in.Classification == nil:
		c.Classification = parent.Classification
	case *in.Classification != parent.Classification:
		v.Add("classification", fmt.Sprintf("A subcategory has its parent's classification: “%s” is %s", parent.Name, parent.Classification))
	}
	if existing && in.ParentID != nil {
		var children int
		if err := tx.NewRaw("SELECT count(*) FROM categories WHERE parent_id = ? AND family_id = ?", c.ID, c.FamilyID).Scan(ctx, &children); err != nil {
			return err
		}
		if children > 0 {
			v.Add("parent_id", fmt.Sprintf("“%s” has %d %s, and categories nest one level only", c.Name, children,
				plural(children, "subcategory", "subcategories")))
		}
	}
	return v.Err()
}

// DeleteCategory deletes the family's category. One that transactions or rules use needs a
// replacement, a category of the family that takes them over (the rules then name it), and is
// refused without one, saying how many use it. Its subcategories become top-level categories
// and its budget lines go. It returns how many transactions moved.
//
// The category is the family's, so the replacement takes over every transaction of it; but the
// counts are of those the viewer sees, as the category's own count is: a private account's
// transactions are neither counted nor do they make the category "in use" for someone kept from
// it, whose deletion without a replacement leaves them without a category (the foreign key's
// SET NULL).
func DeleteCategory(ctx context.Context, db bun.IDB, viewer Viewer, id uuid.UUID, replacementID *uuid.UUID) (int, error) {
	familyID, moved := viewer.FamilyID, 0
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		c := new(Category)
		if err := tx.NewSelect().Model(c).Where("id = ? AND family_id = ?", id, familyID).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "category")
		}
		var v apperr.Validation
		if replacementID != nil {
			var ok bool
			if err := tx.NewRaw("SELECT EXISTS (SELECT 1 FROM categories WHERE id = ? AND family_id = ?)", *replacementID, familyID).Scan(ctx, &ok); err != nil {
				return err
			}
			switch {
			case *replacementID == id:
				v.Add("replacement_id", "replacement_id must be another category than the one deleted")
			case !ok:
				v.Add("replacement_id", fmt.Sprintf("replacement_id %s is not one of this family's categories", *replacementID))
			}
			if err := v.Err(); err != nil {
				return err
			}
		}
		visible, args := viewer.VisibleSQL("account_id")
		var used int
		if err := tx.NewRaw("SELECT count(*) FROM entries WHERE family_id = ? AND category_id = ? AND "+visible,
			append([]any{familyID, id}, args...)...).Scan(ctx, &used); err != nil {
			return err
		}
		rules, err := rulesReferringTo(ctx, tx, familyID, id)
		if err != nil {
			return err
		}
		if replacementID == nil {
			if used > 0 || len(rules) > 0 {
				v.Add("replacement_id", usedBy(used, len(rules))+" use this category; pass replacement_id, the id of the category to move them to")
				return v.Err()
			}
		} else {
			// The moved transactions and rules record who deleted the category; the count is
			// of the moved transactions the deleter sees.
			actor := ActorOf(ctx)
			if err := tx.NewRaw(`WITH moved AS (UPDATE entries SET category_id = ?, updated_at = now(), `+SetActorSQL+`
				WHERE family_id = ? AND category_id = ? RETURNING account_id) SELECT count(*) FROM moved WHERE `+visible,
				append([]any{*replacementID, actor.UserID, actor.ViaOrNil(), familyID, id}, args...)...).Scan(ctx, &moved); err != nil {
				return err
			}
			if len(rules) > 0 {
				ids := make([]uuid.UUID, len(rules))
				for i, r := range rules {
					ids[i] = r.ID
				}
				if _, err := tx.NewRaw(`UPDATE rules SET conditions = replace(conditions::text, ?0, ?1)::jsonb,
					actions = replace(actions::text, ?0, ?1)::jsonb, updated_at = now(), updated_by = ?3, updated_via = ?4 WHERE id IN (?2)`,
					id.String(), replacementID.String(), bun.In(ids), actor.UserID, actor.ViaOrNil()).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if err := forgetMappings(ctx, tx, familyID, "category", id, replacementID); err != nil {
			return err
		}
		_, err = tx.NewDelete().Model(c).WherePK().Exec(ctx)
		return err
	})
	return moved, err
}

// usedBy says how many transactions and rules use a record: "12 transactions and 1 rule".
func usedBy(transactions, rules int) string {
	var parts []string
	if transactions > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", transactions, plural(transactions, "transaction", "transactions")))
	}
	if rules > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", rules, plural(rules, "rule", "rules")))
	}
	return strings.Join(parts, " and ")
}
