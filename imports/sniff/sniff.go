// Package sniff guesses how a bank's CSV export is written, so that a person sees the file
// read correctly before choosing anything: the separator, the lines of preamble before the
// header, what each column holds, and how dates and numbers are written.
//
// Every guess says whether the file proves it. A date column whose days never pass 12 does
// not tell day-first from month-first; such a guess is marked ambiguous, for a person to
// settle, never silently taken.
package sniff

import (
	"encoding/csv"
	"io"
	"slices"
	"strings"

	"tally/imports/parse"
)

// Separators are the column separators tried, in order of preference when a file fits
// several equally.
var Separators = []rune{',', ';', '\t', '|'}

// sampleRecords is how many records of a file the guessers look at.
const sampleRecords = 200

// Layout is where a file's table is: its separator, and the lines before its header.
type Layout struct {
	Separator rune
	// Skip is how many lines come before the header (a bank's preamble: the account, the
	// period, a title).
	Skip int
	// Headers and Samples are the header and up to sampleRecords records under it, read
	// with Separator.
	Headers []string
	Samples [][]string
}

// Table finds a file's separator and header. The header is the first record that reads as one
// (two cells or more, none a date or an amount) and is followed by rows of transactions (see
// rowsFollow): a bank's preamble above it ("Umsatzanzeige Girokonto", "Kontonummer:";"DE…";)
// is passed over even when a spreadsheet padded its lines with empty cells to the table's
// width. Failing that, it is the first such record two of whose cells name columns (dates the
// guessers cannot read), else the one with the most cells. The separator is the one whose
// header is found on the strongest evidence, then with the most cells, then the first of
// Separators.
func Table(text string) (Layout, bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	var best Layout
	var bestRank headerRank
	for _, sep := range Separators {
		recs, lines := Records(text, sep, sampleRecords+20)
		header, rank := findHeader(recs)
		if header < 0 || !rank.above(bestRank) {
			continue
		}
		l := Layout{Separator: sep, Skip: lines[header] - 1, Headers: trimAll(recs[header])}
		for _, r := range recs[header+1:] {
			if !blank(r) {
				l.Samples = append(l.Samples, trimAll(r))
			}
		}
		best, bestRank = l, rank
	}
	return best, bestRank.evidence > 0
}

// The evidence a header is found on, strongest last.
const (
	byCells = iota + 1 // the header-like record with the most cells
	byNames            // a header-like record two of whose cells name columns
	byRows             // a header-like record followed by rows of transactions
)

// headerRank is how a header was found: its evidence, and its number of non-blank cells.
type headerRank struct{ evidence, cells int }

func (r headerRank) above(o headerRank) bool {
	return r.evidence > o.evidence || r.evidence == o.evidence && r.cells > o.cells
}

// findHeader is the index of the header among recs and how it was found (Table); -1 when no
// record reads as a header followed by another.
func findHeader(recs [][]string) (int, headerRank) {
	widest, cells := -1, 0
	named := -1
	for i, r := range recs {
		n := filled(r)
		if n < 2 || !headerLike(r) || !followed(recs, i) {
			continue
		}
		if rowsFollow(recs, i) {
			return i, headerRank{byRows, n}
		}
		if named < 0 && namesColumns(r) {
			named = i
		}
		if n > cells {
			widest, cells = i, n
		}
	}
	if named >= 0 {
		return named, headerRank{byNames, filled(recs[named])}
	}
	return widest, headerRank{byCells, cells}
}

// headerLike reports whether no cell of rec reads as a date or an amount.
func headerLike(rec []string) bool {
	for _, c := range rec {
		if c = strings.TrimSpace(c); c != "" && (isDate(c) || isAmount(c)) {
			return false
		}
	}
	return true
}

// namesColumns reports whether two cells of rec or more are headers of a known column.
func namesColumns(rec []string) bool {
	n := 0
	for _, c := range rec {
		if _, ok := headerRole(c); ok {
			n++
		}
	}
	return n >= 2
}

// followed reports whether a record that is not blank comes after recs[i].
func followed(recs [][]string, i int) bool {
	return slices.ContainsFunc(recs[i+1:], func(r []string) bool { return !blank(r) })
}

// maxPendingRows is how many rows without a date (pending ones: Comdirect's "offen") may come
// between a header and its first dated row.
const maxPendingRows = 5

// rowsFollow reports whether the header recs[i] is followed by rows of transactions: each
// record up to the first with both a date and an amount has an amount, under columns the
// header names, and no value beyond the header's last column. A bank's preamble line
// ("Kontonummer:";"DE…") is followed by more preamble, or by the header: no amount.
func rowsFollow(recs [][]string, i int) bool {
	header := recs[i]
	rows := 0
	for _, r := range recs[i+1:] {
		if blank(r) {
			continue
		}
		if rows++; rows > maxPendingRows+1 || lastFilled(r) >= len(header) {
			return false
		}
		date, amount := false, false
		for j, c := range r {
			if c = strings.TrimSpace(c); c == "" || j >= len(header) || strings.TrimSpace(header[j]) == "" {
				continue
			}
			if isDate(c) {
				date = true
			} else if isAmount(c) {
				amount = true
			}
		}
		if !amount {
			return false
		}
		if date {
			return true
		}
	}
	return false
}

// filled is how many cells of rec are not blank.
func filled(rec []string) int {
	n := 0
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			n++
		}
	}
	return n
}

// lastFilled is the index of rec's last cell that is not blank, -1 when all are.
func lastFilled(rec []string) int {
	for i := len(rec) - 1; i >= 0; i-- {
		if strings.TrimSpace(rec[i]) != "" {
			return i
		}
	}
	return -1
}

// Records reads up to n records of text split by sep, with the line each starts on; it stops
// at the first record the CSV reader refuses.
func Records(text string, sep rune, n int) ([][]string, []int) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = sep
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	var recs [][]string
	var lines []int
	for len(recs) < n {
		rec, err := r.Read()
		if err == io.EOF || err != nil {
			break
		}
		line, _ := r.FieldPos(0)
		recs = append(recs, rec)
		lines = append(lines, line)
	}
	return recs, lines
}

func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

func trimAll(rec []string) []string {
	out := make([]string, len(rec))
	for i, f := range rec {
		out[i] = strings.TrimSpace(f)
	}
	return out
}

// column returns the non-blank values of column i of samples.
func column(samples [][]string, i int) []string {
	var out []string
	for _, r := range samples {
		if i < len(r) && strings.TrimSpace(r[i]) != "" {
			out = append(out, strings.TrimSpace(r[i]))
		}
	}
	return out
}

// isDate reports whether s reads as a date in one of the date patterns.
func isDate(s string) bool {
	for _, p := range datePatterns {
		if _, err := parse.Date(s, p); err == nil {
			return true
		}
	}
	return false
}

// isAmount reports whether s reads as a number with a sign, a decimal part or a currency
// symbol: a money amount rather than a count or an id.
func isAmount(s string) bool {
	v := strings.TrimSpace(strings.Trim(s, "€$£¥ "))
	if v == "" || len(v) > 24 {
		return false
	}
	digits := 0
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune("+-.,' \u00a0\u202f()", r):
		default:
			return false
		}
	}
	return digits > 0
}

// Quote guesses the character that quotes a file's fields: ' when, in its first lines, fields
// open and close with ' (about one a line or more) and none with ", else ".
func Quote(text string) rune {
	single, double, lines := 0, 0, 0
	for _, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		if lines == 50 {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		for _, sep := range Separators {
			for _, f := range strings.Split(line, string(sep)) {
				f = strings.TrimSpace(f)
				if len(f) < 2 {
					continue
				}
				switch {
				case f[0] == '\'' && f[len(f)-1] == '\'':
					single++
				case f[0] == '"' && f[len(f)-1] == '"':
					double++
				}
			}
		}
	}
	if double == 0 && lines > 0 && single >= lines {
		return '\''
	}
	return '"'
}
