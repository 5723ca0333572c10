package camt

import (
	"encoding/xml"
	"errors"
	"strings"

	"tally/imports/bankfile"
)

// decoder walks a camt document through the guarded XML decoder; each takes the entries,
// when the caller gives one.
type decoder struct {
	x    *bankfile.XMLDecoder
	each bankfile.EntryFunc
}

// next returns the next start element with the line it ends on, or io.EOF. When an element
// closes instead, start is nil and end is its name.
func (d decoder) next() (start *xml.StartElement, end string, line int, err error) {
	for {
		tok, err := d.x.Token()
		if err != nil {
			return nil, "", d.x.Line(), err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return &t, "", d.x.Line(), nil
		case xml.EndElement:
			return nil, t.Name.Local, d.x.Line(), nil
		}
	}
}

// maxPart bounds the elements of one part of a statement read whole (an entry, a balance, the
// account). A batch entry of a few thousand transactions holds some tens of thousands; a part
// of more is no bank's, and would be held whole.
const maxPart = 200_000

// subtree reads the element that start opened, to its end, into a node, matched by local
// name (the namespace changes with every version and carries no meaning here). NOTPROVIDED,
// which banks write where a reference is mandatory but absent, is read as no value.
func (d decoder) subtree(start xml.StartElement, line int) (*bankfile.Node, error) {
	elements := 0
	n, err := d.part(start, line, &elements)
	if errors.Is(err, errPartTooLarge) {
		return nil, bankfile.Errorf(line, start.Name.Local, "the element holds more than %d elements", maxPart)
	}
	return n, err
}

var errPartTooLarge = errors.New("part too large")

func (d decoder) part(start xml.StartElement, line int, elements *int) (*bankfile.Node, error) {
	if *elements++; *elements > maxPart {
		return nil, errPartTooLarge
	}
	n := &bankfile.Node{Name: start.Name.Local, Attrs: start.Attr, Line: line}
	var text strings.Builder
	for {
		tok, err := d.x.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			c, err := d.part(t, d.x.Line(), elements)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			if n.Text = strings.TrimSpace(text.String()); strings.EqualFold(n.Text, "NOTPROVIDED") {
				n.Text = ""
			}
			return n, nil
		}
	}
}

// skip reads past the element just opened, keeping nothing of it.
func (d decoder) skip() error {
	for depth := 1; depth > 0; {
		tok, err := d.x.Token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}
