package actual

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"tally/imports/movein"
)

// FuzzRead feeds exports to Read: it must not panic, must refuse only with a *movein.Error,
// and what it reads must hold together (movein.Budget.Check).
func FuzzRead(f *testing.F) {
	f.Add(household(f))
	f.Add(zipOf(f, "folder/", map[string][]byte{"db.sqlite": databaseOf(f), "metadata.json": []byte(`{"budgetName":"x"}`)}))
	f.Fuzz(func(t *testing.T, content []byte) { checkRead(t, content) })
}

// FuzzDatabase feeds database files to Read, zipped as an export: the fuzzer's changes then
// reach SQLite and the reader's tables rather than the zip's checksums.
func FuzzDatabase(f *testing.F) {
	f.Add(databaseOf(f))
	f.Fuzz(func(t *testing.T, db []byte) {
		checkRead(t, zipOf(t, "", map[string][]byte{"db.sqlite": db}))
	})
}

func checkRead(t *testing.T, content []byte) {
	b, err := Read(context.Background(), content)
	if err != nil {
		var me *movein.Error
		if !errors.As(err, &me) {
			t.Fatalf("Read failed with %T %v, not a *movein.Error", err, err)
		}
		return
	}
	if err := b.Check(); err != nil {
		t.Fatalf("the budget read does not hold together: %v", err)
	}
}

// databaseOf is the household's db.sqlite.
func databaseOf(t testing.TB) []byte {
	zr, err := zip.NewReader(bytes.NewReader(household(t)), int64(len(household(t))))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "db.sqlite" {
			rc, _ := f.Open()
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			return b
		}
	}
	t.Fatal("no db.sqlite in the household")
	return nil
}
