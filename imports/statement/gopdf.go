package statement

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// The pure-Go reader. The PDF library it is built on parses objects, decrypts and decodes
// streams; it was not written for hostile input: it inflates streams without bounds, resolves
// every reference again from the file each time it is used, re-parses a font's ToUnicode map
// on every font change, and loops forever on some cyclic structures. So the reader uses only
// those low-level parts, and does the rest itself, within limits:
//
//   - guardPDF checks the raw file first (cross-reference sizes, what each compressed stream
//     inflates to);
//   - every read of the file goes through ctxReaderAt, which stops the library as soon as the
//     context ends, so a read that has been given up on does not go on in the background;
//   - the page tree is walked here, with bounds on its size and depth;
//   - each page's content streams are measured (decoded and thrown away) before they are
//     interpreted, against a per-page and a per-file budget; a stream shared by many pages
//     counts once for each;
//   - the content is interpreted here (pdf.Interpret only tokenizes it), with fonts parsed
//     once, their ToUnicode maps checked, glyphs capped and the context checked as it goes.

// Limits of the Go reader, on top of the guard's.
const (
	maxGoPages       = 200      // pages read; the rest of a longer file is ignored
	maxPageContent   = 4 << 20  // decoded content of one page
	maxContentTotal  = 32 << 20 // decoded content and ToUnicode maps over all pages read
	maxContentParts  = 1000     // streams in one page's /Contents array
	maxPageTreeNodes = 20_000   // nodes of the page tree visited
	maxPageTreeDepth = 64
	maxFontsPerPage  = 256
	maxCMapBytes     = 2 << 20 // one ToUnicode map, decoded
	maxCMapEntries   = 100_000
	maxCMapRepl      = 512 // bytes of one ToUnicode replacement (256 UTF-16 code units)
	maxDifferences   = 4096
	maxBeginOps      = 64      // PostScript "begin" in one stream; content streams have none
	maxOperandRun    = 1 << 19 // operands in a row, which the library keeps on its stack
	maxGlyphsTotal   = 2_000_000
	maxDecodeWork    = 1_000_000_000 // bytes decoded × entries searched per byte, over the file
	maxGStateDepth   = 1024
	decodeChunk      = 4096 // bytes of a string decoded at once
)

// abortRead stops the library from inside: it is panicked by ctxReaderAt and by the
// interpreter, and recovered by readPDF. It is a runtime.Error so that the library's own
// recovers, which swallow parse errors, pass it on.
type abortRead struct{ err error }

func (a abortRead) Error() string { return a.err.Error() }
func (abortRead) RuntimeError()   {}

// ctxReaderAt is the file as the library reads it: every read first checks the context.
type ctxReaderAt struct {
	r    *bytes.Reader
	ctx  context.Context
	done <-chan struct{}
}

func (c *ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	select {
	case <-c.done:
		panic(abortRead{c.ctx.Err()})
	default:
	}
	return c.r.ReadAt(p, off)
}

// readPDF extracts the text of each page in Go. The library panics on malformed files; those
// panics become errors here, so a bad upload never takes the process down.
func readPDF(ctx context.Context, data []byte) (pages []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			pages = nil
			if a, ok := v.(abortRead); ok {
				err = a.err
				return
			}
			err = errorf(ErrKindUnreadable, "the PDF library failed: %v", v)
		}
	}()
	if err := guardPDF(data); err != nil {
		return nil, err
	}
	r, err := pdf.NewReader(&ctxReaderAt{r: bytes.NewReader(data), ctx: ctx, done: ctx.Done()}, int64(len(data)))
	var a abortRead
	switch {
	case errors.As(err, &a):
		return nil, a.err
	case errors.Is(err, pdf.ErrInvalidPassword):
		return nil, ErrEncrypted
	case err != nil:
		return nil, errorf(ErrKindUnreadable, "the PDF library could not open the file: %w", err)
	}
	g := &goReader{ctx: ctx, done: ctx.Done(), fonts: map[string]*goFont{}}
	var refs []pageRef
	g.collectPages(r.Trailer().Key("Root").Key("Pages"), pdf.Value{}, 0, &refs)
	// Measure every page's content before interpreting any, so that a file over budget is
	// refused before the work of reading it.
	for _, ref := range refs {
		g.charge(g.measureContents(ref.v.Key("Contents")))
	}
	room := maxTextBytes
	for _, ref := range refs {
		g.checkDone()
		text, ok := layoutPage(g.pageGlyphs(ref), room)
		if !ok {
			g.fail("the PDF's text is longer than %d MB", maxTextBytes>>20)
		}
		pages, room = append(pages, text), room-len(text)
	}
	return pages, nil
}

// goReader holds the state and budgets of one file's reading.
type goReader struct {
	ctx     context.Context
	done    <-chan struct{}
	nodes   int                // page tree nodes visited
	decoded int64              // content and ToUnicode bytes decoded
	glyphs  int                // glyphs produced
	work    int64              // decoding work
	fonts   map[string]*goFont // by the font dictionary's text, shared by pages
}

func (g *goReader) checkDone() {
	select {
	case <-g.done:
		panic(abortRead{g.ctx.Err()})
	default:
	}
}

func (g *goReader) fail(format string, args ...any) {
	panic(abortRead{tooComplex(format, args...)})
}

// pageRef is a page and the resources it inherits.
type pageRef struct {
	v, resources pdf.Value
}

// collectPages walks the page tree in order, as the library's Page does, collecting at most
// maxGoPages pages. Resources are inherited down the tree.
func (g *goReader) collectPages(node, resources pdf.Value, depth int, out *[]pageRef) {
	if len(*out) >= maxGoPages {
		return
	}
	if g.nodes++; g.nodes > maxPageTreeNodes {
		g.fail("more than %d page tree nodes", maxPageTreeNodes)
	}
	if depth > maxPageTreeDepth {
		g.fail("a page tree deeper than %d levels", maxPageTreeDepth)
	}
	g.checkDone()
	if res := node.Key("Resources"); res.Kind() == pdf.Dict {
		resources = res
	}
	switch node.Key("Type").Name() {
	case "Pages":
		kids := node.Key("Kids")
		for i := 0; i < kids.Len() && len(*out) < maxGoPages; i++ {
			g.collectPages(kids.Index(i), resources, depth+1, out)
		}
	case "Page":
		*out = append(*out, pageRef{node, resources})
	}
}

// measureContents measures what a page's content decodes to, failing beyond maxPageContent.
func (g *goReader) measureContents(contents pdf.Value) int64 {
	var size int64
	switch contents.Kind() {
	case pdf.Stream:
		size = g.measure(contents, maxPageContent, "the content of a page")
	case pdf.Array:
		if contents.Len() > maxContentParts {
			g.fail("a page drawn by %d content streams", contents.Len())
		}
		for i := 0; i < contents.Len(); i++ {
			if part := contents.Index(i); part.Kind() == pdf.Stream {
				size += g.measure(part, maxPageContent-size, "the content of a page")
			}
		}
	}
	return size
}

// pageGlyphs interprets a page's content.
func (g *goReader) pageGlyphs(ref pageRef) []pdf.Text {
	contents := ref.v.Key("Contents")
	if k := contents.Kind(); k != pdf.Stream && k != pdf.Array {
		return nil
	}
	in := interpreter{g: g, resources: ref.resources, pageFonts: map[string]*goFont{}}
	return in.run(contents)
}

// charge adds decoded bytes to the file's budget.
func (g *goReader) charge(n int64) {
	if g.decoded += n; g.decoded > maxContentTotal {
		g.fail("the pages' content decodes to more than %d MB", maxContentTotal>>20)
	}
}

// measure decodes a stream the way the library will, counting its bytes and its PostScript
// "begin" operators, and fails when it decodes to more than limit. It returns the size.
func (g *goReader) measure(s pdf.Value, limit int64, what string) int64 {
	n, _ := g.scan(s, limit, what)
	return n
}

// scan is measure, returning what the scanner found as well.
func (g *goReader) scan(s pdf.Value, limit int64, what string) (int64, *contentScanner) {
	parms := s.Key("DecodeParms")
	list := []pdf.Value{parms}
	if parms.Kind() == pdf.Array {
		list = list[:0]
		for i := 0; i < parms.Len() && i < 16; i++ {
			list = append(list, parms.Index(i))
		}
	}
	for _, p := range list {
		if c := p.Key("Columns").Int64(); c < 0 || c > maxPredictorCol {
			g.fail("a predictor with %d columns", c)
		}
	}
	rc := s.Reader()
	defer rc.Close()
	sc := &contentScanner{count: -1}
	n, err := io.Copy(sc, io.LimitReader(rc, limit+1))
	if err != nil {
		panic(fmt.Errorf("decoding a stream: %w", err))
	}
	sc.close()
	if n > limit {
		g.fail("%s decodes to more than %d MB", what, limit>>20)
	}
	if sc.begins > maxBeginOps {
		g.fail("%s runs %d PostScript begin operators", what, sc.begins)
	}
	if sc.maxRun > maxOperandRun {
		g.fail("%s has %d operands in a row", what, sc.maxRun)
	}
	return n, sc
}

// contentScanner tokenizes a content stream or CMap, roughly as the library will, to find
// two things that make the library's tokenizer use memory or time out of proportion to the
// stream: long runs of operands with no operator (the library keeps every one on its stack
// until the next operator), and PostScript "begin" operators (each opens a dictionary that
// the tokenizer then searches for every later keyword).
type contentScanner struct {
	state   scanState
	depth   int  // of parentheses in a literal string
	escape  bool // after a backslash in a literal string
	lt, gt  bool // after a "<" or ">" whose meaning depends on the next byte
	word    []byte
	wordLen int
	strLen  int // bytes of the string being read
	run     int // operands since the last operator
	maxRun  int
	begins  int

	// What the library's readCmap will make of the stream, were it a ToUnicode map: the
	// number of entries it creates (an end operator creates as many as the count of the last
	// begin operator), and the longest string, which bounds a replacement's length.
	prev       token // the token before the current one
	prevInt    int64
	count      int64 // of the last begin operator; -1 for none
	entries    int64
	spaces     int64
	longest    int  // bytes of the longest string
	countIsVar bool // a count that is not a literal integer, which the guard cannot know
}

// token is the kind of a scanned token, as far as contentScanner needs it.
type token int

const (
	tokNone token = iota
	tokInt
	tokOperand
	tokOperator
)

type scanState int

const (
	scanNormal scanState = iota
	scanComment
	scanLiteral
	scanHex
	scanWord
)

func (c *contentScanner) Write(p []byte) (int, error) {
	for _, b := range p {
		c.scan(b)
	}
	return len(p), nil
}

func (c *contentScanner) scan(b byte) {
	switch c.state {
	case scanComment:
		if b == '\r' || b == '\n' {
			c.state = scanNormal
		}
		return
	case scanLiteral:
		switch {
		case c.escape:
			c.escape = false
		case b == '\\':
			c.escape = true
		case b == '(':
			c.depth++
		case b == ')':
			if c.depth--; c.depth == 0 {
				c.state = scanNormal
				c.endString(c.strLen)
				return
			}
		}
		c.strLen++
		return
	case scanHex:
		if b == '>' {
			c.state = scanNormal
			c.endString((c.strLen + 1) / 2)
			return
		}
		c.strLen++
		return
	case scanWord:
		if isPDFRegular(b) {
			if c.wordLen++; len(c.word) < 32 {
				c.word = append(c.word, b)
			}
			return
		}
		c.endWord()
	}
	if c.lt {
		c.lt = false
		if b == '<' {
			return // a dictionary
		}
		c.state, c.strLen = scanHex, 0
		c.scan(b)
		return
	}
	if c.gt {
		c.gt = false
		if b == '>' {
			return
		}
	}
	switch {
	case isPDFSpace(b), b == '[', b == ']', b == '{', b == '}', b == ')':
	case b == '%':
		c.state = scanComment
	case b == '(':
		c.state, c.depth, c.strLen = scanLiteral, 1, 0
	case b == '<':
		c.lt = true
	case b == '>':
		c.gt = true
	default: // a name ("/" and what follows), a number or a keyword
		c.state = scanWord
		c.word, c.wordLen = append(c.word[:0], b), 1
	}
}

// endWord classifies a word: names, numbers, true, false and null are operands, anything else
// an operator.
func (c *contentScanner) endWord() {
	c.state = scanNormal
	w := string(c.word)
	if c.wordLen > len(c.word) {
		w += "…" // longer than any operator: compared with none
	}
	switch {
	case w[0] >= '0' && w[0] <= '9' || w[0] == '+' || w[0] == '-' || w[0] == '.':
		c.operand()
		if n, err := strconv.ParseInt(w, 10, 64); err == nil {
			c.prev, c.prevInt = tokInt, n
		} else if strings.Trim(w, "+-0123456789") == "" {
			c.prev, c.prevInt = tokInt, math.MaxInt64 // an integer too long to parse
		}
	case w[0] == '/', w == "true", w == "false", w == "null":
		c.operand()
	default:
		c.operator(w)
	}
}

func (c *contentScanner) endString(n int) {
	c.longest = max(c.longest, n)
	c.operand()
}

func (c *contentScanner) operand() {
	c.run++
	c.maxRun = max(c.maxRun, c.run)
	c.prev = tokOperand
}

func (c *contentScanner) operator(w string) {
	const maxCount = 1 << 40
	switch w {
	case "begin":
		c.begins++
	case "begincodespacerange", "beginbfchar", "beginbfrange":
		// readCmap pops the count: an integer is taken as it is, any other operand as 0,
		// but a keyword may stand for a value defined earlier.
		switch c.prev {
		case tokInt:
			c.count = min(c.prevInt, maxCount)
		case tokOperand:
			c.count = 0
		default:
			c.countIsVar = true
		}
	case "endcodespacerange":
		c.spaces = min(c.spaces+max(c.count, 0), maxCount)
		c.count = -1
	case "endbfchar", "endbfrange":
		c.entries = min(c.entries+max(c.count, 0), maxCount)
	}
	c.run = 0
	c.prev = tokOperator
}

// close ends the last word.
func (c *contentScanner) close() {
	if c.state == scanWord {
		c.endWord()
	}
}

// goFont is a font as the interpreter uses it, read once.
type goFont struct {
	name   string    // BaseFont without its subset prefix
	first  int       // FirstChar
	widths []float64 // Widths from FirstChar to LastChar
	enc    pdf.TextEncoding
	cost   int64 // work to decode one byte: the entries the encoding searches
}

func (f *goFont) width(code int) float64 {
	if f == nil {
		return 0
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return 0
}

// font returns a page's font by resource name, reading it the first time.
func (in *interpreter) font(name string) *goFont {
	if f, ok := in.pageFonts[name]; ok {
		return f
	}
	if len(in.pageFonts) >= maxFontsPerPage {
		in.g.fail("a page using more than %d fonts", maxFontsPerPage)
	}
	v := in.resources.Key("Font").Key(name)
	key := v.String()
	f, ok := in.g.fonts[key]
	if !ok || len(key) > 64<<10 {
		f = in.g.readFont(v)
		if len(key) <= 64<<10 {
			in.g.fonts[key] = f
		}
	}
	in.pageFonts[name] = f
	return f
}

// readFont reads a font dictionary: its name, widths and encoding. The encoding is the
// library's, after its inputs have been checked: the size and entries of a ToUnicode map, the
// length of a Differences array.
func (g *goReader) readFont(v pdf.Value) *goFont {
	f := &goFont{cost: 1}
	f.name = v.Key("BaseFont").Name()
	if i := strings.Index(f.name, "+"); i >= 0 {
		f.name = f.name[i+1:]
	}
	first, last := v.Key("FirstChar").Int64(), v.Key("LastChar").Int64()
	if w := v.Key("Widths"); w.Kind() == pdf.Array && first >= 0 && first <= 1<<32 && last >= first {
		f.first = int(first)
		n := int(min(int64(w.Len()), last-first+1, 1<<16))
		f.widths = make([]float64, n)
		for i := range n {
			f.widths[i] = w.Index(i).Float64()
		}
	}
	enc := v.Key("Encoding")
	switch {
	case enc.Kind() == pdf.Dict:
		d := enc.Key("Differences")
		if d.Len() > maxDifferences {
			g.fail("a font encoding with %d differences", d.Len())
		}
		f.cost += int64(d.Len())
		if strings.Contains(d.String(), " R") {
			f.cost *= 1000 // entries given by reference are read from the file on every lookup
		}
	case enc.Kind() == pdf.Null || enc.Kind() == pdf.Name && enc.Name() == "Identity-H":
		if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
			f.cost += g.checkCMap(tu)
		}
	}
	font := pdf.Font{V: v}
	f.enc = font.Encoder()
	return f
}

// checkCMap measures a ToUnicode map and checks what the library's readCmap will build from
// it: the number of entries (each lookup searches them all) and their length (one code may
// stand for that many characters). It returns the number of entries.
func (g *goReader) checkCMap(tu pdf.Value) int64 {
	n, sc := g.scan(tu, maxCMapBytes, "a font's ToUnicode map")
	g.charge(n)
	switch {
	case sc.countIsVar:
		g.fail("a ToUnicode map whose entry count is not a number")
	case sc.entries > maxCMapEntries || sc.spaces > maxCMapEntries:
		g.fail("a ToUnicode map with more than %d entries", maxCMapEntries)
	case sc.longest > maxCMapRepl:
		g.fail("a ToUnicode map with a string of %d bytes", sc.longest)
	}
	return sc.entries + sc.spaces
}

// matrix is a PDF transformation matrix, as the library's.
type matrix [3][3]float64

var identity = matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

func (x matrix) mul(y matrix) matrix {
	var z matrix
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				z[i][j] += x[i][k] * y[k][j]
			}
		}
	}
	return z
}

// gstate is the part of the graphics state text positioning needs.
type gstate struct {
	Tc, Tw, Th, Tl, Tfs, Trise float64
	Tf                         *goFont
	Tm, Tlm, CTM               matrix
}

// interpreter runs one page's content, producing its glyphs as the library's Page.Content
// does, with its text state semantics, but within the reader's limits.
type interpreter struct {
	g         *goReader
	resources pdf.Value
	pageFonts map[string]*goFont
	gs        gstate
	stack     []gstate
	overflow  int // q operators beyond maxGStateDepth, whose Q are ignored
	enc       pdf.TextEncoding
	text      []pdf.Text
	ops       int
	args      []pdf.Value // reused by do
}

// stopPage ends the interpretation of a page that has given all the glyphs a page may have.
type stopPage struct{}

func (in *interpreter) run(contents pdf.Value) (text []pdf.Text) {
	in.gs = gstate{Th: 1, CTM: identity}
	in.enc = nopEncoding{}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopPage); !ok {
				panic(v)
			}
		}
		text = in.text
	}()
	pdf.Interpret(contents, in.do)
	return in.text
}

func (in *interpreter) do(stk *pdf.Stack, op string) {
	if in.ops++; in.ops%1024 == 0 {
		in.g.checkDone()
	}
	args := in.args[:0]
	for range stk.Len() {
		args = append(args, pdf.Value{})
	}
	for i := len(args) - 1; i >= 0; i-- {
		args[i] = stk.Pop()
	}
	in.args = args
	g := &in.gs
	translate := func(tx, ty float64) matrix { return matrix{{1, 0, 0}, {0, 1, 0}, {tx, ty, 1}} }
	switch op {
	case "cm":
		if len(args) == 6 {
			g.CTM = matrixOf(args).mul(g.CTM)
		}
	case "q":
		if len(in.stack) >= maxGStateDepth {
			in.overflow++
			return
		}
		in.stack = append(in.stack, *g)
	case "Q":
		if in.overflow > 0 {
			in.overflow--
			return
		}
		if n := len(in.stack); n > 0 {
			*g = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "BT":
		g.Tm, g.Tlm = identity, identity
	case "T*":
		g.Tlm = translate(0, -g.Tl).mul(g.Tlm)
		g.Tm = g.Tlm
	case "Tc":
		if len(args) == 1 {
			g.Tc = args[0].Float64()
		}
	case "TD", "Td":
		if len(args) == 2 {
			if op == "TD" {
				g.Tl = -args[1].Float64()
			}
			g.Tlm = translate(args[0].Float64(), args[1].Float64()).mul(g.Tlm)
			g.Tm = g.Tlm
		}
	case "Tf":
		if len(args) == 2 {
			g.Tf = in.font(args[0].Name())
			in.enc = g.Tf.enc
			if in.enc == nil {
				in.enc = nopEncoding{}
			}
			g.Tfs = args[1].Float64()
		}
	case "\"", "'", "Tj":
		if op == "\"" {
			if len(args) != 3 {
				return
			}
			g.Tw, g.Tc = args[0].Float64(), args[1].Float64()
			args = args[2:]
		}
		if len(args) != 1 {
			return
		}
		if op != "Tj" {
			g.Tlm = translate(0, -g.Tl).mul(g.Tlm)
			g.Tm = g.Tlm
		}
		in.show(args[0].RawString())
	case "TJ":
		if len(args) != 1 {
			return
		}
		v := args[0]
		for i := 0; i < v.Len(); i++ {
			x := v.Index(i)
			if x.Kind() == pdf.String {
				in.show(x.RawString())
			} else {
				g.Tm = translate(-x.Float64()/1000*g.Tfs*g.Th, 0).mul(g.Tm)
			}
		}
		in.show("\n")
	case "TL":
		if len(args) == 1 {
			g.Tl = args[0].Float64()
		}
	case "Tm":
		if len(args) == 6 {
			g.Tm = matrixOf(args)
			g.Tlm = g.Tm
		}
	case "Ts":
		if len(args) == 1 {
			g.Trise = args[0].Float64()
		}
	case "Tw":
		if len(args) == 1 {
			g.Tw = args[0].Float64()
		}
	case "Tz":
		if len(args) == 1 {
			g.Th = args[0].Float64() / 100
		}
	}
}

func matrixOf(args []pdf.Value) matrix {
	var m matrix
	for i := range 6 {
		m[i/2][i%2] = args[i].Float64()
	}
	m[2][2] = 1
	return m
}

// show draws a string: one glyph for each character its encoding decodes it to, each
// advancing the text matrix by its width. Long strings are decoded a piece at a time, so that
// a map that turns one byte into many characters cannot build a huge string first.
func (in *interpreter) show(s string) {
	g := &in.gs
	cost := int64(1)
	if g.Tf != nil {
		cost = g.Tf.cost
	}
	n := 0
	for piece := range chunks(s, decodeChunk) {
		if in.g.work += int64(len(piece)) * cost; in.g.work > maxDecodeWork {
			in.g.fail("decoding the text takes too long")
		}
		in.g.checkDone()
		for _, ch := range in.enc.Decode(piece) {
			if len(in.text) >= maxGlyphsPerPage {
				panic(stopPage{})
			}
			if in.g.glyphs++; in.g.glyphs > maxGlyphsTotal {
				in.g.fail("more than %d characters of text", maxGlyphsTotal)
			}
			var w0 float64
			if n < len(s) {
				w0 = g.Tf.width(int(s[n]))
			}
			n++
			var name string
			if g.Tf != nil {
				name = g.Tf.name
			}
			trm := matrix{{g.Tfs * g.Th, 0, 0}, {0, g.Tfs, 0}, {0, g.Trise, 1}}.mul(g.Tm).mul(g.CTM)
			in.text = append(in.text, pdf.Text{Font: name, FontSize: trm[0][0], X: trm[2][0], Y: trm[2][1],
				W: w0 / 1000 * trm[0][0], S: string(ch)})
			tx := (w0/1000*g.Tfs + g.Tc) * g.Th
			g.Tm = matrix{{1, 0, 0}, {0, 1, 0}, {tx, 0, 1}}.mul(g.Tm)
		}
	}
}

// chunks cuts s into pieces of size bytes; size is a multiple of 4, so a piece never splits a
// code of a one-, two- or four-byte encoding.
func chunks(s string, size int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > size {
			if !yield(s[:size]) {
				return
			}
			s = s[size:]
		}
		yield(s)
	}
}

// nopEncoding passes bytes through, as the library does before a font is chosen.
type nopEncoding struct{}

func (nopEncoding) Decode(raw string) string { return raw }
