package imports

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"time"

	"github.com/google/uuid"

	"tally/imports/actual"
	"tally/imports/movein"
	"tally/imports/native"
	"tally/imports/ynab"
	"tally/internal/apperr"
	"tally/internal/db"
)

// MoveIn is what a move-in's dry run found, kept with the import: the source, its counts per
// kind (MoveInKinds) and every notice (a renaming, a thing not kept or kept in another form).
type MoveIn struct {
	Source  string         `json:"source"`
	Name    string         `json:"budget_name"`
	Counts  map[string]int `json:"counts"`
	Notices []MoveInNotice `json:"notices"`
	// Goals are the categories' goals it brings, written after its records.
	Goals []MoveInGoal `json:"goals,omitempty"`
	// Expected is what the source holds, read back after publishing into Readback.
	Expected *MoveInExpected `json:"expected,omitempty"`
	Readback *MoveInReadback `json:"readback,omitempty"`
}

// MoveInNotice is one notice of a move-in, as the API and the page show it.
type MoveInNotice struct {
	What    string `json:"what"` // renamed, not_kept or kept_as
	Entity  string `json:"entity"`
	ID      string `json:"source_id,omitempty"`
	Name    string `json:"name,omitempty"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// sniffActual reports whether content is a zip holding an Actual budget's db.sqlite.
func sniffActual(content []byte) bool {
	if !bytes.HasPrefix(content, []byte("PK\x03\x04")) {
		return false
	}
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		if path.Base(f.Name) == "db.sqlite" {
			return true
		}
	}
	return false
}

// ynabHead is how a YNAB budget's JSON begins: its API's wrapper, or a budget's own fields.
var ynabHead = regexp.MustCompile(`"(budget|plan)"\s*:\s*\{|"first_month"\s*:|"category_groups"\s*:`)

// sniffYNAB reports whether content is the JSON of a YNAB budget, from its first bytes.
func sniffYNAB(content []byte) bool {
	head := bytes.TrimLeft(bytes.TrimPrefix(content, utf8BOM), " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	return ynabHead.Match(head[:min(len(head), 4096)])
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// UploadBytes is the largest file any import type accepts: a move-in's, at least.
func (s *Service) UploadBytes() int { return max(s.Limits.MaxBytes, s.moveInBytes()) }

// moveInBytes is the largest move-in file accepted.
func (s *Service) moveInBytes() int {
	return cmp.Or(s.Limits.MaxMoveInBytes, int(actual.MaxExportBytes))
}

// readMoveIn reads a move-in's file into a budget; a file the reader refuses is a 422 that
// names the entity at fault and why.
func (s *Service) readMoveIn(ctx context.Context, typ Type, up Upload) (*movein.Budget, error) {
	if !up.Present || len(bytes.TrimSpace(up.Content)) == 0 {
		return nil, apperr.New(apperr.Invalid, "file is required: upload the export as a multipart file.").
			WithSlug("missing_content").WithFields(map[string][]string{"file": {"file is required"}})
	}
	if limit := s.moveInBytes(); len(up.Content) > limit {
		return nil, apperr.Errorf(apperr.Invalid, "File is too large. Maximum size is %dMB.", limit/(1024*1024)).WithSlug("file_too_large")
	}
	var b *movein.Budget
	var err error
	if typ == ActualImport {
		b, err = actual.Read(ctx, up.Content)
	} else {
		b, err = ynab.Read(ctxReader{ctx, bytes.NewReader(up.Content)})
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	var bad *movein.Error
	if errors.As(err, &bad) {
		field := bad.Entity
		msg := bad.Msg
		if bad.ID != "" {
			msg = bad.Entity + " " + bad.ID + ": " + msg
		}
		return nil, apperr.Errorf(apperr.Invalid, "The file cannot be moved in: %s", msg).WithSlug("invalid_export").
			WithFields(map[string][]string{field: {msg}})
	}
	if err != nil {
		return nil, err
	}
	if err := b.Check(); err != nil { // a reader's budget passes it: a failure is a reader's bug
		return nil, err
	}
	return b, nil
}

// ctxReader stops reading when its context ends, so that a reader that takes no context is
// bounded in time too.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// createMoveIn stores a move-in: its budget as native records, stored a piece at a time as
// the import's chunks as the converter writes them, with its counts and notices. Nothing is
// written to the family until it is published.
func (s *Service) createMoveIn(ctx context.Context, req Request) (*Detail, error) {
	typ := Type(req.Type)
	readCtx, stop := s.readingMoveIn(ctx)
	defer stop()
	im := newNativeImport(req, typ)
	b, err := s.readMoveIn(readCtx, typ, takeUpload(&req))
	if err != nil {
		return nil, s.moveInTooSlow(readCtx, err)
	}
	err = s.DB.InTx(readCtx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewInsert().Model(im).ExcludeColumn("content").Exec(ctx); err != nil {
			return fmt.Errorf("insert import: %w", err)
		}
		st := &moveInStore{tx: tx, id: im.ID, known: native.NewKnown(), all: &native.File{Counts: map[string]int{}}}
		m, err := s.convertForFamily(ctx, req.FamilyID, b, func(seq int, piece []byte) error { return st.store(ctx, seq, piece) })
		if err != nil {
			return err
		}
		f := st.all
		im.RowsCount, im.ValidRowsCount, im.ExpectedRecordCounts = f.RowsCount, f.ValidRowsCount, f.Counts
		im.Problems, im.Warnings, im.MoveIn = capFindings(f.Problems), capFindings(f.Warnings), m.dryRun()
		_, err = tx.NewUpdate().Model(im).Column("rows_count", "valid_rows_count", "expected_record_counts", "problems", "warnings", "move_in").
			WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		return nil, s.moveInTooSlow(readCtx, err)
	}
	return s.stored(ctx, req, im.ID)
}

// takeUpload hands a move-in's upload to its reader and keeps none of its file in req, so that
// the export can be let go as soon as the reader has what it needs of it (an Actual export's
// database is unzipped to a file at the start), not held beside the budget it is read into.
func takeUpload(req *Request) Upload {
	up := req.Upload
	req.Upload.Content = nil
	return up
}

// convertForFamily converts a budget (convertMoveIn) with the notices that depend on what
// the family holds already: an account of a name the family has that the budget's does not
// carry on (read first, as the conversion lets the budget's transactions go), and a goal on a
// category the family has a goal for, which stays the family's.
func (s *Service) convertForFamily(ctx context.Context, familyID uuid.UUID, b *movein.Budget, store func(seq int, piece []byte) error) (*moveIn, error) {
	beside, err := s.accountsBeside(ctx, familyID, b)
	if err != nil {
		return nil, err
	}
	m, err := convertMoveIn(b, store)
	if err != nil {
		return nil, err
	}
	m.notices = append(m.notices, beside...)
	return m, s.noteGoalsHeld(ctx, familyID, m)
}

// dryRun is what the import keeps of a move-in's conversion: its counts and notices, and what
// the source holds, for the read-back.
func (m *moveIn) dryRun() *MoveIn {
	mi := &MoveIn{Source: m.b.Source, Name: m.b.Name, Counts: m.counts, Notices: make([]MoveInNotice, len(m.notices)), Expected: m.expect(),
		Goals: m.goalList}
	for i, n := range m.notices {
		mi.Notices[i] = MoveInNotice{What: n.What, Entity: n.Entity, ID: n.ID, Name: n.Name, Reason: n.Reason, Message: n.String()}
	}
	return mi
}

// preflightMoveIn checks a move-in's file as create would: a file the reader refuses is an
// error of the preflight; each notice (a renaming, a thing not kept) is a warning.
func (s *Service) preflightMoveIn(ctx context.Context, req Request, res *PreflightResult) (*PreflightResult, error) {
	res.Filename, res.ContentType, res.ByteSize = req.Upload.Filename, req.Upload.ContentType, len(req.Upload.Content)
	ctx, stop := s.readingMoveIn(ctx)
	defer stop()
	b, err := s.readMoveIn(ctx, res.Type, takeUpload(&req))
	var m *moveIn
	if err == nil {
		// The records are made for their counts and notices only, and let go a piece at a time.
		m, err = s.convertForFamily(ctx, req.FamilyID, b, func(int, []byte) error { return ctx.Err() })
	}
	if err = s.moveInTooSlow(ctx, err); err != nil {
		if e := apperr.As(err); e != nil && e.Code == apperr.Invalid {
			res.Errors = append(res.Errors, Problem{Code: e.Slug, Message: e.Message})
			return res, nil
		}
		return nil, err
	}
	for _, n := range m.notices {
		res.Warnings = append(res.Warnings, n.String())
	}
	for _, k := range MoveInKinds {
		res.RowsCount += m.counts[k]
	}
	res.ValidRowsCount, res.Valid = res.RowsCount, true
	return res, nil
}

// DefaultMoveInReadTime is how long reading a move-in's export may take when Limits sets no
// other time: the reading, its conversion to records and their storing. It ends well before
// a request's own timeout (REQUEST_TIMEOUT, 30 s by default), so that an export too large to
// read in time is refused saying so, not with the timeout's 503. Reading and converting a
// 50 MB Actual export (280,000 transactions) took about 10 s on a quiet machine of two cores.
const DefaultMoveInReadTime = 20 * time.Second

// errMoveInTooSlow is the cause of a move-in's reading that ran out of its time.
var errMoveInTooSlow = errors.New("the move-in's reading ran out of time")

// readingMoveIn bounds the reading of a move-in's export by its own time limit.
func (s *Service) readingMoveIn(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, s.moveInReadTime(), errMoveInTooSlow)
}

func (s *Service) moveInReadTime() time.Duration {
	return cmp.Or(s.Limits.MoveInReadTime, DefaultMoveInReadTime)
}

// moveInTooSlow is err, or when the reading ran out of its own time, the 422 that says so
// and names the limit. A request that ran out of its own time first keeps that error.
func (s *Service) moveInTooSlow(ctx context.Context, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errMoveInTooSlow) {
		return err
	}
	msg := fmt.Sprintf("the export could not be read within %s, the time a move-in may take to read", s.moveInReadTime())
	return apperr.Errorf(apperr.Invalid, "The file cannot be moved in: %s. Export a budget of fewer years, or ask the administrator to allow more time.", msg).
		WithSlug("read_time_exceeded").WithFields(map[string][]string{"file": {msg}})
}

// moveInPieceBytes is the most of a move-in's records held at once, and the size of the
// pieces they are stored and read in, as a session's chunks are. A whole budget's records are
// tens of MB for a large one (119 MB for an Actual export of 280,000 transactions): made in
// one buffer and stored as one value, the database driver copied them twice more. The native
// reader holds a piece's records as maps, about six times the piece, so a piece is smaller
// than a session's chunk.
const moveInPieceBytes = 4 << 20

// pieceWriter gathers a move-in's records into pieces of whole lines of at most
// moveInPieceBytes (a longer line is a piece of its own) and hands each, numbered from 1, to
// store as it fills. The piece's bytes are reused once store returns. After store's first
// error, the records are let go.
type pieceWriter struct {
	buf   bytes.Buffer
	store func(seq int, piece []byte) error
	seq   int
	err   error
}

// write adds one record, a line without its newline.
func (w *pieceWriter) write(line []byte) {
	if w.buf.Len() > 0 && w.buf.Len()+len(line)+1 > moveInPieceBytes {
		w.flush()
	}
	if w.err != nil {
		return
	}
	if w.buf.Cap() == 0 {
		w.buf.Grow(moveInPieceBytes)
	}
	w.buf.Write(line)
	w.buf.WriteByte('\n')
}

func (w *pieceWriter) flush() {
	if w.err == nil && w.buf.Len() > 0 {
		w.seq++
		w.err = w.store(w.seq, w.buf.Bytes())
	}
	w.buf.Reset()
}

// convertMoveIn turns a budget into native records (moveInRecords), handing them to store a
// piece at a time, and returns the conversion or store's first error.
func convertMoveIn(b *movein.Budget, store func(seq int, piece []byte) error) (*moveIn, error) {
	out := &pieceWriter{store: store}
	m := moveInRecords(b, out)
	out.flush()
	return m, out.err
}

// moveInStore stores a move-in's records as the import's chunks, a piece at a time, each read
// first as a session's chunk is (with the source ids of the pieces before it known), and
// sums their counts and findings as readNative would the whole.
type moveInStore struct {
	tx    db.Tx
	id    uuid.UUID
	known *native.Known
	all   *native.File
}

func (st *moveInStore) store(ctx context.Context, seq int, piece []byte) error {
	f := native.ReadWith(piece, native.Options{Chunk: seq, Known: st.known})
	f.CheckRefs(nil)
	st.known.Add(f, seq)
	all := st.all
	all.RowsCount += f.RowsCount
	all.ValidRowsCount += f.ValidRowsCount
	for k, n := range f.Counts {
		all.Counts[k] += n
	}
	all.Problems = append(all.Problems, f.Problems...)
	all.Warnings = append(all.Warnings, f.Warnings...)
	// One statement with bind parameters, as a session's chunk is stored.
	sum := sha256.Sum256(piece)
	counts, _ := json.Marshal(f.Counts)
	_, err := st.tx.Pgx.Exec(ctx, `INSERT INTO import_chunks (import_id, sequence, sha256, content, byte_size, rows_count, valid_rows_count, record_counts)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, pgUUID(st.id), seq, sum[:], piece, len(piece), f.RowsCount, f.ValidRowsCount, counts)
	if err != nil {
		return fmt.Errorf("store the move-in's records, piece %d: %w", seq, err)
	}
	return nil
}
