package sso_test

import (
	"encoding/json"
	"slices"
	"testing"

	"tally/sso"
)

func TestClaimString(t *testing.T) {
	claims := map[string]any{
		"email":                      "ada@example.com",
		"id":                         float64(583231), // as encoding/json decodes a GitHub id
		"big":                        json.Number("9007199254740993"),
		"int":                        42,
		"fraction":                   1.5,
		"verified":                   true,
		"list":                       []any{"a"},
		"user":                       map[string]any{"email": "nested@example.com", "id": float64(7)},
		"data":                       map[string]any{"attributes": map[string]any{"name": "Ada Lovelace"}},
		"https://tally.example/role": "admin",
		"text":                       "not an object",
	}
	for _, tc := range []struct{ path, want string }{
		{"email", "ada@example.com"},
		{"id", "583231"},
		{"big", "9007199254740993"},
		{"int", "42"},
		{"fraction", "1.5"},
		{"user.email", "nested@example.com"},
		{"user.id", "7"},
		{"data.attributes.name", "Ada Lovelace"},
		{"https://tally.example/role", "admin"}, // a dotted key at the top level
		{"verified", ""},                        // booleans are not text
		{"list", ""},
		{"user", ""},
		{"text.more", ""}, // walking into a string
		{"missing", ""},
		{"user.missing", ""},
		{"", ""},
	} {
		if got := sso.ClaimString(claims, tc.path); got != tc.want {
			t.Errorf("ClaimString(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if got := sso.ClaimString(nil, "email"); got != "" {
		t.Errorf("ClaimString(nil) = %q", got)
	}
}

func TestClaimGroups(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value any
		want  []string
	}{
		{"array", []any{"admins", "Family", "admins", " ", "staff"}, []string{"admins", "Family", "staff"}},
		{"go strings", []string{"b", "a", "b"}, []string{"b", "a"}},
		{"array of objects", []any{map[string]any{"name": "admins", "id": 1}, map[string]any{"id": 2}, map[string]any{"name": "users"}}, []string{"admins", "users"}},
		{"comma string", "admins, users,,Admins", []string{"admins", "users", "Admins"}},
		{"space string", "admins users\tstaff\nadmins", []string{"admins", "users", "staff"}},
		{"mixed junk", []any{nil, true, map[string]any{"name": 5.0}, []any{"x"}, "ok"}, []string{"5", "ok"}},
		{"blank string", "  ", nil},
		{"object", map[string]any{"admins": true}, nil},
		{"missing", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claims := map[string]any{"org": map[string]any{"groups": tc.value}}
			if got := sso.ClaimGroups(claims, "org.groups"); !slices.Equal(got, tc.want) {
				t.Errorf("ClaimGroups = %q, want %q", got, tc.want)
			}
		})
	}
}
