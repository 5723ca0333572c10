// Package xmlguard holds what Tally's XML readers (bank statement files, the ECB's exchange
// rates) share to refuse what their documents never need and an attacker would use: a DTD,
// and with it any entity it would declare. encoding/xml never fetches or expands external
// entities itself; the DTD is refused so that nothing depends on that.
package xmlguard

import (
	"encoding/xml"
	"errors"
	"strings"
)

// Refusal says why the declaration d is refused in a document of kind (in the plural, such
// as "bank statement files"), which never has one.
func Refusal(d xml.Directive, kind string) string {
	s := strings.TrimSpace(string(d))
	if len(s) >= 7 && strings.EqualFold(s[:7], "DOCTYPE") {
		return "the file declares a DTD (<!DOCTYPE>); " + kind + " have none, so it is refused"
	}
	return "the file holds a <!" + firstWord(s) + "> declaration, which " + kind + " never have"
}

// Syntax returns the line of encoding/xml's syntax error in err and what it says, for
// people; false when err is none.
func Syntax(err error) (line int, msg string, ok bool) {
	var se *xml.SyntaxError
	if !errors.As(err, &se) {
		return 0, "", false
	}
	msg = se.Msg
	if strings.HasPrefix(msg, "invalid character entity") {
		msg += " (only XML's own entities and character references are allowed)"
	}
	return se.Line, "the XML is not well formed: " + msg, true
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 20 {
		s = s[:20]
	}
	return s
}
