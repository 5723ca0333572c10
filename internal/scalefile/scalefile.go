// Package scalefile is the transaction file of the scale benchmarks: the layout of date,
// amount, name and a note that cmd/tally's scale matrix (csvShapes "245k") and
// cmd/benchcompare both publish, written once so that the two measure the same rows.
// Row i is on one of 700 days, of one of 50,000 amounts, at one of 1,000 merchants, with a
// note of its own.
package scalefile

import (
	"fmt"
	"strings"
	"time"
)

// Header is the file's first line.
const Header = "date,amount,name,notes\n"

// Day is row i's date.
func Day(i int) time.Time { return time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700) }

// Cents is row i's amount in cents: spending, never zero.
func Cents(i int) int { return -(100*(1+i%500) + i%100) }

// Merchant is row i's name, one of 1,000.
func Merchant(i int) string { return fmt.Sprintf("Merchant %d", i%1000) }

// Note is row i's note, its own.
func Note(i int) string { return fmt.Sprintf("N%d", i) }

// Line is row i as the file holds it.
func Line(i int) string {
	c := Cents(i)
	return fmt.Sprintf("%s,-%d.%02d,%s,%s\n", Day(i).Format("2006-01-02"), -c/100, -c%100, Merchant(i), Note(i))
}

// CSV is the file of n rows.
func CSV(n int) string {
	var b strings.Builder
	b.WriteString(Header)
	for i := range n {
		b.WriteString(Line(i))
	}
	return b.String()
}
