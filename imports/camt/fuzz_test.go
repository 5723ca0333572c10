package camt

import (
	"testing"

	"tally/imports/bankfile/bankfiletest"
)

// FuzzRead feeds the corpus, its halves and a ZIP of two of its files to Read, and whatever the
// fuzzer makes of them: Read must not panic, must fail only with a *bankfile.Error and must name
// every statement's account and date every entry.
func FuzzRead(f *testing.F) {
	f.Add(zipOf(f, map[string][]byte{"a.xml": load(f, "camt052_intraday.xml"), "b.xml": load(f, "camt054_notification.xml")}))
	bankfiletest.Fuzz(f, "testdata/*.xml", Read)
}
