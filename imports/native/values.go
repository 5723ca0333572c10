package native

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// The accessors below read a record's fields for the importer. Preflight has already checked
// the values, so a field that does not read is treated as absent.

// String returns a text field, trimmed; "" when absent or not text.
func (r *Record) String(key string) string { return Text(r.Data, key) }

// ID returns a reference field as a source id; "" when absent.
func (r *Record) ID(key string) string { return IDOf(r.Data, key) }

// Decimal returns a number field.
func (r *Record) Decimal(key string) (decimal.Decimal, bool) { return Number(r.Data, key) }

// Date returns a date field (a timestamp keeps its date).
func (r *Record) Date(key string) (time.Time, bool) { return DateOf(r.Data, key) }

// Time returns a timestamp field, as an export writes it (RFC 3339).
func (r *Record) Time(key string) (time.Time, bool) { return TimeOf(r.Data, key) }

// TimeOf returns m[key] as a timestamp (RFC 3339).
func TimeOf(m map[string]any, key string) (time.Time, bool) {
	s, ok := m[key].(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	return t, err == nil
}

// Strings returns an array field of text; what is not text is left out.
func Strings(m map[string]any, key string) []string {
	arr, _ := m[key].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Bool reports whether a field is JSON true (or the string "true").
func (r *Record) Bool(key string) bool { return Truthy(r.Data[key]) }

// Text returns m[key] as trimmed text.
func Text(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}

// IDOf returns m[key] as a source id: a string or a number.
func IDOf(m map[string]any, key string) string {
	s, _ := scalarString(m[key])
	return s
}

// Number returns m[key] as a decimal, from a JSON number or a numeric string.
func Number(m map[string]any, key string) (decimal.Decimal, bool) {
	if isBlank(m[key]) {
		return decimal.Decimal{}, false
	}
	n, err := numberValue(m[key])
	return n, err == ""
}

// DateOf returns m[key] as a date.
func DateOf(m map[string]any, key string) (time.Time, bool) {
	return dateValue(m[key])
}

// Truthy reports whether v is true, "true", "1" or a non-zero number: the skip flags of
// Sure's exports come in all of these shapes.
func Truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1", "yes":
			return true
		}
	default:
		if n, err := numberValue(v); err == "" {
			return !n.IsZero()
		}
	}
	return false
}

// SplitLines returns a transaction's split lines, under any of the names exports use.
func (r *Record) SplitLines() []map[string]any {
	lines, _, _ := splitLines(r.Data)
	out := make([]map[string]any, 0, len(lines))
	for _, v := range lines {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// SplitAmount returns a split line's amount under any of its names.
func SplitAmount(m map[string]any) (decimal.Decimal, bool) {
	for _, key := range []string{"amount", "amount_decimal", "amount_money"} {
		v := m[key]
		if money, ok := v.(map[string]any); ok {
			v = money["amount"]
		}
		if !isBlank(v) {
			n, err := numberValue(v)
			return n, err == ""
		}
	}
	return decimal.Decimal{}, false
}

// IDList returns an array field of ids, such as tag_ids.
func IDList(m map[string]any, key string) []string {
	arr, _ := m[key].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := scalarString(v); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}
