package imports

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"tally/imports/statement"
	"tally/internal/db"
	"tally/models"
)

// Enqueuer starts background work inside the caller's transaction, so that a job exists if
// and only if the status change that asks for it commits.
type Enqueuer interface {
	EnqueuePublish(ctx context.Context, tx db.Tx, importID uuid.UUID) (jobID int64, err error)
	EnqueueRevert(ctx context.Context, tx db.Tx, importID uuid.UUID) (jobID int64, err error)
}

// Limits bound what an import may hold.
type Limits struct {
	// MaxBytes is the largest file accepted: 10 MB.
	MaxBytes int
	// MaxMoveInBytes is the largest file of a budget moving in from another app (an Actual
	// export of decades is tens of megabytes); zero is the readers' own bound, 50 MB.
	MaxMoveInBytes int
	// MoveInReadTime bounds the reading of a move-in's export, its conversion to records and
	// their storing; zero is DefaultMoveInReadTime.
	MoveInReadTime time.Duration
	// MaxRows is the most rows one import may publish.
	MaxRows int
	// MaxRecords is the most records one NativeImport (a file, or a session's chunks) may
	// publish.
	MaxRecords int
	// Readers is how many files the process reads at once (MAX_CONCURRENT_UPLOADS); zero
	// is no bound. See Service.Reading.
	Readers int
}

// shortestRow is the fewest bytes a data row of a CSV can take: a date, a separator, an
// amount and a line end ("1/2/24,5" and a newline is nine).
const shortestRow = 8

// DefaultLimits are the limits when none are configured. The row limit is as many rows as a
// full-size file can hold, so that the file size is the only limit a CSV meets.
var DefaultLimits = Limits{MaxBytes: maxBytes, MaxRows: maxBytes / shortestRow, MaxRecords: 1_000_000, Readers: 4}

const maxBytes = 10 * 1024 * 1024

// LimitsOf returns the default limits with the row, record and reader limits an operator set;
// zero keeps the default.
func LimitsOf(maxRows, maxRecords, readers int) Limits {
	l := DefaultLimits
	if readers > 0 {
		l.Readers = readers
	}
	if maxRows > 0 {
		l.MaxRows = maxRows
	}
	if maxRecords > 0 {
		l.MaxRecords = maxRecords
	}
	return l
}

// Service runs imports for the families of one database.
type Service struct {
	DB     *db.DB
	Jobs   Enqueuer
	Limits Limits
	Log    *slog.Logger
	// LLM is the optional second extractor of PdfImport; nil when none is configured.
	LLM *statement.LLM
	// Events hears of publishes and reverts that end (import.completed, import.failed,
	// import.reverted); nil tells nobody.
	Events models.Notifier
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	readersOnce sync.Once
	readers     chan struct{}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
