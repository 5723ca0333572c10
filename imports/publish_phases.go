package imports

import (
	"context"
	"time"

	"tally/internal/metrics"
)

// timed runs one phase of a publish (statistics, duplicates, merchants, rules, transfers,
// entries, balances, and after its commit entry statistics) and adds its time to the phase's total in the metrics
// (tally_import_publish_phase_seconds_total): where a publish's time goes, for an operator
// whose publishes grew slow and for the scale benchmark, which names each phase's share.
func timed(ctx context.Context, phase string, step func(context.Context) error) error {
	start := time.Now()
	err := step(ctx)
	metrics.PublishPhases.WithLabelValues(phase).Add(time.Since(start).Seconds())
	return err
}
