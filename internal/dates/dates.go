// Package dates reads the days and months that people and clients give Tally, within the one
// range of years Tally takes from them: 1970 to 2100. Every page, form and API parameter that
// takes a date or a month reads it here, so that a year such as 0 or 20000 is a problem on its
// field, never a value PostgreSQL refuses (a 500) or a budget that walks thousands of months.
package dates

import (
	"fmt"
	"strings"
	"time"

	"tally/internal/apperr"
)

// FirstYear and LastYear are the first and the last year Tally takes.
const (
	FirstYear = 1970
	LastYear  = 2100
)

// First and Last are the first and the last day Tally takes, as Tally keeps days: midnight UTC.
var (
	First = time.Date(FirstYear, time.January, 1, 0, 0, 0, 0, time.UTC)
	Last  = time.Date(LastYear, time.December, 31, 0, 0, 0, 0, time.UTC)
)

const (
	dayLayout   = time.DateOnly
	monthLayout = "2006-01"
)

// InRange reports whether day falls from First to Last.
func InRange(day time.Time) bool { return day.Year() >= FirstYear && day.Year() <= LastYear }

// Day reads s, a day written as 2026-03-02 (spaces around it aside), as midnight UTC. The
// error is an Invalid error with one problem on field, which its message names.
func Day(field, s string) (time.Time, error) {
	return parse(field, s, dayLayout, "a date (YYYY-MM-DD)")
}

// Month reads s, a month written as 2026-10, as its first day, with the errors of Day.
func Month(field, s string) (time.Time, error) {
	return parse(field, s, monthLayout, "a month (YYYY-MM)")
}

func parse(field, s, layout, what string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(layout, s)
	switch {
	case err != nil:
		return time.Time{}, problem(field, fmt.Sprintf("%s %q is not %s", field, s, what))
	case !InRange(t):
		return time.Time{}, problem(field, fmt.Sprintf("%s %s is out of range: give one from %s to %s",
			field, s, First.Format(layout), Last.Format(layout)))
	}
	return t, nil
}

func problem(field, msg string) error {
	var v apperr.Validation
	v.Add(field, msg)
	return v.Err()
}
