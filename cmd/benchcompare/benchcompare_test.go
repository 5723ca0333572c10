package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"tally/internal/scalefile"
)

func TestRoundOrderAlternates(t *testing.T) {
	builds := []build{{name: "old"}, {name: "new"}}
	for round, want := range []string{"old new", "new old", "old new", "new old"} {
		var got []string
		for _, b := range roundOrder(builds, round) {
			got = append(got, b.name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("round %d runs %v, want %s", round+1, got, want)
		}
	}
	if builds[0].name != "old" {
		t.Errorf("roundOrder reordered the builds it was given: %v", builds)
	}
}

func TestTableShowsRoundsMedianAndRatioOverTheFirstBuild(t *testing.T) {
	tm := newTimings([]build{{name: "3aaf5c6"}, {name: "working tree"}})
	for _, s := range []float64{12, 13, 11, 12.5} {
		tm.add("3aaf5c6", time.Duration(s*float64(time.Second)))
	}
	for _, s := range []float64{9, 10, 12, 11} {
		tm.add("working tree", time.Duration(s*float64(time.Second)))
	}
	lines := strings.Split(strings.TrimSpace(tm.table("publish")), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and a line a build, got:\n%s", strings.Join(lines, "\n"))
	}
	for _, want := range []string{"round 1", "round 4", "median", "ratio"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("the header %q has no %q", lines[0], want)
		}
	}
	if f := strings.Fields(lines[1]); f[0] != "3aaf5c6" || f[5] != "12.25s" || f[6] != "1.00x" {
		t.Errorf("the commit's line: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[len(f)-2] != "10.50s" || f[len(f)-1] != "0.86x" {
		t.Errorf("the working tree's line: %q", lines[2])
	}
}

func TestTheFileIsTheScaleMatrixLayoutUnderTheSizeLimit(t *testing.T) {
	file := scalefile.CSV(245_087)
	if len(file) > maxFileBytes {
		t.Fatalf("the file is %d bytes, over the import's %d", len(file), maxFileBytes)
	}
	lines := strings.Split(strings.TrimSuffix(file, "\n"), "\n")
	if len(lines) != 245_088 || lines[0] != strings.TrimSuffix(scalefile.Header, "\n") {
		t.Fatalf("%d lines, header %q", len(lines), lines[0])
	}
	// cmd/tally's csvShapes "245k" writes these rows.
	for i, want := range map[int]string{1: "2023-01-01,-1.00,Merchant 0,N0", 702: "2023-01-02,-202.01,Merchant 701,N701"} {
		if lines[i] != want {
			t.Errorf("row %d is %q, want %q", i, lines[i], want)
		}
	}
}

func TestFlagsNameWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-ref is required"},
		{[]string{"-ref", "HEAD", "-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"-ref", "HEAD", "-rows", "300000"}, "-rows 300000"},
	} {
		if _, err := parseFlags(c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

func TestVerdictHoldsTheWorkingTreeToTheCommit(t *testing.T) {
	builds := []build{{name: "3aaf5c6"}, {name: "working tree"}}
	publish, copies := newTimings(builds), newTimings(builds)
	publish.add("3aaf5c6", 12*time.Second)
	publish.add("working tree", 13*time.Second)
	copies.add("3aaf5c6", 2*time.Second)
	copies.add("working tree", 2400*time.Millisecond)
	got := verdict(publish, copies)
	for _, want := range []string{"publish: 1.08x the commit's median (at most 1.00x): NOT met", "COPY into entries: 1.20x the commit's median (at most 1.25x): met"} {
		if !strings.Contains(got, want) {
			t.Errorf("the verdict %q does not say %q", got, want)
		}
	}
}

func TestParseStatCPUCountsUserAndSystemTime(t *testing.T) {
	// A postgres session's line: its command has spaces and a parenthesis of its own.
	stat := "4242 (postgres: postgres bench (x)) S 1 4242 4242 0 -1 4194560 1 0 0 0 250 37 0 0 20 0 1 0 100 0 0"
	got, err := parseStatCPU(stat)
	if err != nil || got != 2870*time.Millisecond {
		t.Fatalf("parseStatCPU = %v, %v; want 2.87s (250 + 37 ticks)", got, err)
	}
	if _, err := parseStatCPU("4242 (cut short"); err == nil {
		t.Error("a line without its command's end read as a time")
	}
}

func TestCPUSinceCountsNewProcessesWhole(t *testing.T) {
	before := cpuSample{1: time.Second, 2: 3 * time.Second}
	after := cpuSample{1: 4 * time.Second, 3: 2 * time.Second} // 2 ended, 3 began
	if got := after.since(before); got != 5*time.Second {
		t.Errorf("since = %v, want 5s (3s of process 1, 2s of the new process 3)", got)
	}
	if _, err := processCPU(os.Getpid()); err != nil {
		t.Errorf("this test's own CPU time: %v", err)
	}
}
