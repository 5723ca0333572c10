package fx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
)

// DefaultURL is the ECB's daily feed, which Fetcher reads unless told otherwise
// (EXCHANGE_RATES_URL).
const DefaultURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

// Off, as the feed's URL, turns fetching off.
const Off = "none"

// The ECB's other files, beside the daily feed.
const (
	historyFile = "eurofxref-hist.xml"
	recentFile  = "eurofxref-hist-90d.xml"
)

// MaxFeedBytes bounds a feed's body. The whole history is about 7 MB and grows by some
// 1.5 KB a day.
const MaxFeedBytes = 64 << 20

// userAgent names Tally in its requests to the ECB.
const userAgent = "Tally exchange rates"

// CheckURL says what is wrong with u as the daily feed's URL: it must be Off or an absolute
// http or https URL, from whose directory the history files are also read.
func CheckURL(u string) error {
	if u == Off {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("must be an http or https URL of the ECB's daily feed (such as %s), or %s to fetch no rates", DefaultURL, Off)
	}
	return nil
}

// HistoryURL is the whole history's file beside the daily feed at daily: eurofxref-hist.xml
// in the same directory.
func HistoryURL(daily string) string { return besideFeed(daily, historyFile) }

func besideFeed(daily, file string) string {
	u, err := url.Parse(daily)
	if err != nil {
		return daily
	}
	return u.ResolveReference(&url.URL{Path: file}).String()
}

// Fetcher stores the ECB's reference rates in exchange_rates, for every family.
type Fetcher struct {
	DB *db.DB
	// URL is the daily feed: DefaultURL when "", and no fetching at all when Off. The history
	// files are read from beside it.
	URL string
	// HTTP reads the feeds; nil is a client with a two-minute timeout.
	HTTP *http.Client
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MaxBytes bounds a file's body; 0 is MaxFeedBytes.
	MaxBytes int64
}

// FetchResult is what one fetch did.
type FetchResult struct {
	// URL is the file read; "" when fetching is off.
	URL string
	// Days is how many days the file held, and Rates how many rates were stored new or
	// changed: none when the file holds nothing Tally did not already have.
	Days, Rates int
}

// Fetch reads the ECB's rates and stores them. The first fetch, with no fetched rate stored
// yet, reads the whole history once; later ones read the daily feed, or, when the latest
// stored rate is over a week old (Tally was off), the last 90 days, or the whole history again
// when it is nearly as old as those, so that the days missed are filled in. The file is read as a stream and written in batches, all in one transaction, so
// that a fetch cut short stores nothing and the next one starts from the same place. Writing
// is idempotent: a rate already stored is left as it is. How it ended is kept (FeedStatus),
// unless it was cut short by the worker stopping.
func (f *Fetcher) Fetch(ctx context.Context) (FetchResult, error) {
	daily := cmp.Or(f.URL, DefaultURL)
	if daily == Off {
		return FetchResult{}, nil
	}
	res, err := f.fetch(ctx, daily)
	if ctx.Err() != nil {
		return res, err
	}
	if rerr := recordFetch(ctx, f.DB, f.now(), err); rerr != nil {
		return res, errors.Join(err, rerr)
	}
	return res, err
}

func (f *Fetcher) fetch(ctx context.Context, daily string) (FetchResult, error) {
	var latest *time.Time
	if err := f.DB.NewRaw("SELECT max(date) FROM exchange_rates WHERE family_id IS NULL").Scan(ctx, &latest); err != nil {
		return FetchResult{}, err
	}
	res := FetchResult{URL: feedFor(daily, latest, day(f.now()))}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, res.URL, nil)
	if err != nil {
		return res, fmt.Errorf("fetch exchange rates from %s: %w", res.URL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := f.client().Do(req)
	if err != nil {
		return res, fmt.Errorf("fetch exchange rates: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("fetch exchange rates from %s: the server answered %s", res.URL, resp.Status)
	}
	limit := cmp.Or(f.MaxBytes, MaxFeedBytes)
	body := http.MaxBytesReader(nil, resp.Body, limit)
	err = f.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		w := &batch{tx: tx}
		if err := ParseECB(body, func(d Day) error { res.Days++; return w.add(ctx, d) }); err != nil {
			return err
		}
		err := w.flush(ctx)
		res.Rates = w.written
		return err
	})
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return FetchResult{URL: res.URL}, fmt.Errorf("fetch exchange rates from %s: the file is larger than %d bytes", res.URL, limit)
		}
		return FetchResult{URL: res.URL}, fmt.Errorf("fetch exchange rates from %s: %w", res.URL, err)
	}
	return res, nil
}

// feedFor is the file a fetch reads, given the latest fetched date stored (nil for none)
// and today's date: the whole history, the last 90 days or the daily feed.
func feedFor(daily string, latest *time.Time, today time.Time) string {
	switch {
	case latest == nil || today.Sub(*latest) > 80*24*time.Hour:
		return besideFeed(daily, historyFile)
	case today.Sub(*latest) > 7*24*time.Hour:
		return besideFeed(daily, recentFile)
	}
	return daily
}

func (f *Fetcher) client() *http.Client {
	if f.HTTP != nil {
		return f.HTTP
	}
	return &http.Client{Timeout: 2 * time.Minute}
}

func (f *Fetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// batchRows is how many rates one statement writes.
const batchRows = 2000

// batch gathers fetched rates and writes them batchRows at a time.
type batch struct {
	tx                        db.Tx
	ids, dates, quotes, rates []string
	written                   int
}

func (b *batch) add(ctx context.Context, d Day) error {
	date := dateText(d.Date)
	for code, r := range d.Rates {
		b.ids = append(b.ids, uuid.Must(uuid.NewV7()).String())
		b.dates, b.quotes, b.rates = append(b.dates, date), append(b.quotes, code), append(b.rates, r.String())
	}
	if len(b.ids) >= batchRows {
		return b.flush(ctx)
	}
	return nil
}

// flush writes the rates gathered: new ones inserted, changed ones updated, the same ones
// left alone (a day is never in a batch twice: ParseECB refuses a repeated day).
func (b *batch) flush(ctx context.Context) error {
	if len(b.ids) == 0 {
		return nil
	}
	res, err := b.tx.NewRaw(`INSERT INTO exchange_rates (id, date, base, quote, rate, source)
		SELECT t.id, t.date, 'EUR', t.quote, t.rate, ?
		FROM unnest(?::uuid[], ?::date[], ?::text[], ?::numeric[]) AS t(id, date, quote, rate)
		ON CONFLICT (base, quote, date) WHERE family_id IS NULL
		DO UPDATE SET rate = EXCLUDED.rate, updated_at = now() WHERE exchange_rates.rate <> EXCLUDED.rate`,
		SourceECB, pgdialect.Array(b.ids), pgdialect.Array(b.dates), pgdialect.Array(b.quotes), pgdialect.Array(b.rates)).Exec(ctx)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	b.written += int(n)
	b.ids, b.dates, b.quotes, b.rates = b.ids[:0], b.dates[:0], b.quotes[:0], b.rates[:0]
	return nil
}
