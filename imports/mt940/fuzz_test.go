package mt940

import (
	"strings"
	"testing"

	"tally/imports/bankfile/bankfiletest"
)

func FuzzRead(f *testing.F) {
	// Refused: a field that runs over too many lines.
	f.Add([]byte(statementHead + ":86:x\n" + strings.Repeat("y\n", maxLines+1)))
	bankfiletest.Fuzz(f, "testdata/*.*", Read, ReadEach)
}
