package imports

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports/native"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// nativeContentTypes are the upload types a NativeImport accepts; a .ndjson or .json name
// also does.
var nativeContentTypes = map[string]bool{"application/x-ndjson": true, "application/ndjson": true,
	"application/json": true, "application/octet-stream": true, "text/plain": true, "": true}

// checkNativeUpload checks a NativeImport file, or a chunk of one, before anything is read
// from it: present, within the size limit, of an NDJSON type, and with a first line that is a
// record.
func (s *Service) checkNativeUpload(up Upload) error {
	if !up.Present || len(bytes.TrimSpace(up.Content)) == 0 {
		return apperr.New(apperr.Invalid, "raw_file_content is required: send the NDJSON as raw_file_content, or upload it as a multipart file.").
			WithSlug("missing_content").WithFields(map[string][]string{"raw_file_content": {"raw_file_content is required unless a file is uploaded"}})
	}
	if len(up.Content) > s.Limits.MaxBytes {
		slug, msg := "content_too_large", "Content is too large. Maximum size is %dMB."
		if up.FromFile {
			slug, msg = "file_too_large", "File is too large. Maximum size is %dMB."
		}
		return apperr.Errorf(apperr.Invalid, msg, s.Limits.MaxBytes/(1024*1024)).WithSlug(slug)
	}
	if up.FromFile {
		ct, _, _ := strings.Cut(strings.ToLower(up.ContentType), ";")
		ext := strings.ToLower(path.Ext(up.Filename))
		if !nativeContentTypes[strings.TrimSpace(ct)] && ext != ".ndjson" && ext != ".json" {
			return apperr.New(apperr.Invalid, "Invalid file type. Please upload a native NDJSON file (.ndjson).").WithSlug("invalid_file_type")
		}
	}
	if !native.FirstLineOK(up.Content) {
		return apperr.New(apperr.Invalid, `Invalid NDJSON content: the first line must be a JSON object with "type" and "data".`).
			WithSlug("invalid_ndjson")
	}
	return nil
}

// readNative runs the preflight of a single-file NativeImport: every check of the file, and
// references resolved against the file alone.
func readNative(content []byte) *native.File {
	f := native.Read(content)
	f.CheckRefs(nil)
	return f
}

// maxStoredFindings bounds the findings kept with an import; the preflight endpoint lists all.
const maxStoredFindings = 200

func capFindings(list []native.Problem) []Finding {
	if len(list) > maxStoredFindings {
		list = list[:maxStoredFindings]
	}
	return list
}

// createNative stores a NativeImport: the file, its counts and its preflight findings.
func (s *Service) createNative(ctx context.Context, req Request) (*Detail, error) {
	if err := s.checkNativeUpload(req.Upload); err != nil {
		return nil, err
	}
	content := req.Upload.Content
	f := readNative(content)
	im := newNativeImport(req, NativeImport)
	im.RowsCount, im.ValidRowsCount, im.ExpectedRecordCounts = f.RowsCount, f.ValidRowsCount, f.Counts
	im.Problems, im.Warnings = capFindings(f.Problems), capFindings(f.Warnings)
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewInsert().Model(im).ExcludeColumn("content").Exec(ctx); err != nil {
			return fmt.Errorf("insert import: %w", err)
		}
		_, err := tx.Pgx.Exec(ctx, "UPDATE imports SET content = $1 WHERE id = $2", content, im.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.stored(ctx, req, im.ID)
}

// newNativeImport is the pending import of native records a request makes, before its file
// is read.
func newNativeImport(req Request, typ Type) *Import {
	im := &Import{ID: uuid.Must(uuid.NewV7()), FamilyID: req.FamilyID, Type: typ, Status: StatusPending,
		ByteSize: len(req.Upload.Content), Summary: Summary{}}
	if id := req.UserID; id != uuid.Nil {
		// A pointer to a copy of the id: one into req would keep the whole of req, its file
		// among it, for as long as the import is (a move-in's export beside its records).
		im.UserID = &id
	}
	im.Filename = strPtr(defaultString(req.Upload.Filename, "import.ndjson"))
	im.ContentType = strPtr(defaultString(req.Upload.ContentType, "application/x-ndjson"))
	im.Encoding = strPtr("UTF-8")
	im.Config = defaultConfig()
	return im
}

// stored is a stored import of native records as Create answers it: published first when the
// request asks.
func (s *Service) stored(ctx context.Context, req Request, id uuid.UUID) (*Detail, error) {
	if req.Publish {
		if err := s.Publish(ctx, req.FamilyID, id); err != nil {
			return nil, &PublishError{ImportID: id, Err: err}
		}
	}
	got, err := Get(ctx, s.DB, req.FamilyID, id)
	if err != nil {
		return nil, err
	}
	return Describe(ctx, s.DB, got)
}

// checkNativePublish says why a NativeImport cannot be published, with the error the API
// answers: too many records, preflight findings, nothing to import, or more recurring series
// than the family has room for.
func (s *Service) checkNativePublish(ctx context.Context, tx db.Tx, im *Import) error {
	if im.RowsCount > s.Limits.MaxRecords {
		return apperr.Errorf(apperr.Invalid, "Import was uploaded but has too many records to publish: %d records, the limit is %d.", im.RowsCount, s.Limits.MaxRecords).
			WithSlug("max_row_count_exceeded")
	}
	if len(im.Problems) > 0 {
		e := apperr.Errorf(apperr.Invalid, "Import was uploaded but did not pass the NDJSON preflight: %s.", plural(len(im.Problems), "problem", "problems")).
			WithSlug("preflight_failed")
		msgs := make([]string, len(im.Problems))
		for i, p := range im.Problems {
			msgs[i] = p.Message
		}
		e.Fields = map[string][]string{"file": msgs}
		e.Details = im.Problems
		return e
	}
	if recordTotal(im.ExpectedRecordCounts) == 0 {
		return apperr.New(apperr.Invalid, "Import was uploaded but has no publishable records.").WithSlug("not_publishable")
	}
	return checkRecurringRoom(ctx, tx, im.FamilyID, im.ExpectedRecordCounts[recurringEntity])
}

// recurringEntity is the recurring series' key in a NativeImport's counts.
const recurringEntity = "recurring_transactions"

// checkRecurringRoom refuses a NativeImport whose n recurring series would take the family
// past models.MaxRecurringSeries, naming them. The publish asks again under the series' lock as
// it writes them, for what the family gained meanwhile.
func checkRecurringRoom(ctx context.Context, tx bun.IDB, familyID uuid.UUID, n int) error {
	if n == 0 {
		return nil
	}
	room, err := models.RecurringRoom(ctx, tx, familyID)
	if err != nil || n <= room {
		return err
	}
	return models.TooManyRecurring(recurringEntity, room, n)
}

// preflightFailedMessage is the error a NativeImport keeps when its publish is refused by the
// preflight.
func preflightFailedMessage(problems []Finding) string {
	var b strings.Builder
	b.WriteString("The NDJSON preflight failed:")
	for _, p := range problems {
		b.WriteString("\n")
		b.WriteString(p.Message)
	}
	return b.String()
}

// publishNative writes a NativeImport inside the publish transaction and records its
// readback. The file is read again, so what is written is what is stored, whatever the
// upload's findings said.
func (s *Service) publishNative(ctx context.Context, tx db.Tx, im *Import) error {
	before, err := countRecords(ctx, tx, im.ID)
	if err != nil {
		return err
	}
	w, err := newNativeWriter(ctx, tx, im, s.now())
	if err != nil {
		return err
	}
	expected := map[string]int{}
	err = s.eachNativeFile(ctx, tx, im, func(seq int, f *native.File) error {
		if len(f.Problems) > 0 {
			return &errChunk{seq, apperr.New(apperr.Invalid, preflightFailedMessage(capFindings(f.Problems))).WithSlug("preflight_failed")}
		}
		for k, n := range f.Counts {
			expected[k] += n
		}
		s.progress(ctx, im.ID, seq, max(seq, chunkCount(im)))
		if err := w.writeFile(ctx, f); err != nil {
			return &errChunk{seq, err}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := w.finish(ctx); err != nil {
		return err
	}
	if im.MoveIn != nil {
		if err := w.writeGoals(ctx, im.MoveIn.Goals); err != nil {
			return err
		}
		if im.MoveIn.Readback, err = w.moveInReadback(ctx, im.MoveIn); err != nil {
			return err
		}
	}
	after, err := countRecords(ctx, tx, im.ID)
	if err != nil {
		return err
	}
	if err := markChunks(ctx, tx, im, ChunkComplete, nil); err != nil {
		return err
	}
	rb := readback(expected, before, after, s.now().UTC())
	_, err = tx.NewUpdate().Model(im).Set("readback = ?", rb).Set("summary = ?", w.summary).
		Set("expected_record_counts = ?", expected).Set("move_in = ?", im.MoveIn).WherePK().Exec(ctx)
	return err
}

func chunkCount(im *Import) int {
	if im.ExpectedChunks != nil {
		return *im.ExpectedChunks
	}
	return 1
}

// eachNativeFile reads the import's file, or each chunk of a session (or piece of a move-in's
// records) in sequence with the source ids of the earlier ones known, and hands each to fn.
// One chunk is in memory at a time.
func (s *Service) eachNativeFile(ctx context.Context, idb db.Tx, im *Import, fn func(int, *native.File) error) error {
	if !im.Session && !im.Type.MoveIn() {
		content, err := Content(ctx, idb, im.FamilyID, im.ID)
		if err != nil {
			return err
		}
		return fn(1, readNative(content))
	}
	seqs, err := chunkSequences(ctx, idb, im.ID)
	if err != nil {
		return err
	}
	known := native.NewKnown()
	for _, seq := range seqs {
		var content []byte
		if err := idb.NewRaw("SELECT content FROM import_chunks WHERE import_id = ? AND sequence = ?", im.ID, seq).Scan(ctx, &content); err != nil {
			return err
		}
		f := native.ReadWith(content, native.Options{Chunk: seq, Known: known})
		content = nil
		f.CheckRefs(nil)
		known.Add(f, seq)
		if err := fn(seq, f); err != nil {
			return err
		}
	}
	return nil
}

// nativeDetail fills in what Describe derives for a NativeImport: it has no rows or mappings,
// only the file's records and the preflight's findings.
func nativeDetail(d *Detail) {
	im := d.Import
	st := &d.StatusDetail // Uploaded and Configured are as Describe set them
	st.Cleaned = st.Configured && len(im.Problems) == 0
	d.Problems = nil
	switch {
	case !st.Uploaded:
		d.Problems = append(d.Problems, "No file was uploaded.")
	case !st.Configured:
		d.Problems = append(d.Problems, "The file has no records.")
	case !st.Cleaned:
		d.Problems = append(d.Problems, fmt.Sprintf("The preflight found %s in the file; the first: %s",
			plural(len(im.Problems), "problem", "problems"), im.Problems[0].Message))
	}
	if st.Cleaned && recordTotal(im.ExpectedRecordCounts) == 0 {
		d.Problems = append(d.Problems, "The file has no record of a type Tally imports.")
	}
	st.Publishable = len(d.Problems) == 0
}

// recordTotal is the number of records over every entity.
func recordTotal(counts map[string]int) int {
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}

// NativePreflight is the result of checking a NativeImport file without storing it.
type NativePreflight struct {
	Filename, ContentType string
	ByteSize              int
	File                  *native.File
}

// PreflightNative checks a NativeImport file as its publish would.
func (s *Service) PreflightNative(ctx context.Context, req Request) (*NativePreflight, error) {
	done, err := s.Reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	up := req.Upload
	if err := s.checkNativeUpload(up); err != nil {
		// A bad first line is reported as a finding, with every other one.
		if e := apperr.As(err); e == nil || e.Slug != "invalid_ndjson" {
			return nil, err
		}
	}
	f := readNative(up.Content)
	if f.RowsCount > s.Limits.MaxRecords {
		f.Warnings = append(f.Warnings, native.Problem{Code: "max_row_count_exceeded",
			Message: fmt.Sprintf("The file has %d records; one import may publish at most %d.", f.RowsCount, s.Limits.MaxRecords)})
	}
	return &NativePreflight{Filename: defaultString(up.Filename, "import.ndjson"),
		ContentType: defaultString(up.ContentType, "application/x-ndjson"), ByteSize: len(up.Content), File: f}, nil
}

// AllCounts copies per-entity counts, with every entity present.
func AllCounts(c map[string]int) map[string]int {
	out := maps.Clone(c)
	if out == nil {
		out = map[string]int{}
	}
	for _, k := range native.EntityKeys {
		out[k] += 0
	}
	return out
}
