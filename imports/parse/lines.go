package parse

import (
	"iter"
	"slices"
	"strings"
)

// Lines yields the lines of s, split on CRLF, LF or CR and without them, with the byte at which
// each starts. Text ending in a line break ends with an empty line.
func Lines(s string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for at := 0; ; {
			i := strings.IndexAny(s[at:], "\r\n")
			if i < 0 {
				yield(at, s[at:])
				return
			}
			if !yield(at, s[at:at+i]) {
				return
			}
			if s[at+i] == '\r' && at+i+1 < len(s) && s[at+i+1] == '\n' {
				i++
			}
			at += i + 1
		}
	}
}

// GrowFor makes room in s, about to take the item that starts at byte at of a text of size
// bytes, for the items the rest of the text holds at the density so far, the first item having
// started at byte first. Once s is full past 1,024 items it grows once to that and a sixteenth
// more, rather than by a quarter at a time with a copy of every item each time; a text cannot
// make it reserve more than its own items would need.
func GrowFor[T any](s []T, first, at, size int) []T {
	if n := len(s); n < cap(s) || n < 1024 {
		return s
	}
	per := max((at-first)/len(s), 1)
	return slices.Grow(s, (size-at)/per*17/16+1)
}
