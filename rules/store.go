package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// Stored is a rule with what the store keeps beside it.
type Stored struct {
	Rule
	Position  int
	CreatedAt time.Time
	UpdatedAt time.Time
	// LastChange is who made the rule's last change.
	LastChange models.Actor
}

// Input is a rule as a client writes it. Nil fields are left as they are on update.
type Input struct {
	Name          *string
	Active        *bool
	EffectiveDate **time.Time
	Match         *string
	Continue      *bool
	Position      *int
	Conditions    *[]Condition
	Actions       *[]Action
}

func notFound() error { return apperr.New(apperr.NotFound, "Rule not found") }

type row struct {
	ID            uuid.UUID  `bun:"id"`
	Name          string     `bun:"name"`
	Active        bool       `bun:"active"`
	EffectiveDate *time.Time `bun:"effective_date"`
	Match         string     `bun:"match"`
	Continue      bool       `bun:"continue_matching"`
	Position      int        `bun:"position"`
	Conditions    []byte     `bun:"conditions"`
	Actions       []byte     `bun:"actions"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	UpdatedBy     *uuid.UUID `bun:"updated_by"`
	UpdatedVia    *string    `bun:"updated_via"`
}

const rowColumns = "id, name, active, effective_date, match, continue_matching, position, conditions, actions, created_at, updated_at, updated_by, updated_via"

// rule is the stored rule as the engine takes it. One that no longer parses still loads,
// and fails to compile with the reason.
func (r row) rule() Rule {
	rule := Rule{ID: r.ID, Name: r.Name, Active: r.Active, EffectiveDate: r.EffectiveDate, Match: r.Match, Continue: r.Continue}
	var cerr, aerr error
	rule.Conditions, cerr = ParseConditions(r.Conditions)
	rule.Actions, aerr = ParseActions(r.Actions)
	rule.parseErr = errors.Join(cerr, aerr)
	return rule
}

func (r row) stored() Stored {
	s := Stored{Rule: r.rule(), Position: r.Position, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		LastChange: models.RecordedActor(r.UpdatedBy, r.UpdatedVia)}
	if s.Conditions == nil {
		s.Conditions = []Condition{}
	}
	if s.Actions == nil {
		s.Actions = []Action{}
	}
	return s
}

// List is the family's rules in their order, as v sees them (shownTo).
func List(ctx context.Context, idb bun.IDB, v models.Viewer) ([]Stored, error) {
	var rows []row
	if err := idb.NewRaw("SELECT "+rowColumns+" FROM rules WHERE family_id = ? ORDER BY position, created_at, id", v.FamilyID).Scan(ctx, &rows); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	out := make([]Stored, len(rows))
	for i, r := range rows {
		out[i] = r.stored()
	}
	return out, showTo(ctx, idb, v, out)
}

// Get is one of the family's rules as v sees it (shownTo); another family's is not found.
func Get(ctx context.Context, idb bun.IDB, v models.Viewer, id uuid.UUID) (*Stored, error) {
	s, err := get(ctx, idb, v.FamilyID, id)
	if err != nil {
		return nil, err
	}
	one := []Stored{*s}
	if err := showTo(ctx, idb, v, one); err != nil {
		return nil, err
	}
	return &one[0], nil
}

// get is one of the family's rules as stored; another family's is not found.
func get(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) (*Stored, error) {
	var r row
	err := idb.NewRaw("SELECT "+rowColumns+" FROM rules WHERE family_id = ? AND id = ?", familyID, id).Scan(ctx, &r)
	if db.IsNoRows(err) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	s := r.stored()
	return &s, nil
}

// Create stores a new rule for v, last in the order unless in says where, and returns it as v
// sees it. A rule that cannot run, or that names records that are not the family's or an
// account kept from v, is refused with the field at fault.
func Create(ctx context.Context, d *db.DB, v models.Viewer, in Input) (*Stored, error) {
	familyID := v.FamilyID
	r := Rule{Active: true, Match: "all"}
	apply(&r, in)
	if err := check(ctx, d, v, r, in); err != nil {
		return nil, err
	}
	id := uuid.Must(uuid.NewV7())
	actor := models.ActorOf(ctx)
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var position int
		if in.Position != nil {
			position = *in.Position
			if _, err := tx.NewRaw("UPDATE rules SET position = position + 1 WHERE family_id = ? AND position >= ?", familyID, position).Exec(ctx); err != nil {
				return err
			}
		} else if err := tx.NewRaw("SELECT coalesce(max(position), 0) + 1 FROM rules WHERE family_id = ?", familyID).Scan(ctx, &position); err != nil {
			return err
		}
		_, err := tx.NewRaw(`INSERT INTO rules (id, family_id, name, active, effective_date, match, continue_matching, position, conditions, actions,
			updated_by, updated_via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, familyID, r.Name, r.Active, r.EffectiveDate, r.Match,
			r.Continue, position, toJSON(r.Conditions), toJSON(r.Actions), actor.UserID, actor.ViaOrNil()).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return Get(ctx, d, v, id)
}

// Update changes what in sets of the family's rule id, for v, and returns it as v sees it. The
// records in the conditions or actions that in sets are checked as Create checks them; those
// it leaves as they are stay, even an account kept from v or gone since.
func Update(ctx context.Context, d *db.DB, v models.Viewer, id uuid.UUID, in Input) (*Stored, error) {
	familyID := v.FamilyID
	cur, err := get(ctx, d, familyID, id)
	if err != nil {
		return nil, err
	}
	r := cur.Rule
	apply(&r, in)
	if err := check(ctx, d, v, r, in); err != nil {
		return nil, err
	}
	actor := models.ActorOf(ctx)
	err = d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if in.Position != nil && *in.Position != cur.Position {
			// Moving a rule shifts the ones between its old and new place by one.
			if _, err := tx.NewRaw(`UPDATE rules SET position = position + CASE WHEN ? < ? THEN 1 ELSE -1 END
				WHERE family_id = ? AND id <> ? AND position BETWEEN least(?, ?) AND greatest(?, ?)`,
				*in.Position, cur.Position, familyID, id, *in.Position, cur.Position, *in.Position, cur.Position).Exec(ctx); err != nil {
				return err
			}
			cur.Position = *in.Position
		}
		_, err := tx.NewRaw(`UPDATE rules SET name = ?, active = ?, effective_date = ?, match = ?, continue_matching = ?, position = ?,
			conditions = ?, actions = ?, updated_at = now(), `+models.SetActorSQL+` WHERE family_id = ? AND id = ?`, r.Name, r.Active,
			r.EffectiveDate, r.Match, r.Continue, cur.Position, toJSON(r.Conditions), toJSON(r.Actions), actor.UserID, actor.ViaOrNil(),
			familyID, id).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return Get(ctx, d, v, id)
}

// Delete removes the family's rule id.
func Delete(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) error {
	res, err := idb.NewRaw("DELETE FROM rules WHERE family_id = ? AND id = ?", familyID, id).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound()
	}
	return nil
}

func apply(r *Rule, in Input) {
	if in.Name != nil {
		r.Name = *in.Name
	}
	if in.Active != nil {
		r.Active = *in.Active
	}
	if in.EffectiveDate != nil {
		r.EffectiveDate = *in.EffectiveDate
	}
	if in.Match != nil {
		r.Match = *in.Match
	}
	if in.Continue != nil {
		r.Continue = *in.Continue
	}
	if in.Conditions != nil {
		r.Conditions = *in.Conditions
	}
	if in.Actions != nil {
		r.Actions = *in.Actions
	}
}

// refTables are the condition and action types whose value names a record, and its table.
var refTables = map[string]string{"transaction_category": "categories", "set_transaction_category": "categories",
	"transaction_merchant": "merchants", "set_transaction_merchant": "merchants", "set_transaction_tags": "tags",
	"transaction_account": "accounts", "mark_as_transfer": "accounts"}

// check refuses a rule r that cannot run, or whose conditions or actions that in sets point at
// records that are not the family's or at an account kept from v (alike: the same field, the
// same words), naming the field at fault.
func check(ctx context.Context, idb bun.IDB, v models.Viewer, r Rule, in Input) error {
	familyID := v.FamilyID
	var problems apperr.Validation
	checkText(&problems, r)
	if err := problems.Err(); err != nil {
		return err
	}
	if err := Validate(r); err != nil {
		field := "rule"
		if e, ok := err.(*Error); ok {
			field = e.Where
			err = fmt.Errorf("%s", e.Msg)
		}
		problems.Add(field, err.Error())
		return problems.Err()
	}
	var walk func(where string, cs []Condition)
	refs := map[string][2]string{} // field → table, id
	walk = func(where string, cs []Condition) {
		for i, c := range cs {
			at := fmt.Sprintf("%s[%d]", where, i)
			if t, ok := refTables[c.Type]; ok && c.Operator != "is_null" {
				s, _ := c.Value.(string)
				refs[at] = [2]string{t, s}
			}
			walk(at+".sub_conditions", c.Sub)
		}
	}
	if in.Conditions != nil {
		walk("conditions", *in.Conditions)
	}
	var actions []Action
	if in.Actions != nil {
		actions = *in.Actions
	}
	for i, a := range actions {
		at := fmt.Sprintf("actions[%d]", i)
		if t, ok := refTables[a.Type]; ok {
			ids, _ := idValues(a.Value)
			for j, id := range ids {
				key := at
				if len(ids) > 1 {
					key = fmt.Sprintf("%s.value[%d]", at, j)
				}
				refs[key] = [2]string{t, id.String()}
			}
		}
	}
	for field, ref := range refs {
		visible, args := "TRUE", []any(nil)
		if ref[0] == "accounts" {
			visible, args = v.VisibleSQL("id")
		}
		var ok bool
		if err := idb.NewRaw("SELECT EXISTS (SELECT 1 FROM ? WHERE id = ? AND family_id = ? AND "+visible+")",
			append([]any{bun.Ident(ref[0]), ref[1], familyID}, args...)...).Scan(ctx, &ok); err != nil {
			return err
		}
		if !ok {
			problems.Add(field, fmt.Sprintf("%s is not one of this family's %s", ref[1], ref[0]))
		}
	}
	return problems.Err()
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Application is a rule applied to a family's history: the change it made (Changed is 0 when
// it changed nothing) and the rule's name, "" when the rule is gone or has none.
type Application struct {
	models.Change
	RuleName string
}

// ApplyToHistory runs the family's rule id (active or not), for v, over all of the family's
// transactions in the accounts v may see, in one database transaction, leaving fields set by
// hand alone, and keeps what it changed for models.UndoWindow. A person applies a rule to
// what they see; the rules that run on new transactions (Runner) run over the whole family.
func ApplyToHistory(ctx context.Context, d *db.DB, v models.Viewer, id uuid.UUID) (*Application, error) {
	familyID := v.FamilyID
	st, err := get(ctx, d, familyID, id)
	if err != nil {
		return nil, err
	}
	rule := st.Rule
	rule.Active, rule.Continue = true, false
	set, err := Compile([]Rule{rule})
	if err != nil {
		var problems apperr.Validation
		problems.Add("rule", err.Error())
		return nil, problems.Err()
	}
	if set.accountTypes, err = accountTypes(ctx, d, familyID); err != nil {
		return nil, err
	}
	app := &Application{Change: models.Change{RuleID: &id}}
	err = d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		visible, args := v.VisibleNumbered("account_id", 2)
		n, err := set.Stage(ctx, tx, `SELECT `+Columns+` FROM entries WHERE family_id = $1 AND kind = 'transaction' AND `+visible,
			append([]any{familyID}, args...)...)
		if err != nil || n == 0 {
			return err
		}
		// What the changed rows were, for Undo, then the change itself.
		change, err := models.RecordChange(ctx, tx, familyID, &id, "entries e JOIN rule_results c ON c.id = e.id WHERE e.family_id = ?", familyID)
		if err != nil || change == nil {
			return err
		}
		app.Change, app.RuleName = *change, st.Name
		_, err = tx.Pgx.Exec(ctx, writeResults, familyID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return app, nil
}

// OpenApplications are the family's rules applied to its history that can still be undone and
// that v may see (models.OpenRuleChanges), the newest first, at most limit of them.
func OpenApplications(ctx context.Context, idb bun.IDB, v models.Viewer, limit int) ([]Application, error) {
	familyID := v.FamilyID
	changes, err := models.OpenRuleChanges(ctx, idb, v, limit)
	if err != nil || len(changes) == 0 {
		return nil, err
	}
	names := map[uuid.UUID]string{}
	var rows []struct {
		ID   uuid.UUID `bun:"id"`
		Name string    `bun:"name"`
	}
	if err := idb.NewRaw("SELECT id, name FROM rules WHERE family_id = ?", familyID).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		names[r.ID] = r.Name
	}
	out := make([]Application, len(changes))
	for i, c := range changes {
		out[i] = Application{Change: c}
		if c.RuleID != nil {
			out[i].RuleName = names[*c.RuleID]
		}
	}
	return out, nil
}

// checkText bounds a rule's free text as it is written: its name, the text its conditions
// look for, and the name it gives. Rules stored before the bounds still run.
func checkText(v *apperr.Validation, r Rule) {
	models.CheckText(v, "name", "Name", r.Name, models.MaxName)
	var walk func(where string, cs []Condition)
	walk = func(where string, cs []Condition) {
		for i, c := range cs {
			at := fmt.Sprintf("%s[%d]", where, i)
			if s, ok := c.Value.(string); ok && (c.Type == "transaction_name" || c.Type == "transaction_notes") {
				models.CheckText(v, at, "The text to look for", s, models.MaxName)
			}
			walk(at+".sub_conditions", c.Sub)
		}
	}
	walk("conditions", r.Conditions)
	for i, a := range r.Actions {
		if s, ok := a.Value.(string); ok && actionFields[a.Type] == FieldName {
			models.CheckText(v, fmt.Sprintf("actions[%d]", i), "The new name", strings.TrimSpace(s), models.MaxName)
		}
	}
}
