// Package actual reads an Actual Budget export (the zip that Actual's "Export data" writes)
// into a movein.Budget: accounts, payees, category groups and categories, transactions with
// their splits and transfers, budget months, schedules, rules and goal templates.
//
// The export's db.sqlite is Actual's own database, read through its materialised tables the
// way Actual's views read them (v_transactions, v_payees): deleted rows are tombstoned and
// left out, a split part of a deleted transaction too; payees and categories resolve through
// payee_mapping and category_mapping, which point a merged one at what it was merged into.
// The sync log (messages_crdt) is not read.
//
// SQLite comes from github.com/ncruces/go-sqlite3, SQLite compiled to WebAssembly and
// translated to Go, so that the build needs no cgo and a hostile database file is parsed
// inside the sandbox of its own linear memory.
package actual

import (
	"context"
	"os"
	"strings"

	"tally/imports/movein"
)

// The tables every Actual budget has had for years; an export without one is refused.
var requiredTables = []string{"accounts", "payees", "payee_mapping", "category_groups", "categories",
	"category_mapping", "transactions"}

// Read reads an export. Its error is a *movein.Error naming what in the export is at fault,
// or the context's error when ctx ends first.
func Read(ctx context.Context, content []byte) (*movein.Budget, error) {
	ex, err := openExport(content)
	if err != nil {
		return nil, err
	}
	meta, err := ex.readMetadata()
	if err != nil {
		return nil, err
	}
	name, err := ex.unzipDatabase()
	if err != nil {
		return nil, err
	}
	defer os.Remove(name)
	b := &movein.Budget{Source: movein.SourceActual, Name: strings.TrimSpace(meta.BudgetName), Style: movein.Envelope}
	if err := readDatabase(ctx, name, b); err != nil {
		return nil, err
	}
	b.Settle()
	return b, nil
}

// readDatabase reads the export's database into b, and closes it before b is settled, so
// that SQLite's memory is given back as soon as it has been read.
func readDatabase(ctx context.Context, name string, b *movein.Budget) error {
	d, err := openDB(ctx, name)
	if err != nil {
		return err
	}
	defer d.close()
	if err := d.require(requiredTables...); err != nil {
		return err
	}
	r := &reader{db: d, b: b}
	for _, step := range []func() error{r.preferences, r.notes, r.accounts, r.payees, r.groups, r.categories,
		r.schedules, r.transactions, r.months, r.rules} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// reader holds what one export's steps share.
type reader struct {
	db *db
	b  *movein.Budget

	accountByID     map[string]*movein.Account
	deletedAccounts map[string]bool
	payeeTarget     map[string]string // payee_mapping: a payee's id → the payee it stands for
	payeeByID       map[string]*movein.Payee
	groupIDs        map[string]bool
	categoryTarget  map[string]string // category_mapping: a category's id → the category it stands for
	categoryByID    map[string]*movein.Category
	notesByID       map[string]string // notes on accounts and categories
	schedulesAlive  map[string]bool
	scheduleRules   map[string]bool // the rules that are schedules' own
}

// alive is the condition of a row that is not deleted.
const alive = "IFNULL(tombstone, 0) = 0"

// preferences reads the budget's style and currency.
func (r *reader) preferences() error {
	if !r.db.has("preferences") {
		return nil
	}
	return r.db.each("preferences", []string{"id", "value"}, "WHERE id IN ('budgetType', 'defaultCurrencyCode')", func(row row) error {
		switch v := strings.TrimSpace(row.text("value")); row.text("id") {
		case "budgetType":
			// "tracking" (older: "report") reads reflect_budgets; anything else is an envelope budget.
			if v == "tracking" || v == "report" {
				r.b.Style = movein.Tracking
			}
		case "defaultCurrencyCode":
			r.b.Currency = currency(v)
		}
		return nil
	})
}

// currency is an ISO 4217 code, or "" for anything else.
func currency(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 3 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return ""
	}
	return s
}

// notes reads the notes on accounts and categories (goal templates among them).
func (r *reader) notes() error {
	r.notesByID = map[string]string{}
	if !r.db.has("notes") {
		return nil
	}
	return r.db.each("notes", []string{"id", "note"}, "WHERE id IN (SELECT id FROM accounts WHERE "+alive+") OR id IN (SELECT id FROM categories WHERE "+alive+")",
		func(row row) error {
			r.notesByID[row.text("id")] = row.text("note")
			return nil
		})
}

func (r *reader) accounts() error {
	r.accountByID, r.deletedAccounts = map[string]*movein.Account{}, map[string]bool{}
	err := r.db.each("accounts", []string{"id", "name", "offbudget", "closed", "tombstone", "?type", "?currency_code"},
		"ORDER BY sort_order, id", func(row row) error {
			id := row.text("id")
			if row.bool("tombstone") {
				r.deletedAccounts[id] = true
				return nil
			}
			if err := movein.Count(movein.EntityAccount, len(r.b.Accounts)+1); err != nil {
				return err
			}
			kind, subtype := accountKind(row.text("type"))
			r.b.Accounts = append(r.b.Accounts, movein.Account{ID: id, Name: strings.TrimSpace(row.text("name")),
				OnBudget: !row.bool("offbudget"), Closed: row.bool("closed"), Currency: currency(row.text("currency_code")),
				Kind: kind, Subtype: subtype, Notes: r.notesByID[id]})
			return nil
		})
	for i := range r.b.Accounts {
		r.accountByID[r.b.Accounts[i].ID] = &r.b.Accounts[i]
	}
	return err
}

// accountKind is the Tally kind of an account type of older Actual versions; newer ones
// leave the type empty.
func accountKind(t string) (kind, subtype string) {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "checking":
		return "Depository", "checking"
	case "savings":
		return "Depository", "savings"
	case "credit":
		return "CreditCard", "credit_card"
	case "investment":
		return "Investment", ""
	case "mortgage":
		return "Loan", "mortgage"
	case "debt":
		return "Loan", "other"
	}
	return "", ""
}

func (r *reader) payees() error {
	r.payeeTarget, r.payeeByID = map[string]string{}, map[string]*movein.Payee{}
	err := r.db.each("payee_mapping", []string{"id", "targetId"}, "", func(row row) error {
		r.payeeTarget[row.text("id")] = row.text("targetId")
		return nil
	})
	if err != nil {
		return err
	}
	err = r.db.each("payees", []string{"id", "name", "transfer_acct"}, "WHERE "+alive+" ORDER BY id", func(row row) error {
		p := movein.Payee{ID: row.text("id"), Name: strings.TrimSpace(row.text("name")), TransferAccount: row.text("transfer_acct")}
		if p.TransferAccount != "" {
			a, ok := r.accountByID[p.TransferAccount]
			if !ok {
				return nil // the transfer payee of a deleted account, which Actual hides too
			}
			p.Name = a.Name // Actual names a transfer payee after its account
		}
		if p.Name == "" {
			r.b.Note(movein.NotKept, movein.EntityPayee, p.ID, "", "it has no name; its transactions are kept without a payee")
			return nil
		}
		if err := movein.Count(movein.EntityPayee, len(r.b.Payees)+1); err != nil {
			return err
		}
		r.b.Payees = append(r.b.Payees, p)
		return nil
	})
	for i := range r.b.Payees {
		r.payeeByID[r.b.Payees[i].ID] = &r.b.Payees[i]
	}
	return err
}

// payee resolves a payee id as Actual's views do: through payee_mapping to a payee that is
// not deleted, else none.
func (r *reader) payee(id string) string { return r.payeeOf([]byte(id)) }

// payeeOf is payee of a column's id read in place (row.key), which it does not copy.
func (r *reader) payeeOf(id []byte) string {
	if t := r.payeeTarget[string(id)]; r.payeeByID[t] != nil {
		return t
	}
	return ""
}

func (r *reader) groups() error {
	r.groupIDs = map[string]bool{}
	return r.db.each("category_groups", []string{"id", "name", "is_income", "?hidden"}, "WHERE "+alive+" ORDER BY is_income, sort_order, id",
		func(row row) error {
			if err := movein.Count(movein.EntityGroup, len(r.b.Groups)+1); err != nil {
				return err
			}
			g := movein.CategoryGroup{ID: row.text("id"), Name: strings.TrimSpace(row.text("name")), Income: row.bool("is_income"), Hidden: row.bool("hidden")}
			r.groupIDs[g.ID] = true
			r.b.Groups = append(r.b.Groups, g)
			return nil
		})
}

func (r *reader) categories() error {
	r.categoryTarget, r.categoryByID = map[string]string{}, map[string]*movein.Category{}
	err := r.db.each("category_mapping", []string{"id", "transferId"}, "", func(row row) error {
		r.categoryTarget[row.text("id")] = row.text("transferId")
		return nil
	})
	if err != nil {
		return err
	}
	err = r.db.each("categories", []string{"id", "name", "cat_group", "is_income", "?hidden", "?goal_def"},
		"WHERE "+alive+" ORDER BY is_income, sort_order, id", func(row row) error {
			if err := movein.Count(movein.EntityCategory, len(r.b.Categories)+1); err != nil {
				return err
			}
			c := movein.Category{ID: row.text("id"), Name: strings.TrimSpace(row.text("name")), GroupID: row.text("cat_group"),
				Income: row.bool("is_income"), Hidden: row.bool("hidden")}
			if !r.groupIDs[c.GroupID] {
				r.b.Note(movein.KeptAs, movein.EntityCategory, c.ID, c.Name, "its group %q is not in the export: it is kept without a group", c.GroupID)
				c.GroupID = ""
			}
			r.b.Categories = append(r.b.Categories, c)
			r.goals(c.ID, r.notesByID[c.ID], row.text("goal_def"))
			return nil
		})
	for i := range r.b.Categories {
		r.categoryByID[r.b.Categories[i].ID] = &r.b.Categories[i]
	}
	return err
}

// category resolves a category id as Actual's views do: through category_mapping to a
// category that is not deleted, else none.
func (r *reader) category(id string) string { return r.categoryOf([]byte(id)) }

// categoryOf is category of a column's id read in place (row.key), which it does not copy.
func (r *reader) categoryOf(id []byte) string {
	if t := r.categoryTarget[string(id)]; r.categoryByID[t] != nil {
		return t
	}
	return ""
}
