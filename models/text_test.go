package models_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"tally/internal/apperr"
	"tally/models"
)

// TestTextBounds counts characters, not bytes, and cuts only between characters.
func TestTextBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		s       string
		max     int
		tooLong bool
		kept    string
	}{
		{"at the bound", strings.Repeat("x", 255), 255, false, strings.Repeat("x", 255)},
		{"one over", strings.Repeat("x", 256), 255, true, strings.Repeat("x", 255)},
		{"two-byte characters at the bound", strings.Repeat("é", 255), 255, false, strings.Repeat("é", 255)},
		{"emoji over the bound", strings.Repeat("🧾", 300), 255, true, strings.Repeat("🧾", 255)},
		{"empty", "", 10, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v apperr.Validation
			models.CheckText(&v, "name", "Name", tc.s, tc.max)
			if err := v.Err(); (err != nil) != tc.tooLong {
				t.Fatalf("CheckText: %v, want too long %v", err, tc.tooLong)
			} else if err != nil && apperr.As(err).Fields["name"][0] != "Name can be at most 255 characters long" {
				t.Errorf("message %q", apperr.As(err).Fields["name"])
			}
			got, cut := models.Clip(tc.s, tc.max)
			if got != tc.kept || cut != tc.tooLong || !utf8.ValidString(got) {
				t.Errorf("Clip: %d characters, cut %v", utf8.RuneCountInString(got), cut)
			}
		})
	}
	var v apperr.Validation
	models.CheckEntryText(&v, "", strings.Repeat("n", models.MaxNotes+1))
	if e := apperr.As(v.Err()); e == nil || e.Fields["notes"][0] != "Notes can be at most 10,000 characters long" {
		t.Errorf("notes over the bound: %v", v.Err())
	}
}
