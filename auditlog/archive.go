package auditlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotFound is what Archive.Get returns for a key that holds no object.
var ErrNotFound = errors.New("archive object not found")

// Archive stores the archived days: objects named by slash-separated keys such as
// "2026/11/22.ndjson.gz". Another backend (S3, ...) implements the same four methods and is
// chosen by Open from the URL's scheme.
type Archive interface {
	// Put stores data under key, replacing any object there, atomically: a reader sees the
	// old object or the new one, never a part.
	Put(ctx context.Context, key string, data []byte) error
	// Get returns the object under key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// List returns the keys that start with prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the object under key; a missing object is not an error.
	Delete(ctx context.Context, key string) error
}

// Open returns the archive at rawURL (AUDIT_ARCHIVE_URL). Only file:///absolute/dir is
// supported; nothing is created until the first Put.
func Open(rawURL string) (Archive, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %v", err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, errors.New("a file URL names a local directory: file:///path/to/dir")
		}
		if u.Path == "" || !filepath.IsAbs(filepath.FromSlash(u.Path)) {
			return nil, errors.New("a file URL needs an absolute path: file:///path/to/dir")
		}
		return &DirArchive{Root: filepath.Clean(filepath.FromSlash(u.Path))}, nil
	case "":
		return nil, errors.New("the URL has no scheme: use file:///path/to/dir")
	}
	return nil, fmt.Errorf("scheme %q is not supported: use file:///path/to/dir", u.Scheme)
}

// DirArchive is an Archive in a local directory: a key is a path under Root. Puts write a
// temporary file beside the object, sync it and rename it into place.
type DirArchive struct {
	Root string
}

var _ Archive = (*DirArchive)(nil)

// tempPrefix marks files being written; List never returns them.
const tempPrefix = ".tmp-"

func (a *DirArchive) file(key string) (string, error) {
	if !fs.ValidPath(key) || key == "." || strings.HasPrefix(path.Base(key), tempPrefix) {
		return "", fmt.Errorf("invalid archive key %q", key)
	}
	return filepath.Join(a.Root, filepath.FromSlash(key)), nil
}

// Put writes data to a temporary file in the object's directory, syncs it, and renames it
// over the object, so that a crash leaves the old object or the new one.
func (a *DirArchive) Put(_ context.Context, key string, data []byte) error {
	name, err := a.file(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("archive put %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("archive put %s: %w", key, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("archive put %s: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("archive put %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("archive put %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("archive put %s: %w", key, err)
	}
	// The rename is durable only once the directory is synced.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Get reads the object under key.
func (a *DirArchive) Get(_ context.Context, key string) ([]byte, error) {
	name, err := a.file(key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("archive get %s: %w", key, err)
	}
	return b, nil
}

// List walks Root for the objects whose key starts with prefix. A missing Root is an empty
// archive.
func (a *DirArchive) List(_ context.Context, prefix string) ([]string, error) {
	var keys []string
	err := filepath.WalkDir(a.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == a.Root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if e.IsDir() || !e.Type().IsRegular() || strings.HasPrefix(e.Name(), tempPrefix) {
			return nil
		}
		rel, err := filepath.Rel(a.Root, p)
		if err != nil {
			return err
		}
		if key := filepath.ToSlash(rel); strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive list: %w", err)
	}
	slices.Sort(keys)
	return keys, nil
}

// Delete removes the object under key, then its directories while they are empty.
func (a *DirArchive) Delete(_ context.Context, key string) error {
	name, err := a.file(key)
	if err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("archive delete %s: %w", key, err)
	}
	for dir := filepath.Dir(name); dir != a.Root && strings.HasPrefix(dir, a.Root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty (or already gone): stop climbing
			break
		}
	}
	return nil
}
