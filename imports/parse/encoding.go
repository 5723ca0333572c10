package parse

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// singleByteEncodings are the code pages a file that is not UTF-8 may be in, in the order ties
// are broken: Western European first, then Central European.
var singleByteEncodings = []struct {
	name    string
	charmap *charmap.Charmap
}{
	{"windows-1252", charmap.Windows1252},
	{"windows-1250", charmap.Windows1250},
	{"iso-8859-1", charmap.ISO8859_1},
	{"iso-8859-2", charmap.ISO8859_2},
}

// Text returns content as UTF-8 text, and the name of the encoding it was read as.
//
// A byte order mark decides; otherwise valid UTF-8 is taken as UTF-8, and anything else is read
// in the single-byte code page whose reading of the non-ASCII bytes looks most like words.
func Text(content []byte) (text string, encoding string) {
	switch {
	case bytes.HasPrefix(content, []byte{0xEF, 0xBB, 0xBF}):
		return strings.ToValidUTF8(string(content[3:]), "\uFFFD"), "UTF-8"
	case bytes.HasPrefix(content, []byte{0xFF, 0xFE}):
		return decodeUTF16(content[2:], binary.LittleEndian), "UTF-16LE"
	case bytes.HasPrefix(content, []byte{0xFE, 0xFF}):
		return decodeUTF16(content[2:], binary.BigEndian), "UTF-16BE"
	case utf8.Valid(content):
		return string(content), "UTF-8"
	}
	best, bestScore := 0, 0
	for i, enc := range singleByteEncodings {
		if score := plausibility(content, enc.charmap); i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	enc := singleByteEncodings[best]
	var b strings.Builder
	b.Grow(len(content) + len(content)/4)
	for _, c := range content {
		if c < utf8.RuneSelf {
			b.WriteByte(c)
		} else {
			b.WriteRune(enc.charmap.DecodeByte(c))
		}
	}
	return b.String(), enc.name
}

// decodeUTF16 decodes b, UTF-16 without its byte order mark; a dangling odd byte becomes U+FFFD.
func decodeUTF16(b []byte, order binary.ByteOrder) string {
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = order.Uint16(b[2*i:])
	}
	s := string(utf16.Decode(units))
	if len(b)%2 == 1 {
		s += "\uFFFD"
	}
	return s
}

// plausibility scores how much content, read in cm, looks like text: letters inside words count
// for it, control characters and undefined bytes count heavily against it, and symbols rarely
// seen in financial files count a little against it.
func plausibility(content []byte, cm *charmap.Charmap) int {
	score := 0
	for i, c := range content {
		if c < utf8.RuneSelf {
			continue
		}
		prev, next := ' ', ' '
		if i > 0 {
			prev = cm.DecodeByte(content[i-1])
		}
		if i+1 < len(content) {
			next = cm.DecodeByte(content[i+1])
		}
		score += runeScore(prev, cm.DecodeByte(c), next)
	}
	return score
}

// commonSymbols are the non-letters that real files contain: currency signs, typographic
// quotes and dashes, and the like. They neither help nor hurt an encoding.
const commonSymbols = "\u00a0€£¥¢©®°±§¶·«»¿¡×÷–—‘’‚“”„•…‰†‡™¹²³¼½¾"

func runeScore(prev, r, next rune) int {
	switch {
	case r == utf8.RuneError || unicode.IsControl(r):
		return -4
	case isWordLetter(r):
		// A lone letter, as windows-1250 reads the pound sign in "£12.50", or a letter against
		// the case of its neighbour, as in "żQué" for "¿Qué", is no evidence of a word.
		if !isWordLetter(prev) && !isWordLetter(next) ||
			unicode.IsLower(prev) && unicode.IsUpper(r) || unicode.IsLower(r) && unicode.IsUpper(next) {
			return 0
		}
		return 2
	case strings.ContainsRune(commonSymbols, r):
		return 0
	default:
		return -1
	}
}

// isWordLetter reports whether r is a letter that spells words; modifier letters such as ˆ and
// ˇ are letters to Unicode but, alone in a file, they are diacritics read from the wrong page.
func isWordLetter(r rune) bool {
	return unicode.IsLetter(r) && !unicode.Is(unicode.Lm, r)
}
