package jsonstr

import (
	"encoding/json"
	"testing"
)

// seeds are string literals with every kind of escape, valid and broken surrogate pairs,
// invalid UTF-8, and text that is no literal.
var seeds = []string{
	`""`, `"date,amount\nx,1"`, `"\"\\\/\b\f\n\r\t"`, `"caf\u00e9 \u00E9"`, `"\ud83d\ude00 😀"`,
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800x"`, `"\ud800\ud800\udc00"`, "\"\xff\xfe ok \xe2\x82\"", "\"\xed\xa0\x80\"",
	`"a`, `a"`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"tab\there\"", `"\`, `"a"b"`,
}

// Unquote decodes a literal exactly as encoding/json does.
func TestUnquoteDecodesAsEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(check)
}

// check compares Unquote with encoding/json on s, when s is a valid literal with nothing
// around it, as a decoder hands a value over: they read the same text. (What encoding/json
// refuses, Unquote is never given: the callers' decoder checks the JSON first.)
func check(t *testing.T, s []byte) {
	var want string
	err := json.Unmarshal(s, &want)
	got, ok := Unquote([]byte("kept:"), s)
	if err != nil || len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return
	}
	if !ok || string(got) != "kept:"+want {
		t.Fatalf("Unquote(%q) = %q, %v; encoding/json reads %q", s, got, ok, want)
	}
}
