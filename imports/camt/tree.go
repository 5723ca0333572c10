package camt

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"tally/imports/bankfile"
)

// node is an element of a camt document, by local name (the namespace changes with every
// version and carries no meaning here).
type node struct {
	name     string
	text     string
	ccy      string // the Ccy attribute of an amount
	children []*node
	line     int
}

func (n *node) child(name string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// path follows child names; nil when a step is missing.
func (n *node) path(names ...string) *node {
	for _, name := range names {
		n = n.child(name)
	}
	return n
}

// value is the trimmed text at the path, "" when there is none. NOTPROVIDED, which banks
// write where a reference is mandatory but absent, counts as none.
func (n *node) value(names ...string) string {
	c := n.path(names...)
	if c == nil || strings.EqualFold(c.text, "NOTPROVIDED") {
		return ""
	}
	return c.text
}

// all returns the children called name.
func (n *node) all(name string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// decoder walks a camt document through the guarded XML decoder.
type decoder struct {
	x *bankfile.XMLDecoder
}

// next returns the next start element with its line, or io.EOF. It returns an *EndElement
// as nil start and the end's name when an element closes.
func (d decoder) next() (start *xml.StartElement, end string, line int, err error) {
	for {
		tok, err := d.x.Token()
		if err != nil {
			return nil, "", 0, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return &t, "", d.x.Line(), nil
		case xml.EndElement:
			return nil, t.Name.Local, d.x.Line(), nil
		}
	}
}

// subtree reads the element that start opened, to its end, into a node.
func (d decoder) subtree(start xml.StartElement, line int) (*node, error) {
	n := &node{name: start.Name.Local, line: line}
	for _, a := range start.Attr {
		if a.Name.Local == "Ccy" {
			n.ccy = strings.TrimSpace(a.Value)
		}
	}
	var text strings.Builder
	for {
		tok, err := d.x.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, bankfile.Errorf(d.x.Line(), n.name, "the file ends inside <%s>", n.name)
			}
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			c, err := d.subtree(t, d.x.Line())
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			n.text = strings.TrimSpace(text.String())
			return n, nil
		}
	}
}
