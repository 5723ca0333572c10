package bankfile

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"

	"tally/internal/xmlguard"
)

// XMLDecoder is an encoding/xml decoder that refuses what a bank file never needs and an
// attacker would use: a DTD (and so any entity it would declare; see package xmlguard),
// entities other than XML's five and numeric character references, nesting deeper than
// MaxDepth and more than MaxElements elements.
//
// Use Token (not RawToken) through it, or hand it to xml.NewTokenDecoder so that Decode and
// DecodeElement go through the checks.
type XMLDecoder struct {
	d        *xml.Decoder
	depth    int
	elements int
	err      error
}

// NewXMLDecoder returns a guarded decoder over content. Charsets other than UTF-8 and
// US-ASCII are read as ISO-8859-1 or windows-1252 when the declaration names them.
func NewXMLDecoder(content []byte) *XMLDecoder {
	d := xml.NewDecoder(bytes.NewReader(content))
	d.Strict = true
	d.CharsetReader = charsetReader
	return &XMLDecoder{d: d}
}

// Token returns the next token, or an *Error naming the line for anything refused.
func (x *XMLDecoder) Token() (xml.Token, error) {
	if x.err != nil {
		return nil, x.err
	}
	tok, err := x.d.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, err
		}
		x.err = x.wrap(err)
		return nil, x.err
	}
	switch t := tok.(type) {
	case xml.Directive:
		x.err = x.fail(xmlguard.Refusal(t, "bank statement files"))
		return nil, x.err
	case xml.StartElement:
		x.depth++
		x.elements++
		if x.depth > MaxDepth {
			x.err = x.fail("elements are nested more than " + strconv.Itoa(MaxDepth) + " deep")
			return nil, x.err
		}
		if x.elements > MaxElements {
			x.err = x.fail("the file has more than " + strconv.Itoa(MaxElements) + " elements")
			return nil, x.err
		}
	case xml.EndElement:
		x.depth--
	}
	return tok, nil
}

// Line is the line the decoder has reached.
func (x *XMLDecoder) Line() int {
	line, _ := x.d.InputPos()
	return line
}

func (x *XMLDecoder) fail(msg string) error { return &Error{Line: x.Line(), Msg: msg} }

// wrap turns encoding/xml's syntax errors into an *Error with the line.
func (x *XMLDecoder) wrap(err error) error {
	if line, msg, ok := xmlguard.Syntax(err); ok {
		return &Error{Line: line, Msg: msg}
	}
	var ue xml.UnmarshalError
	if errors.As(err, &ue) {
		return &Error{Line: x.Line(), Msg: string(ue)}
	}
	return &Error{Line: x.Line(), Msg: "the XML could not be read: " + err.Error()}
}

func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "windows-1252", "cp1252":
		b, err := io.ReadAll(input)
		if err != nil {
			return nil, err
		}
		return strings.NewReader(DecodeLatin1(b)), nil
	}
	return nil, errors.New("the XML declares the encoding " + label + ", which is not supported (use UTF-8 or ISO-8859-1)")
}

// DecodeLatin1 reads windows-1252 text (a superset of ISO-8859-1's printable characters) as
// UTF-8.
func DecodeLatin1(b []byte) string { return string(latin1(b)) }

func latin1(b []byte) []byte {
	out, _ := charmap.Windows1252.NewDecoder().Bytes(b)
	return out
}
