package auditlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAuditOpen(t *testing.T) {
	for _, tc := range []struct {
		url, root, err string
	}{
		{url: "file:///var/lib/tally/audit", root: "/var/lib/tally/audit"},
		{url: "file://localhost/srv/a%20b/", root: "/srv/a b"},
		{url: "file://.data/audit", err: "local directory"},
		{url: "file:relative/dir", err: "absolute path"},
		{url: "s3://bucket/audit", err: `scheme "s3" is not supported`},
		{url: "/var/lib/tally", err: "no scheme"},
	} {
		a, err := Open(tc.url)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Open(%q) error %v, want %q", tc.url, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", tc.url, err)
			continue
		}
		if got := a.(*DirArchive).Root; got != tc.root {
			t.Errorf("Open(%q) root %q, want %q", tc.url, got, tc.root)
		}
	}
}

func TestAuditDirArchive(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "archive")
	a := &DirArchive{Root: root}

	if k, err := a.List(ctx, ""); err != nil || len(k) != 0 {
		t.Fatalf("a missing root lists %v, %v; want an empty archive", k, err)
	}
	if _, err := a.Get(ctx, "2026/01/02.ndjson.gz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing object: %v, want ErrNotFound", err)
	}
	for _, k := range []string{"2026/01/02.ndjson.gz", "2026/01/03.ndjson.gz", "2025/12/31.ndjson.gz"} {
		if err := a.Put(ctx, k, []byte("v1 "+k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Put(ctx, "2026/01/02.ndjson.gz", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if b, err := a.Get(ctx, "2026/01/02.ndjson.gz"); err != nil || string(b) != "v2" {
		t.Errorf("Get after a second Put: %q, %v", b, err)
	}
	// A temporary file left by a crashed Put is not an object.
	if err := os.WriteFile(filepath.Join(root, "2026", "01", tempPrefix+"123"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, _ := a.List(ctx, ""); !slices.Equal(k, []string{"2025/12/31.ndjson.gz", "2026/01/02.ndjson.gz", "2026/01/03.ndjson.gz"}) {
		t.Errorf("List = %v", k)
	}
	if k, _ := a.List(ctx, "2026/"); len(k) != 2 {
		t.Errorf("List(2026/) = %v", k)
	}
	if err := a.Delete(ctx, "2025/12/31.ndjson.gz"); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, "2025/12/31.ndjson.gz"); err != nil {
		t.Errorf("deleting a missing object: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "2025")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emptied year's directory stays: %v", err)
	}
	for _, bad := range []string{"../escape.ndjson.gz", "/etc/passwd", "2026/" + tempPrefix + "x", ""} {
		if err := a.Put(ctx, bad, nil); err == nil {
			t.Errorf("Put(%q) accepted a key outside the archive's objects", bad)
		}
	}
}
