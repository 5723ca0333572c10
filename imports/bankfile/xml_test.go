package bankfile

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

func drain(content string) error {
	x := NewXMLDecoder([]byte(content))
	for {
		_, err := x.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestXMLDecoderRefusesWhatBankFilesNeverHave(t *testing.T) {
	deep := strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1)
	cases := []struct {
		name, content, want string
	}{
		{"a DTD", `<?xml version="1.0"?>` + "\n" + `<!DOCTYPE d [<!ENTITY x "y">]><d>&x;</d>`, "line 2: the file declares a DTD"},
		{"billion laughs without its DTD", `<d>&lol9;</d>`, "invalid character entity &lol9;"},
		{"an external entity reference", `<d>&xxe;</d>`, "only XML's own entities"},
		{"nesting too deep", deep, "nested more than 64 deep"},
		{"a foreign encoding", `<?xml version="1.0" encoding="EBCDIC"?><d/>`, "encoding EBCDIC"},
		{"not well formed", "<d>\n<e></d>", "line 2: the XML is not well formed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := drain(c.content)
			var be *Error
			if !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want a *bankfile.Error containing %q", err, c.want)
			}
		})
	}
}

func TestXMLDecoderReadsLatin1AndDecodes(t *testing.T) {
	content := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><d><n>M\xfcller &amp; S\xf6hne &#8364;</n></d>")
	var v struct {
		N string `xml:"n"`
	}
	if err := xml.NewTokenDecoder(NewXMLDecoder(content)).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v.N != "Müller & Söhne €" {
		t.Fatalf("n = %q", v.N)
	}
}
