package imports

import (
	"context"
	"time"

	"tally/internal/apperr"
)

// readerWait is how long a file waits for a reader slot before it is refused: long enough to
// ride out another upload's parse, short enough that a client is not left hanging.
const readerWait = 2 * time.Second

// Reading takes one of the process's reader slots (Limits.Readers) for reading an uploaded
// or stored file, and returns the function that gives it back. Reading a 10 MB file can cost
// up to 120 MB for a moment (a CSV, whose records are held), so the slots bound what the
// process spends at once.
// With every slot taken for readerWait it refuses with a RateLimited error ("too_many_uploads").
func (s *Service) Reading(ctx context.Context) (done func(), err error) {
	s.readersOnce.Do(func() {
		if n := s.Limits.Readers; n > 0 {
			s.readers = make(chan struct{}, n)
		}
	})
	if s.readers == nil {
		return func() {}, nil
	}
	t := time.NewTimer(readerWait)
	defer t.Stop()
	select {
	case s.readers <- struct{}{}:
		return func() { <-s.readers }, nil
	case <-t.C:
		return nil, apperr.New(apperr.RateLimited, "Tally is reading other files right now. Please send this one again in a few seconds.").
			WithSlug("too_many_uploads")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
