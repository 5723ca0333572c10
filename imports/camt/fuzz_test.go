package camt

import (
	"testing"

	"tally/imports/bankfile/bankfiletest"
)

func FuzzRead(f *testing.F) { bankfiletest.Fuzz(f, "testdata/*.*", Read) }
