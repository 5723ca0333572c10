package sso

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
)

// ClaimString reads a claim by path: "email", "user.email", "data.attributes.name" (dots walk
// into objects); numbers become their decimal text (GitHub ids are numbers). A key that itself
// holds dots, like Auth0's namespaced "https://example.com/email", is found when it is at the
// top level. Anything else (a missing claim, an object, an array, a boolean) is "".
func ClaimString(claims map[string]any, path string) string {
	return scalarText(claimValue(claims, path))
}

// ClaimGroups reads groups by path: a JSON array of strings (or of objects with a "name"
// field), or a string split on commas and whitespace. Order kept, blanks and duplicates
// dropped, case kept: group mappings match case-sensitively.
func ClaimGroups(claims map[string]any, path string) []string {
	var raw []string
	switch v := claimValue(claims, path).(type) {
	case string:
		raw = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	case []string:
		raw = v
	case []any:
		for _, e := range v {
			if obj, ok := e.(map[string]any); ok {
				e = obj["name"]
			}
			raw = append(raw, scalarText(e))
		}
	}
	var groups []string
	seen := make(map[string]bool, len(raw))
	for _, g := range raw {
		g = strings.TrimSpace(g)
		if g == "" || seen[g] {
			continue
		}
		seen[g] = true
		groups = append(groups, g)
	}
	return groups
}

// claimValue finds the value at path, or nil. The whole path is tried as a top-level key
// first, so namespaced claims with dots in their names work without escaping.
func claimValue(claims map[string]any, path string) any {
	if path == "" || claims == nil {
		return nil
	}
	if v, ok := claims[path]; ok {
		return v
	}
	var cur any = claims
	for part := range strings.SplitSeq(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = obj[part]; !ok {
			return nil
		}
	}
	return cur
}

// scalarText is a string or number claim as text. Numbers may arrive as float64 (plain
// encoding/json), json.Number (decoded with UseNumber, exact for large ids) or Go integers
// (claims built in code).
func scalarText(v any) string {
	switch n := v.(type) {
	case string:
		return n
	case json.Number:
		return n.String()
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(n), 'f', -1, 32)
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	case int32:
		return strconv.FormatInt(int64(n), 10)
	case uint64:
		return strconv.FormatUint(n, 10)
	}
	return ""
}
