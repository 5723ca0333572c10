package ofx

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"tally/imports/bankfile"
)

// aggregates are the OFX elements that hold other elements. In OFX 1.x SGML a leaf's closing
// tag is optional, so an element that is not an aggregate and has no value yet is closed by the
// next start tag: an empty <MEMO> does not swallow the <FITID> after it. Unknown elements (a
// bank's own <INTU.BID>, say) are read as leaves; an unknown aggregate's children become its
// siblings, which is harmless because every lookup names its parent.
var aggregates = toSet(
	// envelope and sign-on
	"OFX", "SIGNONMSGSRSV1", "SONRS", "STATUS", "FI", "MFACHALLENGERS",
	// bank and card statements
	"BANKMSGSRSV1", "STMTTRNRS", "STMTRS", "BANKACCTFROM", "BANKACCTTO", "CCACCTFROM", "CCACCTTO",
	"CREDITCARDMSGSRSV1", "CCSTMTTRNRS", "CCSTMTRS", "BANKTRANLIST", "STMTTRN", "PAYEE",
	"LEDGERBAL", "AVAILBAL", "BALLIST", "BAL", "CURRENCY", "ORIGCURRENCY", "IMAGEDATA",
	"STMTENDTRNRS", "STMTENDRS", "CCSTMTENDTRNRS", "CCSTMTENDRS", "CLOSING",
	// investments
	"INVSTMTMSGSRSV1", "INVSTMTTRNRS", "INVSTMTRS", "INVACCTFROM", "INVACCTTO", "INVTRANLIST",
	"INVBANKTRAN", "INVTRAN", "INVBUY", "INVSELL", "SECID", "BUYDEBT", "BUYMF", "BUYOPT",
	"BUYOTHER", "BUYSTOCK", "CLOSUREOPT", "INCOME", "INVEXPENSE", "JRNLFUND", "JRNLSEC",
	"MARGININTEREST", "REINVEST", "RETOFCAP", "SELLDEBT", "SELLMF", "SELLOPT", "SELLOTHER",
	"SELLSTOCK", "SPLIT", "TRANSFER", "INVPOSLIST", "INVPOS", "POSDEBT", "POSMF", "POSOPT",
	"POSOTHER", "POSSTOCK", "INVBAL", "INVOOLIST", "INV401K", "INV401KBAL", "MFASSETCLASS",
	"FIMFASSETCLASS", "PORTION", "FIPORTION", "LOANINFO",
	// securities
	"SECLISTMSGSRSV1", "SECLISTTRNRS", "SECLISTRS", "SECLIST", "SECINFO", "STOCKINFO", "MFINFO",
	"DEBTINFO", "OPTINFO", "OTHERINFO",
)

func toSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// maxValue bounds a value made of several pieces of text (split by comments or CDATA), so that
// hostile input cannot make joining them quadratic.
const maxValue = 4096

// maxName bounds an element's name. OFX's longest are some twenty characters, a bank's own
// (INTU.BID) no longer.
const maxName = 64

// maxHeld bounds the elements held at once. A statement's transactions, positions and
// securities are read one at a time as they close and then let go (see reading), so a valid
// file holds a few dozen; without the bound, 8 MB of unclosed tags would be two million nodes.
const maxHeld = 10_000

// visitor is what reads a body as it is tokenized: it hears of each element as it opens and
// as it closes, and decides whether a closed element stays in its parent's children.
type visitor interface {
	// open is called as n opens; stack holds its open ancestors, the document first.
	open(n *bankfile.Node, stack []*bankfile.Node)
	// closed is called as n closes, with its text and the children kept; keep adds it to its
	// parent's children.
	closed(n *bankfile.Node, stack []*bankfile.Node) (keep bool, err error)
}

// parseBody reads the body of an OFX file, SGML (1.x) or XML (2.x), as a stream of elements
// for v. It is tolerant where banks are sloppy (unclosed leaves, stray closing tags, bare '&')
// and strict where a file could attack its reader: declarations (<!DOCTYPE>, <!ENTITY>) are
// refused, no entity but XML's five and numeric references is expanded, and depth, element
// counts and the elements held at once are bounded. line is the line the body starts on.
// Elements still open at the end of the body are closed there, innermost first.
//
// The body is read in place: names and values are copied out of it as their elements are
// read, so that nothing read keeps the file alive.
func parseBody(body []byte, line int, v visitor) error {
	root := &bankfile.Node{Name: "#document", Line: line}
	stack := []*bankfile.Node{root}
	// held[i] is how many elements stack[i] holds, itself and the children kept under it.
	held := []int{1}
	total := 1
	top := func() *bankfile.Node { return stack[len(stack)-1] }
	// closeTop ends the innermost open element.
	closeTop := func() error {
		n, size := top(), held[len(held)-1]
		stack, held = stack[:len(stack)-1], held[:len(held)-1]
		keep, err := v.closed(n, stack)
		if err != nil {
			return err
		}
		if keep {
			p := top()
			p.Children = append(p.Children, n)
			held[len(held)-1] += size
		} else {
			total -= size
		}
		return nil
	}
	closeLeaf := func() error {
		if len(stack) > 1 && !aggregates[top().Name] {
			return closeTop()
		}
		return nil
	}
	elements := 0
	for i := 0; i < len(body); {
		c := body[i]
		if c != '<' {
			j := bytes.IndexByte(body[i:], '<')
			if j < 0 {
				j = len(body) - i
			}
			raw := body[i : i+j]
			if v := bytes.TrimSpace(raw); len(v) > 0 {
				if len(stack) == 1 {
					return bankfile.Errorf(line, "", "text %q outside any element", clip(v))
				}
				if t := top(); t.Text == "" {
					t.Text = unescape(v)
				} else if len(t.Text) < maxValue {
					t.Text += " " + unescape(v)
				}
			}
			line += bytes.Count(raw, newline)
			i += j
			continue
		}
		rest := body[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			end := bytes.Index(rest, []byte("-->"))
			if end < 0 {
				return bankfile.Errorf(line, "", "a comment (<!--) is never closed")
			}
			line += bytes.Count(rest[:end], newline)
			i += end + 3
			continue
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			end := bytes.Index(rest, []byte("]]>"))
			if end < 0 {
				return bankfile.Errorf(line, "", "a CDATA section is never closed")
			}
			if t := top(); len(stack) > 1 && len(t.Text) < maxValue {
				t.Text += string(bytes.TrimSpace(rest[9:end]))
			}
			line += bytes.Count(rest[:end], newline)
			i += end + 3
			continue
		case bytes.HasPrefix(rest, []byte("<?")):
			end := bytes.Index(rest, []byte("?>"))
			if end < 0 {
				return bankfile.Errorf(line, "", "a processing instruction (<?) is never closed")
			}
			line += bytes.Count(rest[:end], newline)
			i += end + 2
			continue
		case bytes.HasPrefix(rest, []byte("<!")):
			if len(rest) >= 9 && bytes.EqualFold(rest[2:9], []byte("DOCTYPE")) {
				return bankfile.Errorf(line, "", "the file declares a DTD (<!DOCTYPE>); OFX files have none, so it is refused")
			}
			return bankfile.Errorf(line, "", "the file holds a <!%s> declaration, which OFX files never have", clip(tagName(rest[2:])))
		}
		end := bytes.IndexByte(rest, '>')
		if end < 0 {
			return bankfile.Errorf(line, "", "a tag is never closed with '>'")
		}
		tag := rest[1:end]
		line0 := line
		line += bytes.Count(tag, newline)
		i += end + 1
		if bytes.HasPrefix(tag, []byte("/")) {
			raw := bytes.TrimSpace(tag[1:])
			if len(raw) > maxName {
				continue // longer than any open element's name, so it closes nothing
			}
			name := upperName(raw)
			for k := len(stack) - 1; k > 0; k-- {
				if stack[k].Name == name {
					for len(stack) > k {
						if err := closeTop(); err != nil {
							return err
						}
					}
					break
				}
			}
			// A closing tag that matches nothing open is a bank's stray; it closes nothing.
			continue
		}
		selfClosing := bytes.HasSuffix(tag, []byte("/"))
		raw := tagName(bytes.TrimSuffix(tag, []byte("/")))
		if len(raw) > maxName {
			return bankfile.Errorf(line0, "", "the element name %q is longer than %d characters", clip(raw), maxName)
		}
		name := upperName(raw)
		if !validName(name) {
			return bankfile.Errorf(line0, "", "%q is not an element name", clip(tag))
		}
		if err := closeLeaf(); err != nil {
			return err
		}
		if elements++; elements > bankfile.MaxElements {
			return bankfile.Errorf(line0, name, "the file has more than %d elements", bankfile.MaxElements)
		}
		if len(stack) > bankfile.MaxDepth {
			return bankfile.Errorf(line0, name, "elements are nested more than %d deep", bankfile.MaxDepth)
		}
		if total++; total > maxHeld {
			return bankfile.Errorf(line0, name, "more than %d elements would be held at once: a statement, transaction or sign-on this large is not one a bank sends", maxHeld)
		}
		n := &bankfile.Node{Name: name, Line: line0}
		v.open(n, stack)
		stack, held = append(stack, n), append(held, 1)
		if selfClosing {
			if err := closeTop(); err != nil {
				return err
			}
		}
	}
	for len(stack) > 1 {
		if err := closeTop(); err != nil {
			return err
		}
	}
	return nil
}

var newline = []byte("\n")

// clip is bankfile.Clip of a piece of the body.
func clip(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return bankfile.Clip(string(b))
}

// upperName is a tag's name in upper case. The names OFX defines are the ones a file
// repeats, so they are shared rather than copied out of the body each time.
func upperName(b []byte) string {
	if s, ok := names[string(b)]; ok {
		return s
	}
	return strings.ToUpper(string(b))
}

// names are the aggregates' names and the leaves' a reader looks up, by themselves.
var names = func() map[string]string {
	m := map[string]string{}
	for n := range aggregates {
		m[n] = n
	}
	for _, n := range []string{"CURDEF", "ACCTID", "BANKID", "BRANCHID", "ACCTTYPE", "DTSTART", "DTEND", "BALAMT", "DTASOF",
		"TRNTYPE", "DTPOSTED", "TRNAMT", "FITID", "DTUSER", "NAME", "MEMO", "CHECKNUM", "REFNUM", "DTAVAIL", "CURSYM", "CURRATE",
		"SIC", "CODE", "SEVERITY", "MESSAGE", "TRNUID", "UNIQUEID", "UNIQUEIDTYPE", "TICKER", "SECNAME", "DTTRADE", "UNITS",
		"UNITPRICE", "TOTAL", "MKTVAL", "DTPRICEASOF", "POSTYPE", "INCOMETYPE", "AVAILCASH"} {
		m[n] = n
	}
	return m
}()

// tagName is the name at the start of a tag's text, before any attribute.
func tagName(s []byte) []byte {
	if i := bytes.IndexAny(s, " \t\r\n/"); i >= 0 {
		return s[:i]
	}
	return s
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == ':') {
			return false
		}
	}
	return true
}

// unescape expands XML's five named entities and numeric character references. Anything else,
// such as the bare '&' of "AT&T" in SGML files, stays as it is.
func unescape(s []byte) string {
	if bytes.IndexByte(s, '&') < 0 {
		return string(s)
	}
	var b strings.Builder
	for {
		i := bytes.IndexByte(s, '&')
		if i < 0 {
			b.Write(s)
			return b.String()
		}
		b.Write(s[:i])
		s = s[i:]
		semi := bytes.IndexByte(s, ';')
		if semi < 0 || semi > 10 {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		ent, r := string(s[1:semi]), rune(-1)
		switch ent {
		case "amp":
			r = '&'
		case "lt":
			r = '<'
		case "gt":
			r = '>'
		case "quot":
			r = '"'
		case "apos":
			r = '\''
		default:
			if strings.HasPrefix(ent, "#x") || strings.HasPrefix(ent, "#X") {
				if v, err := strconv.ParseUint(ent[2:], 16, 32); err == nil {
					r = rune(v)
				}
			} else if strings.HasPrefix(ent, "#") {
				if v, err := strconv.ParseUint(ent[1:], 10, 32); err == nil {
					r = rune(v)
				}
			}
		}
		if r < 0 || !utf8.ValidRune(r) {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		b.WriteRune(r)
		s = s[semi+1:]
	}
}
