package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// build is one binary of the comparison: a commit's or the working tree's.
type build struct {
	name string // the commit's short hash, or "working tree"
	bin  string
}

// buildBoth builds (-trimpath, so that a build of the same commit in another temporary
// worktree is found in the build cache) ref's tally command in a temporary git worktree (removed again by cleanup,
// with the binaries) and the working tree's: ref first, the working tree second.
func buildBoth(ctx context.Context, ref string, out io.Writer) (builds []build, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "benchcompare-")
	if err != nil {
		return nil, func() {}, err
	}
	top, err := git(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, func() { os.RemoveAll(dir) }, err
	}
	short, err := git(ctx, top, "rev-parse", "--short", ref+"^{commit}")
	if err != nil {
		return nil, func() { os.RemoveAll(dir) }, fmt.Errorf("REF %q is no commit: %w", ref, err)
	}
	tree := filepath.Join(dir, "src")
	cleanup = func() {
		_, _ = git(context.Background(), top, "worktree", "remove", "--force", tree)
		os.RemoveAll(dir)
	}
	if _, err := git(ctx, top, "worktree", "add", "--detach", tree, short); err != nil {
		return nil, cleanup, err
	}
	builds = []build{{name: short, bin: filepath.Join(dir, "tally-"+short)}, {name: "working tree", bin: filepath.Join(dir, "tally-working-tree")}}
	for i, src := range []string{tree, top} {
		fmt.Fprintf(out, "building %s\n", builds[i].name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", builds[i].bin, "./cmd/tally")
		cmd.Dir = src
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, cleanup, fmt.Errorf("go build of %s: %w\n%s", builds[i].name, err, msg)
		}
	}
	return builds, cleanup, nil
}

// git runs git in dir and returns its output, trimmed.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
