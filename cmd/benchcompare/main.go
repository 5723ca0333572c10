// Command benchcompare times a commit's publish of a 10 MB file against the working tree's,
// as `make bench-compare REF=<commit>` runs it: each build on a fresh database of a private
// PostgreSQL, in alternating order, from the upload with publish=true to complete, and a bare
// COPY of the same rows into each build's own entries table. It prints both as a table of
// rounds, medians and the working tree's ratio over the commit.
//
// It is a program rather than a benchmark of cmd/tally because it builds and runs another
// commit's binary the way that commit ran (its own `tally migrate up`, `users:create`,
// `api_keys:create` and `serve`), which no test binary of this tree can be.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"tally/internal/scalefile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	ref    string
	rounds int
	rows   int
	slowMS int
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.ref, "ref", "", "the commit to compare the working tree with (required)")
	fs.IntVar(&o.rounds, "rounds", 4, "rounds of each build, alternating")
	fs.IntVar(&o.rows, "rows", 245_087, "the file's rows (245,087 is 9.6 MB)")
	fs.IntVar(&o.slowMS, "slow-ms", 0, "log each statement of the publish that takes this long (ms) to the cluster's log, kept and named at the end; 0 logs none")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.ref == "":
		return o, fmt.Errorf("-ref is required: the commit to compare with")
	case o.rounds < 1:
		return o, fmt.Errorf("-rounds must be at least 1, not %d", o.rounds)
	case o.rows < 1 || len(scalefile.CSV(o.rows)) > maxFileBytes:
		return o, fmt.Errorf("-rows %d: the file must hold at least one row and stay under %d bytes", o.rows, maxFileBytes)
	}
	return o, nil
}

// maxFileBytes is the import's size limit (imports.maxBytes).
const maxFileBytes = 10 * 1024 * 1024

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parseFlags(args, os.Stderr)
	if err != nil {
		return err
	}
	builds, cleanup, err := buildBoth(ctx, o.ref, stdout)
	defer cleanup()
	if err != nil {
		return err
	}
	lab, err := startLab(ctx, o.slowMS)
	if err != nil {
		return err
	}
	defer lab.stop()
	file := scalefile.CSV(o.rows)
	fmt.Fprintf(stdout, "a file of %d rows (%.1f MB), %d rounds of each build\n", o.rows, float64(len(file))/1e6, o.rounds)
	publish, copies := newTimings(builds), newTimings(builds)
	publishCPU, copyCPU := newTimings(builds), newTimings(builds)
	for round := range o.rounds {
		for _, b := range roundOrder(builds, round) {
			c, cc, err := lab.timeCopy(ctx, b, o.rows)
			if err != nil {
				return fmt.Errorf("%s, round %d, COPY: %w", b.name, round+1, err)
			}
			copies.add(b.name, c)
			copyCPU.add(b.name, cc)
			p, pc, err := lab.timePublish(ctx, b, file, o.rows)
			if err != nil {
				return fmt.Errorf("%s, round %d, publish: %w", b.name, round+1, err)
			}
			publish.add(b.name, p)
			publishCPU.add(b.name, pc)
			fmt.Fprintf(stdout, "  round %d %-12s publish %s (CPU %s), COPY %s (CPU %s)\n", round+1, b.name, seconds(p), seconds(pc), seconds(c), seconds(cc))
		}
	}
	for _, t := range []struct {
		what string
		t    *timings
	}{
		{"publish=true to complete", publish}, {"  its CPU time", publishCPU},
		{"bare COPY into entries", copies}, {"  its CPU time", copyCPU},
	} {
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, t.t.table(t.what))
	}
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, verdict(publish, copies))
	fmt.Fprintf(stdout, "(in CPU time: publish %.2fx, COPY %.2fx)\n", publishCPU.ratio(), copyCPU.ratio())
	if lab.logPath != "" {
		fmt.Fprintf(stdout, "\nstatements of %d ms and more: %s\n", o.slowMS, lab.logPath)
	}
	return nil
}
