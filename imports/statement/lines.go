package statement

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on the text Parse reads. Real statements stay far below them; they keep a hostile
// or broken input from taking unbounded time or memory.
const (
	maxPages        = 500
	maxLinesPerPage = 2000
	maxLineBytes    = 1000
	maxWordsPerLine = 200
)

// textLine is one line of a page's text.
type textLine struct {
	page, no int    // 1-based
	raw      string // as in the input, without "\r" and trailing blanks
	words    []word
	dates    []foundDate // the dates printed anywhere on the line
}

// word is a run of non-blank characters. Columns count characters, not bytes: layout text
// aligns columns by character, and a "€" must not shift everything after it.
type word struct {
	text       string
	start, end int // byte offsets in the line
	col, end2  int // first column and the column after the last character
}

// pageText is the pages' text as Parse reads it, within the bounds above. It is read a line
// at a time, and a line is cut into words and dates only as it is read, so that a reading
// holds one line's words, never a statement's: Parse reads the text twice (for what its dates
// say, then for its lines).
type pageText struct {
	pages     []string
	truncated bool // a reading left something out
}

// newPageText is the text of pages, the pages past maxPages left out.
func newPageText(pages []string) *pageText {
	t := &pageText{pages: pages}
	if len(pages) > maxPages {
		t.pages, t.truncated = pages[:maxPages], true
	}
	return t
}

// lines yields the lines of the pages in order.
func (t *pageText) lines() iter.Seq[textLine] {
	return func(yield func(textLine) bool) {
		for p, text := range t.pages {
			no := 0
			for row := range strings.SplitSeq(text, "\n") {
				if no == maxLinesPerPage {
					t.truncated = true
					break
				}
				no++
				row = strings.TrimRight(row, " \t\r\f")
				if len(row) > maxLineBytes {
					row, t.truncated = cutAtRune(row, maxLineBytes), true
				}
				words := splitWords(row)
				if !yield(textLine{page: p + 1, no: no, raw: row, words: words, dates: datesIn(row, words)}) {
					return
				}
			}
		}
	}
}

// cutAtRune shortens s to at most n bytes without splitting a character.
func cutAtRune(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// splitWords cuts a line into words at blanks, recording each word's byte span and columns.
func splitWords(s string) []word {
	var words []word
	col, start, startCol := 0, -1, 0
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				words = append(words, word{s[start:i], start, i, startCol, col})
				start = -1
			}
		} else if start < 0 {
			start, startCol = i, col
		}
		col++
		if len(words) >= maxWordsPerLine {
			return words
		}
	}
	if start >= 0 {
		words = append(words, word{s[start:], start, len(s), startCol, col})
	}
	return words
}

// cell is a run of words separated by single blanks: in layout text, two or more blanks
// separate columns.
type cell struct {
	text      string
	col, end2 int
	first     int // index of its first word
}

func cells(l textLine) []cell {
	var out []cell
	for i, w := range l.words {
		if len(out) > 0 && w.col-l.words[i-1].end2 < 2 {
			c := &out[len(out)-1]
			c.text = l.raw[l.words[c.first].start:w.end]
			c.end2 = w.end2
			continue
		}
		out = append(out, cell{w.text, w.col, w.end2, i})
	}
	return out
}

// hasLetter reports whether s has a letter: descriptions do, and rows of bare numbers (daily
// balance tables, page numbers) do not.
func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// lowerWords returns s in lower case with its blanks collapsed, for phrase matching.
func lowerWords(s string) string {
	return " " + strings.ToLower(strings.Join(strings.Fields(s), " ")) + " "
}
