package main

import (
	"fmt"
	"strings"
	"time"
)

// The file bench-compare publishes is the scale matrix's layout of date, amount, name and a
// note (cmd/tally/bench_scale_test.go, scaleShape up to 245,000 rows): row i is on one of 700
// days, of one of 50,000 amounts, at one of 1,000 merchants, with a note of its own.

// fileHeader is the file's first line.
const fileHeader = "date,amount,name,notes\n"

// day is row i's date.
func day(i int) time.Time { return time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700) }

// cents is row i's amount in cents: spending, never zero.
func cents(i int) int { return -(100*(1+i%500) + i%100) }

// merchant is row i's name, one of 1,000.
func merchant(i int) string { return fmt.Sprintf("Merchant %d", i%1000) }

// note is row i's note, its own.
func note(i int) string { return fmt.Sprintf("N%d", i) }

// line is row i as the file holds it.
func line(i int) string {
	c := cents(i)
	return fmt.Sprintf("%s,-%d.%02d,%s,%s\n", day(i).Format("2006-01-02"), -c/100, -c%100, merchant(i), note(i))
}

// csvFile is the file of n rows.
func csvFile(n int) string {
	var b strings.Builder
	b.WriteString(fileHeader)
	for i := range n {
		b.WriteString(line(i))
	}
	return b.String()
}
