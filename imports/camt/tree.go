package camt

import (
	"encoding/xml"
	"strings"

	"tally/imports/bankfile"
)

// decoder walks a camt document through the guarded XML decoder.
type decoder struct {
	x *bankfile.XMLDecoder
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

// subtree reads the element that start opened, to its end, into a node, matched by local
// name (the namespace changes with every version and carries no meaning here). NOTPROVIDED,
// which banks write where a reference is mandatory but absent, is read as no value.
func (d decoder) subtree(start xml.StartElement, line int) (*bankfile.Node, error) {
	n := &bankfile.Node{Name: start.Name.Local, Attrs: start.Attr, Line: line}
	var text strings.Builder
	for {
		tok, err := d.x.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			c, err := d.subtree(t, d.x.Line())
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
