package actual

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"tally/imports/movein"
)

// Bounds on an export, so that a small zip cannot unpack into a large file. An export of
// decades of a household's budget is a few megabytes zipped and tens unzipped. Variables, so
// that the tests can lower them.
var (
	MaxExportBytes   = int64(50 << 20)  // the zip as uploaded
	maxDatabaseBytes = int64(300 << 20) // db.sqlite unzipped
	maxMetadataBytes = int64(64 << 10)  // metadata.json unzipped
	// maxRatio bounds how many times its zipped size a member may unzip to. SQLite's empty
	// pages compress well, so real exports reach about 20; deflate's own limit is about 1000.
	maxRatio = int64(200)
)

// export is the two files of an Actual export that a move-in reads.
type export struct {
	db, metadata *zip.File
}

// openExport finds db.sqlite and metadata.json by name, wherever in the zip they are.
func openExport(content []byte) (*export, error) {
	if int64(len(content)) > MaxExportBytes {
		return nil, movein.Errorf("file", "", "the export is %s; Tally reads Actual exports of up to %s", size(int64(len(content))), size(MaxExportBytes))
	}
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, movein.Errorf("file", "", "the file is not a zip of an Actual export: %v", err)
	}
	var ex export
	for _, f := range zr.File {
		var slot **zip.File
		switch path.Base(f.Name) {
		case "db.sqlite":
			slot = &ex.db
		case "metadata.json":
			slot = &ex.metadata
		default:
			continue
		}
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") {
			continue
		}
		if *slot != nil {
			return nil, movein.Errorf("file", f.Name, "the zip holds two files named %s (%s and %s); an Actual export holds one",
				path.Base(f.Name), (*slot).Name, f.Name)
		}
		*slot = f
	}
	if ex.db == nil {
		return nil, movein.Errorf("file", "db.sqlite", "the zip holds no db.sqlite: it is not an Actual export")
	}
	return &ex, nil
}

// unzip copies a member to w through a limit on its size and on its ratio to its zipped size,
// whatever its header claims, and returns how much it wrote.
func unzip(f *zip.File, w io.Writer, limit int64) (int64, error) {
	limit = min(limit, maxRatio*max(int64(f.CompressedSize64), 1<<10))
	rc, err := f.Open()
	if err != nil {
		return 0, movein.Errorf("file", f.Name, "%s cannot be unzipped: %v", f.Name, err)
	}
	defer rc.Close()
	n, err := io.Copy(w, io.LimitReader(rc, limit+1))
	switch {
	case n > limit:
		return 0, movein.Errorf("file", f.Name, "%s unzips to more than %s (%d times its zipped size at most): it is refused as a zip bomb",
			f.Name, size(limit), maxRatio)
	case err != nil:
		return 0, movein.Errorf("file", f.Name, "%s cannot be unzipped: %v", f.Name, err)
	}
	return n, nil
}

// metadata is metadata.json: Actual's id and name of the budget.
type metadata struct {
	ID         string `json:"id"`
	BudgetName string `json:"budgetName"`
}

// readMetadata reads metadata.json, when the export has one.
func (ex *export) readMetadata() (metadata, error) {
	var m metadata
	if ex.metadata == nil {
		return m, nil
	}
	var buf bytes.Buffer
	if _, err := unzip(ex.metadata, &buf, maxMetadataBytes); err != nil {
		return m, err
	}
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		return m, movein.Errorf("file", ex.metadata.Name, "%s is not the JSON of an Actual export: %v", ex.metadata.Name, err)
	}
	return m, nil
}

// sqliteHeader begins every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// unzipDatabase writes db.sqlite to a new temporary file, which the caller removes. SQLite
// reads a file, not a buffer; the file is written whole before anyone opens it.
func (ex *export) unzipDatabase() (string, error) {
	tmp, err := os.CreateTemp("", "tally-actual-*.sqlite")
	if err != nil {
		return "", fmt.Errorf("a temporary file for db.sqlite: %w", err)
	}
	name := tmp.Name()
	_, err = unzip(ex.db, tmp, maxDatabaseBytes)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write db.sqlite to a temporary file: %w", cerr)
	}
	if err == nil {
		err = checkHeader(name, ex.db.Name)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// checkHeader refuses a db.sqlite that is not an SQLite database at all.
func checkHeader(name, member string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteHeader) {
		return movein.Errorf("file", member, "%s is not an SQLite database: it is not an Actual export", member)
	}
	return nil
}

// size is a number of bytes for a person.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%d MB", n>>20)
}
