package models

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"tally/internal/apperr"
)

// Free text is bounded, so that no request, import or bank sync stores megabytes that every
// page showing it then carries. Lengths count characters, not bytes. Every write path checks
// its text with CheckText (a person or an API client is told, by field) or cuts it with Clip
// (a file or a bank is not asked again: the cut is noted where the text is shown).
const (
	// MaxName bounds a name: of a transaction, account, category, tag, merchant, rule, API
	// key, application, import profile, passkey, family or person, and the file names for
	// them (an import's category, tag and account columns).
	MaxName = 255
	// MaxNotes bounds notes and other long text: a transaction's notes, a description.
	MaxNotes = 10_000
	// MaxURL bounds a URL.
	MaxURL = 2048
)

// CheckEntryText bounds a transaction's name and notes, wherever a person or an API client
// writes them ("" for one not given).
func CheckEntryText(v *apperr.Validation, name, notes string) {
	CheckText(v, "name", "Name", name, MaxName)
	CheckText(v, "notes", "Notes", notes, MaxNotes)
}

// TextTooLong is the problem of a text over max characters, which label names.
func TextTooLong(label string, max int) string {
	return fmt.Sprintf("%s can be at most %s characters long", label, groupThousands(max))
}

// ClipNote is the note of a text cut to max characters, which label names.
func ClipNote(label string, max int) string {
	n := groupThousands(max)
	return fmt.Sprintf("%s had more than %s characters: the first %s are kept.", label, n, n)
}

// CheckText adds to v, under field, the problem of s when it is over max characters.
func CheckText(v *apperr.Validation, field, label, s string, max int) {
	if len(s) > max && utf8.RuneCountInString(s) > max {
		v.Add(field, TextTooLong(label, max))
	}
}

// Clip returns s cut to max characters, and whether it was cut.
func Clip(s string, max int) (string, bool) {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// groupThousands writes n with commas between thousands: 10,000.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
