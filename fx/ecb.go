package fx

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"tally/internal/xmlguard"
	"tally/models"
)

// Day is one day of the ECB's reference rates: on Date, 1 EUR buys Rates[code] of each
// currency.
type Day struct {
	Date  time.Time // midnight UTC
	Rates map[string]decimal.Decimal
}

// ParseError is an ECB document that cannot be read: the line, the element and what is wrong.
type ParseError struct {
	Line int
	// Element is the local name of the element at fault ("Cube"); "" when the fault is not
	// in one.
	Element string
	Msg     string
}

func (e *ParseError) Error() string {
	if e.Element != "" {
		return fmt.Sprintf("ECB rates, line %d, <%s>: %s", e.Line, e.Element, e.Msg)
	}
	return fmt.Sprintf("ECB rates, line %d: %s", e.Line, e.Msg)
}

// Bounds of a document beyond its size (which the caller limits): the ECB's files nest four
// deep, list about 30 currencies a day and some 7,000 days since 1999.
const (
	maxDepth       = 16
	maxRatesPerDay = 200
	maxDays        = 100_000
)

// euroStart is the first day of the euro; no reference rate is older.
var euroStart = time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)

// ParseECB reads an ECB reference-rate document from r: the gesmes:Envelope of the daily feed
// (eurofxref-daily.xml), of the last 90 days (eurofxref-hist-90d.xml) or of the whole history
// (eurofxref-hist.xml), which share one format:
//
//	<Cube><Cube time="2026-03-02"><Cube currency="USD" rate="1.0823"/>…</Cube>…</Cube>
//
// It reads r as a stream of tokens and calls day for each day, in the document's order (the
// ECB's is newest first), holding one day at a time, so decades of history take no more
// memory than one day. An error from day stops the reading and is returned as it is.
//
// The document is refused with a *ParseError naming the line and element when it is not
// well formed, declares a DTD or anything else (<!DOCTYPE>, <!ENTITY>: see package xmlguard),
// uses an entity other than XML's own, nests too deep, holds no day, or has a day, currency or rate that is not one
// (a date before the euro, a code that is not three capital letters or is EUR, a rate that is
// not a positive decimal of at most 12 decimals, a currency or a day twice). An error reading
// r is returned wrapped.
func ParseECB(r io.Reader, day func(Day) error) error {
	src := &recordingReader{r: r}
	p := &ecbParser{d: xml.NewDecoder(src), src: src, seen: map[time.Time]bool{}}
	p.d.Strict = true
	return p.run(day)
}

// recordingReader keeps the error of the reader under the decoder, to tell a failed read from
// a document at fault.
type recordingReader struct {
	r   io.Reader
	err error
}

func (rr *recordingReader) Read(b []byte) (int, error) {
	n, err := rr.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		rr.err = err
	}
	return n, err
}

type ecbParser struct {
	d   *xml.Decoder
	src *recordingReader
	// depth is the element depth: 1 inside the root.
	depth int
	// cubes is the depth of the outermost <Cube>, 0 outside any.
	cubes int
	// cur is the day being read, which started at depth dayDepth.
	cur      *Day
	dayDepth int
	seen     map[time.Time]bool
}

func (p *ecbParser) run(day func(Day) error) error {
	for {
		tok, err := p.d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return p.readError(err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return p.fail("", xmlguard.Refusal(t, "the ECB's files"))
		case xml.StartElement:
			if err := p.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			if p.cur != nil && p.depth == p.dayDepth {
				d := *p.cur
				p.cur = nil
				if err := day(d); err != nil {
					return err
				}
			}
			if p.depth == p.cubes {
				p.cubes = 0
			}
			p.depth--
		}
	}
	if len(p.seen) == 0 {
		return p.fail("", "the document holds no day of rates: it is not the ECB's reference rates")
	}
	return nil
}

// start reads an element's start: the root, a <Cube> of days, of a day or of a rate, or
// something the parser passes over (the envelope's subject and sender).
func (p *ecbParser) start(t xml.StartElement) error {
	p.depth++
	name := t.Name.Local
	switch {
	case p.depth > maxDepth:
		return p.fail(name, fmt.Sprintf("elements are nested more than %d deep", maxDepth))
	case p.depth == 1 && name != "Envelope":
		return p.fail(name, "the document is not the ECB's reference rates: its root element is not <gesmes:Envelope>")
	case p.depth == 1:
		return nil
	case name != "Cube" && p.cubes > 0:
		return p.fail(name, "only <Cube> elements may be inside a <Cube>")
	case name != "Cube":
		return nil
	}
	if p.cubes == 0 {
		p.cubes = p.depth
	}
	attrs := map[string]string{}
	for _, a := range t.Attr {
		attrs[a.Name.Local] = a.Value
	}
	when, isDay := attrs["time"]
	code, isRate := attrs["currency"]
	switch {
	case isDay && isRate:
		return p.fail(name, "a <Cube> is either a day (time) or a rate (currency), not both")
	case isDay:
		return p.startDay(when)
	case isRate:
		return p.rate(code, attrs["rate"])
	case p.cur != nil:
		return p.fail(name, "a <Cube> inside a day must name a currency and its rate")
	}
	return nil
}

func (p *ecbParser) startDay(when string) error {
	if p.cur != nil {
		return p.fail("Cube", "a day's <Cube> is inside another day's")
	}
	date, err := time.Parse(time.DateOnly, when)
	if err != nil || date.Before(euroStart) {
		return p.fail("Cube", fmt.Sprintf("time %q is not a date of the euro's reference rates (YYYY-MM-DD, from 1999)", when))
	}
	if p.seen[date] {
		return p.fail("Cube", fmt.Sprintf("the day %s is listed twice", when))
	}
	if len(p.seen) >= maxDays {
		return p.fail("Cube", fmt.Sprintf("the document lists more than %d days", maxDays))
	}
	p.seen[date] = true
	p.cur, p.dayDepth = &Day{Date: date, Rates: map[string]decimal.Decimal{}}, p.depth
	return nil
}

func (p *ecbParser) rate(code, text string) error {
	switch {
	case p.cur == nil:
		return p.fail("Cube", fmt.Sprintf("the rate of %q is outside a day's <Cube time=…>", code))
	case p.depth != p.dayDepth+1:
		return p.fail("Cube", fmt.Sprintf("the rate of %q is not directly inside its day's <Cube>", code))
	case !models.ValidCurrency(code) || code == "EUR":
		return p.fail("Cube", fmt.Sprintf("currency %q is not a three-letter ISO code other than EUR", code))
	}
	if _, ok := p.cur.Rates[code]; ok {
		return p.fail("Cube", fmt.Sprintf("%s is listed twice on %s", code, p.cur.Date.Format(time.DateOnly)))
	}
	if len(p.cur.Rates) >= maxRatesPerDay {
		return p.fail("Cube", fmt.Sprintf("%s lists more than %d rates", p.cur.Date.Format(time.DateOnly), maxRatesPerDay))
	}
	r, msg := parseRate(text)
	if msg != "" {
		return p.fail("Cube", fmt.Sprintf("the rate %q of %s %s", text, code, msg))
	}
	p.cur.Rates[code] = r
	return nil
}

func (p *ecbParser) fail(element, msg string) error {
	line, _ := p.d.InputPos()
	return &ParseError{Line: line, Element: element, Msg: msg}
}

// readError is the decoder's error: the reader's own, wrapped, or the document's fault.
func (p *ecbParser) readError(err error) error {
	if p.src.err != nil {
		return fmt.Errorf("read ECB rates: %w", p.src.err)
	}
	if line, msg, ok := xmlguard.Syntax(err); ok {
		return &ParseError{Line: line, Msg: msg}
	}
	return p.fail("", "the XML could not be read: "+err.Error())
}
