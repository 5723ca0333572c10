// Package fakeecb is the European Central Bank's reference-rate files for tests: a loopback
// HTTP server that writes the daily feed, the last 90 days and the whole history in the ECB's
// own XML format (a gesmes:Envelope of <Cube time=…> days of <Cube currency=… rate=…/>),
// from rates the test chooses.
//
//	s := fakeecb.NewTest(t)   // closed when the test ends
//	s.SetDay("2026-03-02", map[string]string{"USD": "1.0823", "GBP": "0.8412"})
//	f := &fx.Fetcher{DB: d, URL: s.URL} // s.URL is the daily feed's, as EXCHANGE_RATES_URL takes it
//	... s.Requests() lists the files read, in order
//
// The files, under /stats/eurofxref/ as on the ECB's site:
//
//   - eurofxref-daily.xml: the newest day.
//   - eurofxref-hist-90d.xml: the days of the 90 before the newest, newest first.
//   - eurofxref-hist.xml: every day, newest first.
//
// Fail makes the next requests fail with a status instead.
package fakeecb

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Dir is where the files are served, as on the ECB's site.
const Dir = "/stats/eurofxref/"

// The files' names.
const (
	Daily   = "eurofxref-daily.xml"
	Recent  = "eurofxref-hist-90d.xml"
	History = "eurofxref-hist.xml"
)

// Server serves the ECB's files of the days it holds. Its methods are safe for concurrent use
// with the requests it serves.
type Server struct {
	// URL is the daily feed's URL.
	URL string

	mu       sync.Mutex
	days     map[string]map[string]string // date → currency → rate
	fail     []int
	requests []string
}

// NewTest starts a fake with no days on a loopback server that closes when the test ends.
func NewTest(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{days: map[string]map[string]string{}}
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	s.URL = srv.URL + Dir + Daily
	return s
}

// SetDay adds the day date (YYYY-MM-DD) with its rates, currency to rate as the ECB writes
// them, or replaces the one it had.
func (s *Server) SetDay(date string, rates map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.days[date] = maps.Clone(rates)
}

// Fail makes the next len(statuses) requests answer those statuses, in order, with no file.
func (s *Server) Fail(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, statuses...)
}

// Requests are the names of the files asked for, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ServeHTTP serves the files.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	file, ok := strings.CutPrefix(r.URL.Path, Dir)
	if r.Method != http.MethodGet || !ok {
		http.NotFound(w, r)
		return
	}
	s.requests = append(s.requests, file)
	if len(s.fail) > 0 {
		status := s.fail[0]
		s.fail = s.fail[1:]
		http.Error(w, http.StatusText(status), status)
		return
	}
	dates := slices.Sorted(maps.Keys(s.days))
	slices.Reverse(dates)
	switch file {
	case Daily:
		dates = dates[:min(1, len(dates))]
	case Recent:
		if len(dates) > 0 {
			newest, _ := time.Parse(time.DateOnly, dates[0])
			from := newest.AddDate(0, 0, -90).Format(time.DateOnly)
			dates = slices.DeleteFunc(dates, func(d string) bool { return d < from })
		}
	case History:
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprint(w, s.document(dates))
}

// document writes the days dates in the ECB's format: its header, and each day's rates in
// the order of their codes.
func (s *Server) document(dates []string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
`)
	for _, d := range dates {
		fmt.Fprintf(&b, "\t\t<Cube time='%s'>\n", d)
		for _, code := range slices.Sorted(maps.Keys(s.days[d])) {
			fmt.Fprintf(&b, "\t\t\t<Cube currency='%s' rate='%s'/>\n", code, s.days[d][code])
		}
		b.WriteString("\t\t</Cube>\n")
	}
	b.WriteString("\t</Cube>\n</gesmes:Envelope>\n")
	return b.String()
}
