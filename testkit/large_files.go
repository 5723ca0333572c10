package testkit

import (
	"fmt"
	"strings"
)

// The large files below are what the memory tests and benchmarks of the file readers upload:
// each is as dense as its format is in real exports, filled to size bytes, and comes with how
// many rows it makes.

// LargeQIF is a QIF bank account of records of about 32 bytes.
func LargeQIF(size int) (content []byte, records int) {
	var b strings.Builder
	b.WriteString("!Type:Bank\n")
	for ; b.Len() < size-100; records++ {
		fmt.Fprintf(&b, "D03/02/2026\nT-%d.%02d\nPShop %d\n^\n", 1+records%50, records%100, records%1000)
	}
	return []byte(b.String()), records
}
