package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// On a machine others share, a round's wall time swings with their load (twice as long from
// one minute to the next); the CPU time the work took swings far less. So bench-compare also
// counts the CPU seconds of the processes that did the work: the server's and its database
// sessions' for a publish, the session's for a COPY. They are read from /proc (Linux), and the
// server's database sessions run as the postgres user, so this needs the same user or root,
// as the lab runs; elsewhere the CPU columns stay empty.

// clockTicks is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on every Linux port).
const clockTicks = 100

// processCPU is the CPU time (user and system) process pid has taken so far.
func processCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(raw))
}

// parseStatCPU reads utime and stime, the 14th and 15th fields of a /proc/<pid>/stat line,
// counting after the command's closing parenthesis (a command may hold spaces).
func parseStatCPU(stat string) (time.Duration, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("no command in %q", stat)
	}
	fields := strings.Fields(stat[end+1:]) // fields[0] is the 3rd field, the state
	if len(fields) < 13 {
		return 0, fmt.Errorf("too few fields in %q", stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("field %q of %q: %w", f, stat, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// cpuSample is the CPU time of each process of a piece of work at one moment.
type cpuSample map[int]time.Duration

// sampleCPU reads the CPU time of the processes pids, leaving out any that has gone.
func sampleCPU(pids []int) cpuSample {
	s := cpuSample{}
	for _, pid := range pids {
		if d, err := processCPU(pid); err == nil {
			s[pid] = d
		}
	}
	return s
}

// since is the CPU time taken between an earlier sample and s: a process new in s took all of
// its own. A process that ended between the two is not counted (the server's pool keeps its
// sessions for the publish).
func (s cpuSample) since(earlier cpuSample) time.Duration {
	var d time.Duration
	for pid, now := range s {
		d += now - earlier[pid]
	}
	return d
}

// sessions are the server processes of database db's sessions, less the caller's own.
func sessions(ctx context.Context, conn *pgx.Conn, db string) ([]int, error) {
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, db)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}
