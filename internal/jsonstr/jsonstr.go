// Package jsonstr decodes a JSON string literal into bytes, for the request bodies whose one
// large field (an uploaded file's text) must be decoded once, straight into the []byte it is
// kept as: encoding/json decodes a string only into a Go string, which a []byte must copy.
package jsonstr

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote appends the text of the JSON string literal s, quotes included, to dst, as
// encoding/json decodes it: escapes resolved, and each byte of invalid UTF-8 and each unpaired
// surrogate made U+FFFD. ok is false when s is not a string literal.
func Unquote(dst, s []byte) (out []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return dst, false
	}
	s = s[1 : len(s)-1]
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			if r+1 >= len(s) {
				return dst, false
			}
			if c, ok := escapes[s[r+1]]; ok {
				dst = append(dst, c)
				r += 2
				continue
			}
			rr := hex4(s[r:])
			if rr < 0 {
				return dst, false
			}
			r += 6
			if utf16.IsSurrogate(rr) {
				if pair := utf16.DecodeRune(rr, hex4(s[r:])); pair != unicode.ReplacementChar {
					dst = utf8.AppendRune(dst, pair)
					r += 6
					continue
				}
				rr = unicode.ReplacementChar
			}
			dst = utf8.AppendRune(dst, rr)
		case c == '"' || c < ' ':
			return dst, false
		case c < utf8.RuneSelf:
			// A run of plain ASCII goes in one append.
			end := r + 1
			for end < len(s) && s[end] < utf8.RuneSelf && s[end] >= ' ' && s[end] != '\\' && s[end] != '"' {
				end++
			}
			dst = append(dst, s[r:end]...)
			r = end
		default:
			rr, size := utf8.DecodeRune(s[r:])
			dst = utf8.AppendRune(dst, rr)
			r += size
		}
	}
	return dst, true
}

// escapes are the one-character escapes and what they stand for.
var escapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', '\'': '\'', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads the \uXXXX escape s starts with, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
