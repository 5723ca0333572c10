package parse

import (
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"
)

func encode(t *testing.T, cm *charmap.Charmap, s string) []byte {
	t.Helper()
	b, err := cm.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding %q in %v: %v", s, cm, err)
	}
	return b
}

func utf16Bytes(s string, bigEndian bool) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

func TestText(t *testing.T) {
	const polish = "Sklep spożywczy;Kawiarnia Café;Łódź"
	const western = "Café Crème;Müller;Señor"
	tests := []struct {
		name     string
		content  []byte
		want     string
		encoding string
	}{
		{"ASCII is UTF-8", []byte("date,amount\n"), "date,amount\n", "UTF-8"},
		{"valid UTF-8 is kept as is", []byte(polish), polish, "UTF-8"},
		{"UTF-8 byte order mark is removed", append([]byte{0xEF, 0xBB, 0xBF}, "Łódź"...), "Łódź", "UTF-8"},
		{"UTF-8 byte order mark before invalid bytes still means UTF-8", []byte{0xEF, 0xBB, 0xBF, 'a', 0xFF, 'b'}, "a\uFFFDb", "UTF-8"},
		{"empty content", nil, "", "UTF-8"},
		{"UTF-16LE with its byte order mark", append([]byte{0xFF, 0xFE}, utf16Bytes(polish, false)...), polish, "UTF-16LE"},
		{"UTF-16BE with its byte order mark", append([]byte{0xFE, 0xFF}, utf16Bytes(polish, true)...), polish, "UTF-16BE"},
		{"UTF-16 outside the basic plane", append([]byte{0xFF, 0xFE}, utf16Bytes("💶 5", false)...), "💶 5", "UTF-16LE"},
		{"UTF-16 with a dangling byte", append(append([]byte{0xFF, 0xFE}, utf16Bytes("ab", false)...), 'c'), "ab\uFFFD", "UTF-16LE"},
		{"windows-1250 Polish text", encode(t, charmap.Windows1250, polish), polish, "windows-1250"},
		{"windows-1252 Western text", encode(t, charmap.Windows1252, western), western, "windows-1252"},
		{"windows-1252 pound sign before digits", encode(t, charmap.Windows1252, "Tesco;£12.50;Café"), "Tesco;£12.50;Café", "windows-1252"},
		{"windows-1252 Spanish question", encode(t, charmap.Windows1252, "¿Qué tal?;Señor"), "¿Qué tal?;Señor", "windows-1252"},
		{"windows-1252 curly quotes and euro sign", encode(t, charmap.Windows1252, "“Müller” – 5 €"), "“Müller” – 5 €", "windows-1252"},
		{"windows-1250 Czech text", encode(t, charmap.Windows1250, "Žluťoučký kůň; Šťastný"), "Žluťoučký kůň; Šťastný", "windows-1250"},
		{"ISO-8859-2 Polish text", encode(t, charmap.ISO8859_2, "Zażółć gęślą jaźń"), "Zażółć gęślą jaźń", "iso-8859-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, enc := Text(tt.content)
			if got != tt.want || enc != tt.encoding {
				t.Fatalf("Text(% x) = %q, %q; want %q, %q", tt.content, got, enc, tt.want, tt.encoding)
			}
		})
	}
}
