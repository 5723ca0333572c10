package jobs

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"tally/internal/db"
)

// clientSeq numbers the job clients of this process, whose ids must differ.
var clientSeq atomic.Int64

// clientID is the id of a new job client: the process's name (every connection it opens
// carries it as application_name), then '#' and the client's number in the process.
func clientID() string {
	return db.ProcessName + "#" + strconv.FormatInt(clientSeq.Add(1), 10)
}

// rescueGrace is how long a job runs before its process is checked: a worker takes its
// import's row lock within moments of starting, and a process always keeps a connection.
const rescueGrace = 10 * time.Second

// RescueArgs asks for the jobs of processes that died to be handed back.
type RescueArgs struct{}

// Kind names the job.
func (RescueArgs) Kind() string { return "rescue_jobs" }

// InsertOpts keeps one rescuer in the queue at a time.
func (RescueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: rescueEvery}}
}

// rescueEvery is how often the rescuer runs: a job of a process that died is running again
// within rescueEvery + rescueGrace of the death, or of a worker starting when none was left.
const rescueEvery = 15 * time.Second

type rescueWorker struct {
	river.WorkerDefaults[RescueArgs]
	db  *db.DB
	log *slog.Logger
}

func (w *rescueWorker) Work(ctx context.Context, _ *river.Job[RescueArgs]) error {
	_, err := RescueDead(ctx, w.db, w.log, rescueGrace)
	return err
}

// RescueDead makes the running jobs whose process has no connection to the database left
// available again at once, and returns how many. River's own rescuer waits for a job to have
// run longer than RescueStuckJobsAfter (an hour by default), since it cannot tell a slow job
// from a lost one; a process's connections tell. A process killed, or a machine lost (once
// TCP keepalives close its connections), drops them, while a live one keeps its listener's.
// Every job is safe to run again: a publish or revert is one transaction under its import's
// row lock and does nothing unless the import still waits for it, and a bank sync writes in
// one transaction after reading the bank.
func RescueDead(ctx context.Context, d *db.DB, log *slog.Logger, grace time.Duration) (int, error) {
	var rescued []struct {
		ID   int64  `bun:"id"`
		Kind string `bun:"kind"`
		By   string `bun:"by"`
	}
	err := d.NewRaw(`
		UPDATE river_job j SET state = 'available', scheduled_at = now(),
			errors = array_append(j.errors, jsonb_build_object('at', now(), 'attempt', j.attempt,
				'error', 'the process working this job lost its database connection (it stopped or died); handed back', 'trace', '')),
			metadata = j.metadata || jsonb_build_object('tally:rescued', coalesce((j.metadata->>'tally:rescued')::int, 0) + 1)
		FROM (
			SELECT r.id, split_part(r.attempted_by[cardinality(r.attempted_by)], '#', 1) AS by
			FROM river_job r
			WHERE r.state = 'running' AND r.attempted_at < now() - ?::interval
				AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
					WHERE a.application_name = split_part(r.attempted_by[cardinality(r.attempted_by)], '#', 1))
			FOR UPDATE OF r SKIP LOCKED) dead
		WHERE j.id = dead.id AND j.state = 'running'
		RETURNING j.id, j.kind, dead.by`, strconv.Itoa(int(grace.Seconds()))+" seconds").Scan(ctx, &rescued)
	if err != nil {
		return 0, err
	}
	for _, r := range rescued {
		log.WarnContext(ctx, "job of a process that is gone handed back", "job_id", r.ID, "kind", r.Kind, "process", r.By)
	}
	return len(rescued), nil
}
