package statement

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"io"
	"strconv"
)

// Limits of the guard the Go reader runs before it hands a file to the PDF library. The
// library inflates compressed streams without bounds and re-reads a stream each time it is
// used, so a small file can make it use gigabytes and minutes; these limits keep any file
// within a few hundred megabytes and seconds. Real statements use a small fraction of them.
const (
	maxStreamBytes  = 8 << 20  // what one stream the reader may decode inflates to
	maxDecodedBytes = 64 << 20 // the total over the file's streams
	maxStreamCount  = 50_000   // streams the reader may decode
	maxXrefObjects  = 1 << 21  // object numbers: the library allocates its table by them
	maxXrefSections = 256      // cross-reference sections in a /Prev chain
	maxPredictorCol = 1 << 16  // /Columns of a predictor: the library allocates rows by it
	maxDictDepth    = 32       // nesting the guard parses in a stream dictionary
	maxDictWindow   = 64 << 10 // how far before "stream" the guard looks for its dictionary
)

// guardPDF checks the raw bytes of a PDF before the library reads it: that its cross-reference
// data does not ask for a huge table, and that no stream the library could decode inflates
// beyond maxStreamBytes, nor all of them together beyond maxDecodedBytes. Decoded data is
// measured and thrown away, never kept. Streams the text reader never decodes (images, font
// programs, and any with a filter the library does not support) are not inflated.
//
// The guard is deliberately conservative where it cannot be exact: a compressed stream is
// inflated to the end of its zlib data rather than to its /Length, and malformed or
// unterminated data ends a stream rather than failing the check. What the library then
// decodes for each page is measured again, exactly, as the pages are read (see readPDF).
func guardPDF(data []byte) error {
	if err := guardXref(data); err != nil {
		return err
	}
	g := streamGuard{data: data}
	return g.run()
}

type streamGuard struct {
	data     []byte
	consumed int64 // compressed bytes read by all the inflations
	resolved int   // references resolved: each search reads the whole file
	total    int64
	count    int
	zr       io.ReadCloser // reused: a zlib reader allocates tens of kilobytes
	scratch  []byte
}

func (g *streamGuard) run() error {
	data := g.data
	lo := 0  // where the dictionary of the next stream may start: after the previous candidate
	pos := 0 // where the search for the next "stream" keyword starts
	for pos < len(data) {
		i := bytes.Index(data[pos:], []byte("stream"))
		if i < 0 {
			return nil
		}
		kw := pos + i
		pos = kw + len("stream")
		window := data[max(lo, kw-maxDictWindow):kw]
		lo = pos
		// The keyword "stream" (not "endstream", nor part of a name), followed by an end of
		// line as the library requires.
		if kw > 0 && isPDFRegular(data[kw-1]) {
			continue
		}
		if pos >= len(data) || data[pos] != '\r' && data[pos] != '\n' {
			continue
		}
		start := pos + 1
		if data[pos] == '\r' && start < len(data) && data[start] == '\n' {
			start++
		}
		// A stream whose dictionary cannot be found is measured as if it were compressed:
		// not finding it must never mean measuring less.
		dict, found := streamDict(window)
		if err := g.measure(dict, found, start); err != nil {
			return err
		}
		// The search goes on inside the body: the cross-reference table may point at an
		// object hidden in another stream's data.
	}
	return nil
}

// streamDict finds the dictionary of the stream whose keyword ends window: an "obj" keyword
// followed by a dictionary that ends where the window does.
func streamDict(window []byte) (pdfDict, bool) {
	end := len(window)
	for tries := 0; end > 0 && tries < 8; tries++ {
		i := bytes.LastIndex(window[:end], []byte("obj"))
		if i < 0 {
			return nil, false
		}
		end = i
		if i == 0 || !isPDFSpace(window[i-1]) {
			continue
		}
		lx := lexer{data: window[i+3:]}
		v, ok := lx.value(0)
		if !ok || v.kind != pdfDictKind {
			continue
		}
		if rest := lx.token(); rest.kind != pdfEOFKind {
			continue // a dictionary nested in the stream's, or not the one before "stream"
		}
		return v.dict, true
	}
	return nil, false
}

// measure inflates one stream, if the library could decode it, and adds its size to the
// total. found is false when the stream's dictionary is unknown: the stream is then measured
// as zlib data, or as ASCII85-encoded zlib data, whichever it turns out to be.
func (g *streamGuard) measure(dict pdfDict, found bool, start int) error {
	filters, known := g.filters(dict)
	if found && known && (len(filters) == 0 || exemptStream(dict)) {
		return nil
	}
	if !found || !known {
		filters = []string{"FlateDecode"}
		if !zlibHeader(g.data[start:]) {
			filters = []string{"ASCII85Decode", "FlateDecode"}
		}
	}
	for _, f := range filters {
		if f != "FlateDecode" && f != "ASCII85Decode" {
			return nil // the library panics on any other filter before decoding anything
		}
	}
	if found {
		if err := g.checkPredictor(dict); err != nil {
			return err
		}
	}
	n, err := g.inflate(g.data[start:], filters)
	if err != nil || n == 0 {
		return err
	}
	g.count++
	if g.count > maxStreamCount {
		return tooComplex("more than %d compressed streams", maxStreamCount)
	}
	g.total += n
	if n > maxStreamBytes {
		return tooComplex("a stream inflates to more than %d MB", maxStreamBytes>>20)
	}
	if g.total > maxDecodedBytes {
		return tooComplex("the streams inflate to more than %d MB in all", maxDecodedBytes>>20)
	}
	return nil
}

// zlibHeader reports whether data starts with a zlib header.
func zlibHeader(data []byte) bool {
	return len(data) >= 2 && data[0]&0x0f == 8 && (uint16(data[0])<<8|uint16(data[1]))%31 == 0
}

// filters returns the stream's filter names; known is false when they are given by reference.
func (g *streamGuard) filters(dict pdfDict) (names []string, known bool) {
	v, ok := dict["Filter"]
	if !ok {
		return nil, true
	}
	switch v.kind {
	case pdfNameKind:
		return []string{v.str}, true
	case pdfArrayKind:
		for _, f := range v.arr {
			if f.kind != pdfNameKind {
				return nil, false
			}
			names = append(names, f.str)
		}
		return names, true
	}
	return nil, false
}

// exemptStream reports whether a stream is one the text reader never decodes: an image or a
// font program. A stream that claims to be an object or cross-reference stream, or whose type
// is given by reference, is never exempt; and the page content and ToUnicode streams the
// reader does decode are measured again through the library whatever they claim to be.
func exemptStream(dict pdfDict) bool {
	if t, ok := dict["Type"]; ok && (t.kind != pdfNameKind || t.str != "XObject") {
		return false
	}
	if s, ok := dict["Subtype"]; ok && s.kind == pdfNameKind {
		switch s.str {
		case "Image", "Type1C", "CIDFontType0C", "OpenType":
			return true
		}
	}
	_, fontFile := dict["Length1"]
	return fontFile
}

// checkPredictor refuses a predictor whose row length would make the library allocate a huge
// buffer. DecodeParms and its entries may be direct or references.
func (g *streamGuard) checkPredictor(dict pdfDict) error {
	p, ok := dict["DecodeParms"]
	if !ok {
		return nil
	}
	parms := []pdfValue{p}
	if p.kind == pdfArrayKind {
		parms = p.arr
	}
	for _, p := range parms {
		if p.kind == pdfRefKind {
			var ok bool
			if p, ok = g.resolveDict(p); !ok {
				return tooComplex("a stream's decode parameters cannot be checked")
			}
		}
		if p.kind != pdfDictKind {
			continue
		}
		c, ok := p.dict["Columns"]
		if !ok {
			continue
		}
		for _, n := range g.resolveInts(c) {
			if n < 0 || n > maxPredictorCol {
				return tooComplex("a predictor with %d columns", n)
			}
		}
	}
	return nil
}

// resolveInts returns the values an integer may have: itself, or for a reference, every
// definition of that object in the file (an attacker may define it twice); a reference to no
// visible definition yields an out-of-range value.
func (g *streamGuard) resolveInts(v pdfValue) []int64 {
	switch v.kind {
	case pdfIntKind:
		return []int64{v.num}
	case pdfRefKind:
		var out []int64
		for _, d := range g.definitions(v) {
			if d.kind != pdfIntKind {
				return []int64{-1}
			}
			out = append(out, d.num)
		}
		if len(out) == 0 {
			return []int64{-1}
		}
		return out
	}
	return nil
}

// resolveDict resolves a reference to a dictionary; it fails unless every definition is one
// dictionary.
func (g *streamGuard) resolveDict(v pdfValue) (pdfValue, bool) {
	defs := g.definitions(v)
	if len(defs) != 1 || defs[0].kind != pdfDictKind {
		return pdfValue{}, false
	}
	return defs[0], true
}

// definitions finds every uncompressed "id gen obj" definition of the referenced object.
func (g *streamGuard) definitions(ref pdfValue) []pdfValue {
	if g.resolved++; g.resolved > 64 {
		return nil // refused by the callers: legitimate files give decode parameters directly
	}
	pat := []byte(strconv.FormatInt(ref.num, 10) + " " + strconv.FormatInt(ref.gen, 10) + " obj")
	var defs []pdfValue
	for off := 0; len(defs) < 16; {
		i := bytes.Index(g.data[off:], pat)
		if i < 0 {
			break
		}
		at := off + i
		off = at + len(pat)
		if at > 0 && isPDFRegular(g.data[at-1]) {
			continue
		}
		lx := lexer{data: g.data[off:min(len(g.data), off+maxDictWindow)]}
		if v, ok := lx.value(0); ok {
			defs = append(defs, v)
		}
	}
	return defs
}

// inflate decodes data through the filters, the way the library would, and returns how many
// bytes came out, reading at most maxStreamBytes+1. Corrupt data ends the stream: what was
// decoded until then is counted.
func (g *streamGuard) inflate(data []byte, filters []string) (int64, error) {
	// Streams are inflated to the end of their zlib data, which a crafted file could make
	// overlap; bound the input read over all of them. Real streams are each read once.
	in := &countingReader{r: bytes.NewReader(data)}
	defer func() { g.consumed += in.n }()
	if g.consumed > 2*int64(len(g.data))+maxStreamBytes {
		return 0, tooComplex("the streams overlap")
	}
	var r io.Reader = in
	for _, f := range filters {
		switch f {
		case "ASCII85Decode":
			r = ascii85.NewDecoder(&ascii85Input{r: r})
		case "FlateDecode":
			if g.zr == nil {
				zr, err := zlib.NewReader(r)
				if err != nil {
					return 0, nil // not zlib data: the library fails on it too
				}
				g.zr = zr
			} else if err := g.zr.(zlib.Resetter).Reset(r, nil); err != nil {
				return 0, nil
			}
			r = g.zr
		}
	}
	if g.scratch == nil {
		g.scratch = make([]byte, 32<<10)
	}
	var n int64
	for n <= maxStreamBytes {
		m, err := r.Read(g.scratch)
		n += int64(m)
		if err != nil {
			break
		}
	}
	return n, nil
}

// countingReader counts the bytes read through it. It is an io.ByteReader, so that the
// inflater reads exactly what it needs rather than buffering ahead.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// ascii85Input passes on the characters of ASCII85 data, as the library does: it drops
// whitespace and anything else outside the alphabet and stops at the "~>" end marker.
type ascii85Input struct {
	r   io.Reader
	eod bool
}

func (a *ascii85Input) Read(p []byte) (int, error) {
	for {
		if a.eod {
			return 0, io.EOF
		}
		n, err := a.r.Read(p)
		out := 0
		for _, c := range p[:n] {
			if c == '~' {
				a.eod = true
				break
			}
			if c >= '!' && c <= 'u' || c == 'z' {
				p[out] = c
				out++
			}
		}
		if out > 0 || err != nil || a.eod {
			if a.eod && out == 0 {
				return 0, io.EOF
			}
			return out, err
		}
	}
}

// guardXref follows the cross-reference chain from startxref, as the library does when it
// opens a file, and refuses object numbers and field widths that would make it allocate a
// huge table, and a chain that loops. Anything it cannot follow is left for the library to
// reject.
func guardXref(data []byte) error {
	tail := data[max(0, len(data)-100):]
	tail = bytes.TrimRight(tail, "\r\n\t ")
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return nil
	}
	lx := lexer{data: tail[i+len("startxref"):]}
	t := lx.token()
	if t.kind != pdfIntKind {
		return nil
	}
	seen := map[int64]bool{}
	tokens := 0 // read in all sections: sections may overlap
	for off := t.num; off >= 0 && off < int64(len(data)); {
		if seen[off] {
			// The library would follow the loop forever.
			return errorf(ErrKindUnreadable, "the cross-reference chain loops back to offset %d", off)
		}
		if len(seen) >= maxXrefSections {
			return tooComplex("more than %d cross-reference sections", maxXrefSections)
		}
		seen[off] = true
		next, err := guardXrefSection(data[off:], &tokens)
		if err != nil {
			return err
		}
		off = next
	}
	return nil
}

// guardXrefSection checks one cross-reference table or stream and returns the offset of the
// previous one (/Prev), or -1.
func guardXrefSection(data []byte, tokens *int) (prev int64, err error) {
	lx := lexer{data: data}
	first := lx.token()
	var trailer pdfDict
	switch {
	case first.kind == pdfKeywordKind && first.str == "xref":
		for {
			t := lx.token()
			if t.kind == pdfKeywordKind && t.str == "trailer" {
				v, ok := lx.value(0)
				if !ok || v.kind != pdfDictKind {
					return -1, nil
				}
				trailer = v.dict
				break
			}
			n := lx.token()
			if t.kind != pdfIntKind || n.kind != pdfIntKind {
				return -1, nil
			}
			if t.num < 0 || n.num < 0 || t.num+n.num > maxXrefObjects {
				return -1, tooComplex("a cross-reference section for objects %d to %d", t.num, t.num+n.num)
			}
			if *tokens += int(n.num) * 3; *tokens > 3*maxXrefObjects {
				return -1, tooComplex("cross-reference sections of more than %d entries", maxXrefObjects)
			}
			for range n.num * 3 {
				if lx.token().kind == pdfEOFKind {
					return -1, nil
				}
			}
		}
	case first.kind == pdfIntKind:
		if lx.token().kind != pdfIntKind {
			return -1, nil
		}
		if t := lx.token(); t.kind != pdfKeywordKind || t.str != "obj" {
			return -1, nil
		}
		v, ok := lx.value(0)
		if !ok || v.kind != pdfDictKind {
			return -1, nil
		}
		trailer = v.dict
		if size, ok := trailer.int("Size"); ok && (size < 0 || size > maxXrefObjects) {
			return -1, tooComplex("a cross-reference stream of %d objects", size)
		}
		if idx, ok := trailer["Index"]; ok && idx.kind == pdfArrayKind {
			for i := 0; i+1 < len(idx.arr); i += 2 {
				s, n := idx.arr[i], idx.arr[i+1]
				if s.kind == pdfIntKind && n.kind == pdfIntKind && (s.num < 0 || n.num < 0 || s.num+n.num > maxXrefObjects) {
					return -1, tooComplex("a cross-reference stream for objects %d to %d", s.num, s.num+n.num)
				}
			}
		}
		if w, ok := trailer["W"]; ok && w.kind == pdfArrayKind {
			for _, x := range w.arr {
				if x.kind == pdfIntKind && (x.num < 0 || x.num > 16) {
					return -1, tooComplex("a cross-reference stream with fields of %d bytes", x.num)
				}
			}
		}
	default:
		return -1, nil
	}
	if p, ok := trailer.int("Prev"); ok {
		return p, nil
	}
	return -1, nil
}

// A minimal PDF lexer and object parser, enough to read dictionaries in the raw file. It
// never panics and gives up (ok false) on anything it does not understand.

type pdfKind int

const (
	pdfEOFKind pdfKind = iota
	pdfIntKind
	pdfRealKind
	pdfNameKind
	pdfStringKind
	pdfKeywordKind // including the delimiters "<<", ">>", "[", "]"
	pdfDictKind
	pdfArrayKind
	pdfRefKind
)

type pdfValue struct {
	kind     pdfKind
	num, gen int64 // an integer; a reference's object number and generation
	str      string
	arr      []pdfValue
	dict     pdfDict
}

type pdfDict map[string]pdfValue

func (d pdfDict) int(key string) (int64, bool) {
	v, ok := d[key]
	return v.num, ok && v.kind == pdfIntKind
}

type lexer struct {
	data []byte
	pos  int
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	return bytes.IndexByte([]byte("()<>[]{}/%"), c) >= 0
}

func isPDFRegular(c byte) bool { return !isPDFSpace(c) && !isPDFDelim(c) }

// token reads the next token; strings are skipped over and returned without their content.
func (lx *lexer) token() pdfValue {
	d := lx.data
	for lx.pos < len(d) {
		c := d[lx.pos]
		if isPDFSpace(c) {
			lx.pos++
			continue
		}
		if c == '%' {
			for lx.pos < len(d) && d[lx.pos] != '\r' && d[lx.pos] != '\n' {
				lx.pos++
			}
			continue
		}
		break
	}
	if lx.pos >= len(d) {
		return pdfValue{kind: pdfEOFKind}
	}
	c := d[lx.pos]
	switch {
	case c == '<' && lx.pos+1 < len(d) && d[lx.pos+1] == '<':
		lx.pos += 2
		return pdfValue{kind: pdfKeywordKind, str: "<<"}
	case c == '>' && lx.pos+1 < len(d) && d[lx.pos+1] == '>':
		lx.pos += 2
		return pdfValue{kind: pdfKeywordKind, str: ">>"}
	case c == '[' || c == ']':
		lx.pos++
		return pdfValue{kind: pdfKeywordKind, str: string(c)}
	case c == '<':
		end := bytes.IndexByte(d[lx.pos:], '>')
		if end < 0 {
			lx.pos = len(d)
			return pdfValue{kind: pdfEOFKind}
		}
		lx.pos += end + 1
		return pdfValue{kind: pdfStringKind}
	case c == '(':
		lx.skipLiteralString()
		return pdfValue{kind: pdfStringKind}
	case c == '/':
		lx.pos++
		var name []byte
		for lx.pos < len(d) && isPDFRegular(d[lx.pos]) {
			ch := d[lx.pos]
			lx.pos++
			if ch == '#' && lx.pos+1 < len(d) {
				if x, err := strconv.ParseUint(string(d[lx.pos:lx.pos+2]), 16, 8); err == nil {
					name = append(name, byte(x))
					lx.pos += 2
					continue
				}
			}
			name = append(name, ch)
		}
		return pdfValue{kind: pdfNameKind, str: string(name)}
	case isPDFDelim(c): // ")", ">", "{", "}": not part of anything the guard reads
		lx.pos++
		return pdfValue{kind: pdfKeywordKind, str: string(c)}
	}
	start := lx.pos
	for lx.pos < len(d) && isPDFRegular(d[lx.pos]) {
		lx.pos++
	}
	word := string(d[start:lx.pos])
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return pdfValue{kind: pdfIntKind, num: n}
	}
	if _, err := strconv.ParseFloat(word, 64); err == nil {
		return pdfValue{kind: pdfRealKind}
	}
	return pdfValue{kind: pdfKeywordKind, str: word}
}

func (lx *lexer) skipLiteralString() {
	d := lx.data
	depth := 0
	for lx.pos < len(d) {
		c := d[lx.pos]
		lx.pos++
		switch c {
		case '\\':
			lx.pos++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// value parses one object: a dictionary, an array, a reference ("1 0 R") or a single token.
func (lx *lexer) value(depth int) (pdfValue, bool) {
	if depth > maxDictDepth {
		return pdfValue{}, false
	}
	t := lx.token()
	switch {
	case t.kind == pdfKeywordKind && t.str == "<<":
		d := pdfDict{}
		for {
			k := lx.token()
			if k.kind == pdfKeywordKind && k.str == ">>" {
				return pdfValue{kind: pdfDictKind, dict: d}, true
			}
			if k.kind != pdfNameKind {
				return pdfValue{}, false
			}
			v, ok := lx.value(depth + 1)
			if !ok {
				return pdfValue{}, false
			}
			d[k.str] = v
		}
	case t.kind == pdfKeywordKind && t.str == "[":
		var arr []pdfValue
		for {
			save := lx.pos
			if e := lx.token(); e.kind == pdfKeywordKind && e.str == "]" {
				return pdfValue{kind: pdfArrayKind, arr: arr}, true
			} else if e.kind == pdfEOFKind {
				return pdfValue{}, false
			}
			lx.pos = save
			v, ok := lx.value(depth + 1)
			if !ok {
				return pdfValue{}, false
			}
			arr = append(arr, v)
		}
	case t.kind == pdfIntKind:
		save := lx.pos
		if g := lx.token(); g.kind == pdfIntKind {
			if r := lx.token(); r.kind == pdfKeywordKind && r.str == "R" {
				return pdfValue{kind: pdfRefKind, num: t.num, gen: g.num}, true
			}
		}
		lx.pos = save
		return t, true
	case t.kind == pdfEOFKind:
		return pdfValue{}, false
	case t.kind == pdfKeywordKind && (t.str == ">>" || t.str == "]"):
		return pdfValue{}, false
	}
	return t, true
}
