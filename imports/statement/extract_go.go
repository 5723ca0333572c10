package statement

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Bounds on what the Go reader lays out for one page.
const (
	maxGlyphsPerPage = 200_000
	maxColumns       = 400 // characters in one rebuilt line
	maxBlankRun      = 3   // blank lines rebuilt for one vertical gap
)

// run is text drawn in one go: consecutive glyphs on one baseline, each starting where the one
// before ends.
type run struct {
	x, y, w float64 // start, baseline and width in points
	size    float64 // font size in points
	text    strings.Builder
	n       int // characters
}

// layoutPage rebuilds a page's text from its glyphs, much as pdftotext -layout does: glyphs are
// joined into runs, runs on one baseline into a line (top to bottom), and each run is placed at
// the character column its x position gives, so that columns of a table stay apart and line
// up from one line to the next. ok is false when the text would be longer than room bytes: a
// glyph placed far right on a line of its own is a line of hundreds of blanks.
//
// The library's row API (Page.GetTextByRow) is not used: it only follows the Tm operator, and
// most PDF writers place text with Td, which leaves every row at the same position. Content
// follows the full text state.
func layoutPage(glyphs []pdf.Text, room int) (text string, ok bool) {
	if len(glyphs) > maxGlyphsPerPage {
		glyphs = glyphs[:maxGlyphsPerPage]
	}
	runs := joinRuns(glyphs)
	if len(runs) == 0 {
		return "", true
	}
	charW := charWidth(runs)
	var b strings.Builder
	lines := groupLines(runs)
	pitch := linePitch(lines)
	for i, l := range lines {
		if i > 0 {
			b.WriteString(strings.Repeat("\n", blankLinesBetween(lines[i-1][0].y, l[0].y, pitch)+1))
		}
		if b.WriteString(layoutLine(l, charW)); b.Len() > room {
			return "", false
		}
	}
	return b.String(), true
}

// joinRuns groups glyphs into runs. A glyph continues the run before it when it sits on the
// same baseline where that run ends. Files using the standard fonts carry no glyph widths,
// and the library then reports every glyph of a string at the string's start; a glyph at
// the very position of the one before therefore continues the run too.
func joinRuns(glyphs []pdf.Text) []*run {
	var runs []*run
	var cur *run
	var lastX, lastW float64
	for _, g := range glyphs {
		if g.S == "\n" || g.S == "" || math.IsNaN(g.X+g.Y+g.W+g.FontSize) || math.IsInf(g.X+g.Y+g.W+g.FontSize, 0) {
			cur = nil
			continue
		}
		tol := math.Max(g.FontSize, 1) * 0.15
		continues := cur != nil && math.Abs(g.Y-cur.y) < tol &&
			(math.Abs(g.X-(lastX+lastW)) < tol || g.X == lastX)
		if !continues {
			cur = &run{x: g.X, y: g.Y, size: math.Abs(g.FontSize)}
			runs = append(runs, cur)
		}
		cur.text.WriteString(g.S)
		cur.n += utf8.RuneCountInString(g.S)
		cur.w = math.Max(cur.w, g.X+g.W-cur.x)
		lastX, lastW = g.X, g.W
	}
	for _, r := range runs {
		if r.w <= 0 {
			r.w = float64(r.n) * r.size * 0.6 // the standard fonts' widths are unknown: assume Courier's
		}
	}
	return slices.DeleteFunc(runs, func(r *run) bool { return strings.TrimSpace(r.text.String()) == "" })
}

// charWidth is the width of one character column: the median width per character of the
// page's runs, so that the page's most common font maps one character to one column.
func charWidth(runs []*run) float64 {
	ws := make([]float64, 0, len(runs))
	for _, r := range runs {
		if r.n > 0 {
			ws = append(ws, r.w/float64(r.n))
		}
	}
	sort.Float64s(ws)
	if len(ws) == 0 || ws[len(ws)/2] < 0.5 {
		return 5
	}
	return ws[len(ws)/2]
}

// groupLines sorts runs into lines, top to bottom, each left to right. Runs whose baselines
// are within a third of the font size of the line's first run share its line.
func groupLines(runs []*run) [][]*run {
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].y > runs[j].y })
	var lines [][]*run
	for _, r := range runs {
		n := len(lines)
		if n > 0 && lines[n-1][0].y-r.y < math.Max(r.size, 1)/3 {
			lines[n-1] = append(lines[n-1], r)
			continue
		}
		lines = append(lines, []*run{r})
	}
	for _, l := range lines {
		sort.SliceStable(l, func(i, j int) bool { return l[i].x < l[j].x })
	}
	return lines
}

// linePitch is the usual distance between baselines: the median of the gaps.
func linePitch(lines [][]*run) float64 {
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		gaps = append(gaps, lines[i-1][0].y-lines[i][0].y)
	}
	sort.Float64s(gaps)
	if len(gaps) == 0 || gaps[len(gaps)/2] <= 0 {
		return 12
	}
	return gaps[len(gaps)/2]
}

// blankLinesBetween turns a vertical gap into blank lines, as pdftotext does, so that a footer
// far below a table is not read as part of its last row.
func blankLinesBetween(y1, y2, pitch float64) int {
	n := int(math.Round((y1-y2)/pitch)) - 1
	return max(0, min(n, maxBlankRun))
}

// layoutLine writes the runs of one line at the columns their positions give. A run that
// would overlap the text before it is pushed right, keeping one blank between words and two
// between runs that are clearly apart, so that columns never run together.
func layoutLine(runs []*run, charW float64) string {
	var b strings.Builder
	col := 0
	prevEnd := math.Inf(-1)
	for _, r := range runs {
		target := int(math.Round(r.x / charW))
		minGap := 1
		if r.x-prevEnd > 1.5*charW {
			minGap = 2
		}
		if col > 0 {
			target = max(target, col+minGap)
		}
		if target > maxColumns {
			break
		}
		b.WriteString(strings.Repeat(" ", max(0, target-col)))
		text := r.text.String()
		b.WriteString(text)
		col = max(target, col) + utf8.RuneCountInString(text)
		prevEnd = r.x + r.w
	}
	return strings.TrimRight(b.String(), " ")
}
