package bankfile

import "encoding/xml"

// Node is an element of a file read into a tree, for the readers that build one (OFX, camt):
// its name, its text (trimmed; a reader may blank values that mean "none"), the attributes
// it kept, its children and the line it starts on.
type Node struct {
	Name     string
	Text     string
	Attrs    []xml.Attr
	Children []*Node
	Line     int
}

// Child returns the first child called name, or nil. It is safe on a nil node.
func (n *Node) Child(name string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Path follows child names from n; nil when a step is missing.
func (n *Node) Path(names ...string) *Node {
	for _, name := range names {
		n = n.Child(name)
	}
	return n
}

// Value is the text of the node at the path, "" when there is none.
func (n *Node) Value(names ...string) string {
	if c := n.Path(names...); c != nil {
		return c.Text
	}
	return ""
}

// All returns the children called name.
func (n *Node) All(name string) []*Node {
	if n == nil {
		return nil
	}
	var out []*Node
	for _, c := range n.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Attr returns the attribute called name (by local name), "" when there is none.
func (n *Node) Attr(name string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
