package ofx

import (
	"testing"

	"tally/imports/bankfile/bankfiletest"
)

func FuzzRead(f *testing.F) {
	// Refused for holding too much at once: a transaction and a statement of many elements.
	f.Add(repeat(sgmlHeader+statementHead+"<STMTTRN>", "<MEMO>x", "", 80_000))
	f.Add(repeat(sgmlHeader+statementHead+"</BANKTRANLIST>", "<JUNK>", "", 70_000))
	bankfiletest.Fuzz(f, "testdata/*.*", Read, ReadEach)
}
