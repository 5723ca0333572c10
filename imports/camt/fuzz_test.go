package camt

import (
	"strings"
	"testing"

	"tally/imports/bankfile/bankfiletest"
)

// FuzzRead feeds the corpus, its halves and a ZIP of two of its files to Read, and whatever the
// fuzzer makes of them: Read must not panic, must fail only with a *bankfile.Error and must name
// every statement's account and date every entry.
func FuzzRead(f *testing.F) {
	f.Add(zipOf(f, map[string][]byte{"a.xml": load(f, "camt052_intraday.xml"), "b.xml": load(f, "camt054_notification.xml")}))
	// A statement part that is skipped unread, and an entry refused for holding too much.
	f.Add([]byte(entryHead + "<TxsSummry><TtlNtries><NbOfNtries>1</NbOfNtries></TtlNtries></TxsSummry></Stmt></BkToCstmrStmt></Document>"))
	f.Add([]byte(entryHead + "<Ntry>" + strings.Repeat("<A/>", maxPart+1)))
	bankfiletest.Fuzz(f, "testdata/*.xml", Read, ReadEach)
}
