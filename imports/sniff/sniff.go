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

// Table finds a file's separator and header. It reads the separator that splits the most of
// the file's first records into the same number of fields, more than one; the header is the
// first record of that width that is followed by another and holds no date or number.
func Table(text string) (Layout, bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	var best Layout
	bestScore := 0.0
	for _, sep := range Separators {
		recs, lines := Records(text, sep, sampleRecords+20)
		width, share := modalWidth(recs)
		if width < 2 {
			continue
		}
		score := share * float64(min(len(recs), 50))
		if score <= bestScore {
			continue
		}
		header := headerRecord(recs, width)
		if header < 0 {
			continue
		}
		l := Layout{Separator: sep, Skip: lines[header] - 1, Headers: trimAll(recs[header])}
		for _, r := range recs[header+1:] {
			if !blank(r) {
				l.Samples = append(l.Samples, trimAll(r))
			}
		}
		best, bestScore = l, score
	}
	return best, bestScore > 0
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

// modalWidth is the most common number of fields among recs (blank lines left out), and the
// share of records that have it.
func modalWidth(recs [][]string) (int, float64) {
	counts := map[int]int{}
	total := 0
	for _, r := range recs {
		if blank(r) {
			continue
		}
		counts[len(r)]++
		total++
	}
	width, n := 0, 0
	for w, c := range counts {
		if c > n || c == n && w > width {
			width, n = w, c
		}
	}
	if total == 0 {
		return 0, 0
	}
	return width, float64(n) / float64(total)
}

// headerRecord is the index of the header among recs: the first record of width that is
// followed by another record of width, and has no cell that reads as a date or an amount.
func headerRecord(recs [][]string, width int) int {
	for i, r := range recs {
		if len(r) != width || i+1 >= len(recs) || len(recs[i+1]) != width {
			continue
		}
		header := true
		for _, c := range r {
			if c = strings.TrimSpace(c); c != "" && (isDate(c) || isAmount(c)) {
				header = false
				break
			}
		}
		if header {
			return i
		}
	}
	return -1
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
