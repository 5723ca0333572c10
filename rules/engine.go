package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/models"
	"tally/transfers"
)

// Txn is a transaction as rules see and change it.
type Txn struct {
	ID         uuid.UUID
	AccountID  uuid.UUID
	Date       time.Time
	Amount     decimal.Decimal // positive is an outflow
	Currency   string
	Name       string
	Notes      string
	CategoryID *uuid.UUID
	MerchantID *uuid.UUID
	TagIDs     []uuid.UUID
	Excluded   bool
	// Locked are the fields a person set by hand, which no rule changes.
	Locked []string
	// OriginalName is the source's name, once a rule has renamed the transaction.
	OriginalName *string
	// Kind is the transaction kind a "mark as transfer" rule gave it; empty when none did.
	Kind string

	units     units // Amount in ten-thousandths, when haveUnits
	haveUnits bool
	abs       units
	textBits  []uint64 // which text tests the name and notes pass
}

// texts are a rule set's text tests (name and notes conditions). Bank and card exports repeat
// the same names many times, so each distinct name (and notes) is lowered and tested once per
// run, and its results kept as bits, up to maxCachedTexts of them.
type texts struct {
	tests []textCheck
	notes bool
	cache map[string][]uint64
}

type textCheck struct {
	onNotes bool
	test    func(string) bool
}

const maxCachedTexts = 200_000

func (x *texts) add(onNotes bool, test func(string) bool) int {
	x.tests = append(x.tests, textCheck{onNotes, test})
	x.notes = x.notes || onNotes
	return len(x.tests) - 1
}

// bits are the results of every text test for t.
func (x *texts) bits(t *Txn) []uint64 {
	if len(x.tests) == 0 {
		return nil
	}
	key := t.Name
	if x.notes {
		key = t.Name + "\x00" + t.Notes
	}
	if b, ok := x.cache[key]; ok {
		return b
	}
	b := make([]uint64, (len(x.tests)+63)/64)
	name, notes := strings.ToLower(t.Name), ""
	if x.notes {
		notes = strings.ToLower(t.Notes)
	}
	for i, tt := range x.tests {
		v := name
		if tt.onNotes {
			v = notes
		}
		if tt.test(v) {
			b[i/64] |= 1 << (i % 64)
		}
	}
	if x.cache == nil {
		x.cache = map[string][]uint64{}
	}
	if len(x.cache) < maxCachedTexts {
		x.cache[key] = b
	}
	return b
}

// prepare fills what matchers read, once per transaction.
func (t *Txn) prepare(x *texts) {
	if !t.haveUnits {
		t.units, t.haveUnits = t.Amount.Shift(4).IntPart(), true
	}
	t.abs = t.units
	if t.abs < 0 {
		t.abs = -t.abs
	}
	t.textBits = x.bits(t)
}

// Set is a family's active rules, compiled, in their order.
type Set struct {
	rules []*compiled
	texts texts
	// accountTypes are the family's accounts' types, for the kind of a transfer a rule marks.
	accountTypes map[uuid.UUID]string
}

// Compile readies rules to run, in the order given, leaving out inactive ones. A rule that
// cannot run is an error naming it.
func Compile(rs []Rule) (*Set, error) {
	s := &Set{}
	for _, r := range rs {
		if !r.Active {
			continue
		}
		c, err := compileRule(r, &s.texts)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Where = "rule " + quoteName(r) + ": " + e.Where
			}
			return nil, err
		}
		s.rules = append(s.rules, c)
	}
	return s, nil
}

func quoteName(r Rule) string {
	if r.Name != "" {
		return `"` + r.Name + `"`
	}
	return r.ID.String()
}

// Len is the number of rules that run.
func (s *Set) Len() int { return len(s.rules) }

// Apply runs the rules over t, changing it, and reports whether anything changed. Rules run
// in order and test the transaction as it arrived; the first one that sets a field wins it,
// tags add up, a matching rule stops the run unless it says to continue, and fields in
// t.Locked are never changed.
func (s *Set) Apply(t *Txn) bool {
	if s == nil || len(s.rules) == 0 {
		return false
	}
	in := *t
	in.prepare(&s.texts)
	var decided fieldSet
	locked := fieldsOf(t.Locked)
	changed := false
	for _, r := range s.rules {
		if r.gate >= 0 && in.textBits[r.gate/64]&(1<<(r.gate%64)) == 0 {
			continue // its text test fails: no need to look further
		}
		if !r.test(&in) {
			continue
		}
		free := ^(decided | locked)
		e := r.effect
		if e.category != nil && free.has(fieldCategory) && (t.CategoryID == nil || *t.CategoryID != *e.category) {
			t.CategoryID, changed = e.category, true
		}
		if e.merchant != nil && free.has(fieldMerchant) && (t.MerchantID == nil || *t.MerchantID != *e.merchant) {
			t.MerchantID, changed = e.merchant, true
		}
		if len(e.tags) > 0 && !locked.has(fieldTags) {
			for _, id := range e.tags {
				if !slices.Contains(t.TagIDs, id) {
					t.TagIDs, changed = append(slices.Clip(t.TagIDs), id), true
				}
			}
		}
		if e.name != nil && free.has(fieldName) && t.Name != *e.name {
			if t.OriginalName == nil {
				orig := t.Name
				t.OriginalName = &orig
			}
			t.Name, changed = *e.name, true
		}
		if e.excluded && free.has(fieldExcluded) && !t.Excluded {
			t.Excluded, changed = true, true
		}
		if e.transferTo != nil && free.has(fieldTransfer) && *e.transferTo != t.AccountID {
			t.Kind, changed = s.transferKind(&in, *e.transferTo), true
		}
		decided |= r.sets
		if !r.rule.Continue {
			break
		}
	}
	return changed
}

// transferKind is the kind of t as a transfer with the account other: money in is a funds
// movement, and money out is after the account it goes to (transfers.KindTo).
func (s *Set) transferKind(t *Txn, other uuid.UUID) string {
	if t.units < 0 {
		return models.KindFundsMovement
	}
	return transfers.KindTo(s.accountTypes[t.AccountID], s.accountTypes[other])
}

// fieldSet is a set of the fields rules set, as bits.
type fieldSet uint8

const (
	fieldCategory fieldSet = 1 << iota
	fieldMerchant
	fieldTags
	fieldName
	fieldExcluded
	fieldTransfer
)

var fieldBits = map[string]fieldSet{FieldCategory: fieldCategory, FieldMerchant: fieldMerchant, FieldTags: fieldTags,
	FieldName: fieldName, FieldExcluded: fieldExcluded, FieldTransfer: fieldTransfer}

func (f fieldSet) has(x fieldSet) bool { return f&x != 0 }

func fieldsOf(names []string) fieldSet {
	var f fieldSet
	for _, n := range names {
		f |= fieldBits[n]
	}
	return f
}

// Matches reports whether rule r matches t, for previews.
func Matches(r Rule, t *Txn) (bool, error) {
	var x texts
	c, err := compileRule(r, &x)
	if err != nil {
		return false, err
	}
	in := *t
	in.prepare(&x)
	return c.test(&in), nil
}
