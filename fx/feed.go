package fx

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// Feed is what the fetches of the ECB's rates did lately: when one last worked, and since
// when they fail and why.
type Feed struct {
	bun.BaseModel `bun:"table:fx_feed_status"`

	ID            bool       `bun:"id,pk"`
	LastSuccessAt *time.Time `bun:"last_success_at"`
	// FailingSince is the first failure since the last fetch that worked; nil while they work.
	FailingSince  *time.Time `bun:"failing_since"`
	LastFailureAt *time.Time `bun:"last_failure_at"`
	LastError     *string    `bun:"last_error"`
}

// Failing reports whether the latest fetch failed.
func (f *Feed) Failing() bool { return f != nil && f.FailingSince != nil }

// maxFeedError bounds the reason kept: an error names the URL and the network's words.
const maxFeedError = 500

// FeedStatus returns what the fetches did lately; nil before the first fetch.
func FeedStatus(ctx context.Context, db bun.IDB) (*Feed, error) {
	f := new(Feed)
	err := db.NewSelect().Model(f).Where("id").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return f, err
}

// recordFetch keeps how a fetch at now ended: a success clears the failure, a failure keeps
// when the failures began.
func recordFetch(ctx context.Context, db bun.IDB, now time.Time, fetchErr error) error {
	if fetchErr == nil {
		_, err := db.NewRaw(`INSERT INTO fx_feed_status (id, last_success_at) VALUES (true, ?)
			ON CONFLICT (id) DO UPDATE SET last_success_at = EXCLUDED.last_success_at, failing_since = NULL, last_error = NULL`, now).Exec(ctx)
		return err
	}
	msg := []rune(fetchErr.Error())
	if len(msg) > maxFeedError {
		msg = append(msg[:maxFeedError-1], '…')
	}
	_, err := db.NewRaw(`INSERT INTO fx_feed_status (id, failing_since, last_failure_at, last_error) VALUES (true, ?0, ?0, ?1)
		ON CONFLICT (id) DO UPDATE SET failing_since = coalesce(fx_feed_status.failing_since, EXCLUDED.failing_since),
			last_failure_at = EXCLUDED.last_failure_at, last_error = EXCLUDED.last_error`, now, string(msg)).Exec(ctx)
	return err
}
