package parse

import (
	"slices"
	"testing"
)

func TestTags(t *testing.T) {
	tests := []struct {
		name string
		cell string
		want []string
	}{
		{"comma-separated tags", "groceries,essentials", []string{"groceries", "essentials"}},
		{"escaped comma inside a tag", `Food\, Dining,essentials`, []string{"Food, Dining", "essentials"}},
		{"escaped pipe and no separator", `Food\|Dining`, []string{"Food|Dining"}},
		{"escaped pipe in a pipe-separated cell", `Food\|Dining|essentials`, []string{"Food|Dining", "essentials"}},
		{"pipe-separated tags", "Food|Weekly", []string{"Food", "Weekly"}},
		{"commas win over pipes", "a|b,c", []string{"a|b", "c"}},
		{"escaped comma does not make commas the separator", `a\,b|c`, []string{"a,b", "c"}},
		{"escaped backslash", `a\\,b`, []string{`a\`, "b"}},
		{"escaped backslash before a pipe leaves the pipe a separator", `a\\|b`, []string{`a\`, "b"}},
		{"backslash before another character is kept", `a\b`, []string{`a\b`}},
		{"trailing lone backslash is kept", `a,b\`, []string{"a", `b\`}},
		{"tags are trimmed", "  rent ,  utilities  ", []string{"rent", "utilities"}},
		{"blank tags are dropped", "a,, ,b,", []string{"a", "b"}},
		{"duplicates are dropped keeping the first", "b, a ,b,a,c", []string{"b", "a", "c"}},
		{"duplicates are exact: case differs", "Trip,trip", []string{"Trip", "trip"}},
		{"one tag", "travel", []string{"travel"}},
		{"non-ASCII tags", "café,Łódź", []string{"café", "Łódź"}},
		{"blank cell", "   ", nil},
		{"empty cell", "", nil},
		{"separators only", ", ,,", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tags(tt.cell)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Tags(%q) = %q, want %q", tt.cell, got, tt.want)
			}
			if len(tt.want) == 0 && len(got) != 0 {
				t.Fatalf("Tags(%q) = %q, want none", tt.cell, got)
			}
		})
	}
}
