package parse

import (
	"slices"
	"strings"
)

// Tags splits a tags cell into tag names.
//
// Tags are separated by commas, or by pipes when the cell has no unescaped comma, so that a
// file may use either. A backslash escapes ',', '|' and itself; before anything else it is
// kept. Tags are trimmed, blank ones are dropped, and a repeated tag is kept once, where it
// first appears.
func Tags(cell string) []string {
	sep := byte(',')
	if !hasUnescaped(cell, ',') && hasUnescaped(cell, '|') {
		sep = '|'
	}
	var tags []string
	var tag strings.Builder
	add := func() {
		if t := strings.TrimSpace(tag.String()); t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
		tag.Reset()
	}
	for i := 0; i < len(cell); i++ {
		c := cell[i]
		switch {
		case c == '\\' && i+1 < len(cell) && isTagEscapable(cell[i+1]):
			i++
			tag.WriteByte(cell[i])
		case c == sep:
			add()
		default:
			tag.WriteByte(c)
		}
	}
	add()
	return tags
}

// hasUnescaped reports whether cell holds sep outside a backslash escape.
func hasUnescaped(cell string, sep byte) bool {
	for i := 0; i < len(cell); i++ {
		switch {
		case cell[i] == '\\' && i+1 < len(cell) && isTagEscapable(cell[i+1]):
			i++
		case cell[i] == sep:
			return true
		}
	}
	return false
}

func isTagEscapable(c byte) bool { return c == ',' || c == '|' || c == '\\' }
