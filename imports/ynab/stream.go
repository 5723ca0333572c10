package ynab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"tally/imports/movein"
)

// stream walks the budget JSON with a json.Decoder: it keeps each array's elements as it
// decodes them one at a time, counted against movein's bounds, and skips what it does not
// read token by token. So a file of a million categories is refused at the first one past the
// bound, having held no more than that.
type stream struct {
	dec    *json.Decoder
	raw    raw
	counts map[string]int // elements kept of each entity, split parts with transactions
}

// read walks the top level: the budget is the whole object, or data.budget, or data.plan.
func (s *stream) read() error {
	if err := s.open('{', "the file"); err != nil {
		return err
	}
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return err
		}
		if key != "data" {
			if err := s.field(key); err != nil {
				return err
			}
			continue
		}
		if err := s.open('{', "data"); err != nil {
			return err
		}
		for s.dec.More() {
			key, err := s.key()
			if err != nil {
				return err
			}
			if key == "budget" || key == "plan" {
				err = s.budget()
			} else {
				err = s.skip()
			}
			if err != nil {
				return err
			}
		}
		if err := s.close(); err != nil {
			return err
		}
	}
	if err := s.close(); err != nil {
		return err
	}
	if _, err := s.dec.Token(); err != io.EOF {
		return movein.Errorf("file", "", "the file goes on after the budget's JSON")
	}
	return nil
}

// budget reads the budget object's fields.
func (s *stream) budget() error {
	if err := s.open('{', "the budget"); err != nil {
		return err
	}
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return err
		}
		if err := s.field(key); err != nil {
			return err
		}
	}
	return s.close()
}

// field reads one field of the budget.
func (s *stream) field(key string) error {
	r := &s.raw
	switch key {
	case "name":
		return s.value(key, &r.name)
	case "currency_format":
		return s.value(key, &r.currency)
	case "accounts":
		return each(s, key, movein.EntityAccount, &r.accounts)
	case "payees":
		return each(s, key, movein.EntityPayee, &r.payees)
	case "category_groups":
		return each(s, key, movein.EntityGroup, &r.groups)
	case "categories":
		return each(s, key, movein.EntityCategory, &r.categories)
	case "transactions":
		return each(s, key, movein.EntityTransaction, &r.transactions)
	case "subtransactions":
		return each(s, key, movein.EntityTransaction, &r.subtransactions)
	case "scheduled_transactions":
		return each(s, key, movein.EntitySchedule, &r.scheduled)
	case "scheduled_subtransactions":
		return each(s, key, movein.EntitySchedule, &r.scheduledSubs)
	case "months":
		return s.months()
	}
	return s.skip()
}

// each decodes the array key one element at a time into list, refusing the element past
// entity's bound before it is kept.
func each[T any](s *stream, key, entity string, list *[]T) error {
	if err := s.open('[', key); err != nil {
		return err
	}
	for i := 0; s.dec.More(); i++ {
		s.counts[entity]++
		if err := movein.Count(entity, s.counts[entity]); err != nil {
			return err
		}
		var v T
		if err := s.dec.Decode(&v); err != nil {
			return s.fail(fmt.Sprintf("%s[%d]", key, i), err)
		}
		*list = append(*list, v)
	}
	return s.close()
}

// months reads each month and its categories' budgets, keeping the lines that budget
// something: YNAB lists every category in every month.
func (s *stream) months() error {
	if err := s.open('[', "months"); err != nil {
		return err
	}
	for i := 0; s.dec.More(); i++ {
		where := fmt.Sprintf("months[%d]", i)
		if err := s.open('{', where); err != nil {
			return err
		}
		var m month
		for s.dec.More() {
			key, err := s.key()
			if err != nil {
				return err
			}
			switch key {
			case "month":
				err = s.value(where+".month", &m.Month)
			case "deleted":
				err = s.value(where+".deleted", &m.Deleted)
			case "categories":
				err = s.open('[', where+".categories")
				for k := 0; err == nil && s.dec.More(); k++ {
					var c monthCategory
					if err = s.dec.Decode(&c); err != nil {
						err = s.fail(fmt.Sprintf("%s.categories[%d]", where, k), err)
					} else if c.Budgeted != 0 && !c.Deleted {
						s.counts[movein.EntityMonth]++
						if err = movein.Count(movein.EntityMonth, s.counts[movein.EntityMonth]); err == nil {
							m.Categories = append(m.Categories, c)
						}
					}
				}
				if err == nil {
					err = s.close()
				}
			default:
				err = s.skip()
			}
			if err != nil {
				return err
			}
		}
		if err := s.close(); err != nil {
			return err
		}
		s.raw.months = append(s.raw.months, m)
	}
	return s.close()
}

// key reads an object's next key.
func (s *stream) key() (string, error) {
	t, err := s.dec.Token()
	if err != nil {
		return "", s.fail("", err)
	}
	k, _ := t.(string)
	return k, nil
}

// value decodes the next value into v.
func (s *stream) value(where string, v any) error {
	if err := s.dec.Decode(v); err != nil {
		return s.fail(where, err)
	}
	return nil
}

// open reads the delimiter that opens what, else fails naming it.
func (s *stream) open(delim json.Delim, what string) error {
	t, err := s.dec.Token()
	if err != nil {
		return s.fail(what, err)
	}
	if t != delim {
		kind := map[json.Delim]string{'{': "an object", '[': "an array"}[delim]
		if what == "the file" {
			return movein.Errorf("file", "", "the file is not the JSON of a YNAB budget: it does not start with an object")
		}
		return movein.Errorf("file", what, "%s is not %s", what, kind)
	}
	return nil
}

// close reads the delimiter that closes the current object or array.
func (s *stream) close() error {
	if _, err := s.dec.Token(); err != nil {
		return s.fail("", err)
	}
	return nil
}

// skip passes over the next value, a token at a time, whatever its size.
func (s *stream) skip() error {
	depth := 0
	for {
		t, err := s.dec.Token()
		if err != nil {
			return s.fail("", err)
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// fail turns a decoding error into a refusal naming where it is.
func (s *stream) fail(where string, err error) error {
	var me *movein.Error
	if errors.As(err, &me) {
		return err
	}
	at := fmt.Sprintf("at byte %d", s.dec.InputOffset())
	if where != "" {
		at = where + " " + at
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return movein.Errorf("file", where, "the file ends too soon: %s is cut short", orFile(where))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return movein.Errorf("file", where, "%s cannot be read: its %s is a JSON %s where YNAB writes %s", at, te.Field, te.Value, typeName(te.Type.String()))
	}
	return movein.Errorf("file", where, "the file is not the JSON of a YNAB budget: %s %s", err, at)
}

func orFile(where string) string {
	if where == "" {
		return "the file"
	}
	return where
}

// typeName says a Go type the way the message's reader thinks of it.
func typeName(t string) string {
	switch t {
	case "int64", "*int64":
		return "a whole number of milliunits"
	case "bool":
		return "true or false"
	case "string", "*string":
		return "text"
	}
	return "something else"
}
