package fx

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"tally/fx/fakeecb"
	"tally/internal/db"
	"tally/testkit"
)

// fetchedRate is the fetched rate of EUR into code on date, "" when none is stored.
func fetchedRate(t *testing.T, d *db.DB, code, date string) string {
	t.Helper()
	var rates []string
	if err := d.NewRaw("SELECT rate::text FROM exchange_rates WHERE family_id IS NULL AND base = 'EUR' AND quote = ? AND date = ?::date",
		code, date).Scan(context.Background(), &rates); err != nil {
		t.Fatal(err)
	}
	if len(rates) == 0 {
		return ""
	}
	return rates[0]
}

func countRates(t *testing.T, d *db.DB) int {
	t.Helper()
	var n int
	if err := d.NewRaw("SELECT count(*) FROM exchange_rates").Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func on(date string) time.Time {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		panic(err)
	}
	return t
}

// sampleECB is a fake ECB with three days of three currencies.
func sampleECB(t *testing.T) *fakeecb.Server {
	s := fakeecb.NewTest(t)
	s.SetDay("2026-02-26", map[string]string{"USD": "1.0805", "GBP": "0.8405", "JPY": "162.07"})
	s.SetDay("2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398", "JPY": "161.88"})
	s.SetDay("2026-03-02", map[string]string{"USD": "1.0823", "GBP": "0.8412", "JPY": "162.41"})
	return s
}

// sampleFetcher is a Fetcher of sampleECB into a new database, on the day *today says.
func sampleFetcher(t *testing.T, today *time.Time) (*Fetcher, *fakeecb.Server) {
	ecb := sampleECB(t)
	return &Fetcher{DB: testkit.MustOpenDB(t), URL: ecb.URL, Now: func() time.Time { return *today }}, ecb
}

func TestFetchReadsTheHistoryOnceThenTheDailyFeed(t *testing.T) {
	ctx := context.Background()
	today := on("2026-03-02")
	f, ecb := sampleFetcher(t, &today)
	d := f.DB

	res, err := f.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.URL != strings.Replace(ecb.URL, fakeecb.Daily, fakeecb.History, 1) || res.Days != 3 || res.Rates != 9 || countRates(t, d) != 9 {
		t.Fatalf("first fetch %+v, %d rates stored", res, countRates(t, d))
	}
	if got := fetchedRate(t, d, "GBP", "2026-02-27"); got != "0.839800000000" {
		t.Errorf("EUR→GBP on 2026-02-27 stored as %q", got)
	}

	// The next day's fetch reads the daily feed, and only the new day is written.
	today = on("2026-03-03")
	ecb.SetDay("2026-03-03", map[string]string{"USD": "1.0851", "GBP": "0.8420", "JPY": "163.02", "CHF": "0.9399"})
	if res, err = f.Fetch(ctx); err != nil || res.URL != ecb.URL || res.Days != 1 || res.Rates != 4 || countRates(t, d) != 13 {
		t.Fatalf("daily fetch %+v, %v; %d rates stored", res, err, countRates(t, d))
	}
	// Again: nothing new, nothing written.
	if res, err = f.Fetch(ctx); err != nil || res.Days != 1 || res.Rates != 0 || countRates(t, d) != 13 {
		t.Fatalf("the same feed again %+v, %v; %d rates stored", res, err, countRates(t, d))
	}
	// A rate the ECB corrects is corrected.
	ecb.SetDay("2026-03-03", map[string]string{"USD": "1.0852", "GBP": "0.8420", "JPY": "163.02", "CHF": "0.9399"})
	if res, err = f.Fetch(ctx); err != nil || res.Rates != 1 || fetchedRate(t, d, "USD", "2026-03-03") != "1.085200000000" {
		t.Fatalf("a corrected rate %+v, %v: %s", res, err, fetchedRate(t, d, "USD", "2026-03-03"))
	}
	want := []string{fakeecb.History, fakeecb.Daily, fakeecb.Daily, fakeecb.Daily}
	if got := ecb.Requests(); !slices.Equal(got, want) {
		t.Errorf("files read %v, want %v", got, want)
	}
}

// TestFetchWritesAHistoryInBatches: a history of more rates than one statement writes is
// stored whole.
func TestFetchWritesAHistoryInBatches(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ecb := fakeecb.NewTest(t)
	const days = 500
	codes := []string{"USD", "GBP", "JPY", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK"}
	for i := range days {
		rates := map[string]string{}
		for j, code := range codes {
			rates[code] = fmt.Sprintf("%d.%04d", 1+j, i)
		}
		ecb.SetDay(on("2026-03-02").AddDate(0, 0, -i).Format(time.DateOnly), rates)
	}
	res, err := (&Fetcher{DB: d, URL: ecb.URL}).Fetch(context.Background())
	if err != nil || res.Days != days || res.Rates != days*len(codes) || countRates(t, d) != days*len(codes) {
		t.Fatalf("fetch %+v, %v; %d stored", res, err, countRates(t, d))
	}
	if got := fetchedRate(t, d, "CZK", on("2026-03-02").AddDate(0, 0, -(days-1)).Format(time.DateOnly)); got != "9.049900000000" {
		t.Errorf("the oldest day's last currency: %q", got)
	}
}

// TestFetchFillsInTheDaysMissed: after more than a week without a fetch the last 90 days are
// read; after nearly three months, the whole history again.
func TestFetchFillsInTheDaysMissed(t *testing.T) {
	ctx := context.Background()
	today := on("2026-03-02")
	f, _ := sampleFetcher(t, &today)
	if _, err := f.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		today, file string
	}{{"2026-03-09", fakeecb.Daily}, {"2026-03-10", fakeecb.Recent}, {"2026-05-21", fakeecb.Recent}, {"2026-05-22", fakeecb.History}} {
		today = on(tc.today)
		res, err := f.Fetch(ctx)
		if err != nil || !strings.HasSuffix(res.URL, "/"+tc.file) {
			t.Errorf("on %s the fetch read %s (%v), want %s", tc.today, res.URL, err, tc.file)
		}
	}
}

func TestFetchOffFetchesNothing(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ecb := sampleECB(t)
	res, err := (&Fetcher{DB: d, URL: Off}).Fetch(context.Background())
	if err != nil || res != (FetchResult{}) || len(ecb.Requests()) != 0 || countRates(t, d) != 0 {
		t.Fatalf("fetch %+v, %v; %v read, %d stored", res, err, ecb.Requests(), countRates(t, d))
	}
}

// TestFetchFailureStoresNothing: a refused request, a document cut short or a file over the
// limit is an error that names the file, and no rate of it is stored.
func TestFetchFailureStoresNothing(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	ecb := sampleECB(t)
	ecb.Fail(http.StatusServiceUnavailable)
	f := &Fetcher{DB: d, URL: ecb.URL}
	if _, err := f.Fetch(ctx); err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), fakeecb.History) {
		t.Errorf("a 503: %v", err)
	}

	// A history whose first days are good but which breaks off.
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"><Cube>`)
		for i := range 3000 {
			fmt.Fprintf(w, `<Cube time='%s'><Cube currency='USD' rate='1.08'/></Cube>`, on("2026-03-02").AddDate(0, 0, -i).Format(time.DateOnly))
		}
		fmt.Fprint(w, `<Cube time='2001-01-02'><Cube currency='USD' rate='`)
	}))
	defer cut.Close()
	f.URL = cut.URL + "/eurofxref-daily.xml"
	if _, err := f.Fetch(ctx); err == nil || !strings.Contains(err.Error(), "eurofxref-hist.xml") || !strings.Contains(err.Error(), "not well formed") {
		t.Errorf("a history cut short: %v", err)
	}
	// A file over the limit.
	f.URL, f.MaxBytes = ecb.URL, 600
	if _, err := f.Fetch(ctx); err == nil || !strings.Contains(err.Error(), "larger than 600 bytes") {
		t.Errorf("a file too large: %v", err)
	}
	if n := countRates(t, d); n != 0 {
		t.Errorf("%d rates stored from failed fetches", n)
	}
}

func TestCheckURL(t *testing.T) {
	for u, ok := range map[string]bool{DefaultURL: true, Off: true, "http://127.0.0.1:8080/stats/eurofxref/eurofxref-daily.xml": true,
		"ftp://ecb.example/daily.xml": false, "/stats/eurofxref-daily.xml": false, "https://": false, "None": false} {
		if err := CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", u, err)
		}
	}
	if got := HistoryURL(DefaultURL); got != "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.xml" {
		t.Errorf("HistoryURL = %s", got)
	}
}
