package imports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports/native"
	"tally/internal/apperr"
	"tally/internal/db"
)

// An import session is a NativeImport whose file arrives as numbered chunks, for exports
// larger than one request may carry. It is an import like any other (listed, published,
// verified and reverted the same way); its chunks are published in sequence in one
// transaction, later chunks referring to records of earlier ones by their source ids.

// Chunk is one part of an import session's file.
type Chunk struct {
	bun.BaseModel `bun:"table:import_chunks,alias:ch"`

	ImportID       uuid.UUID      `bun:"import_id,pk,type:uuid"`
	Sequence       int            `bun:"sequence,pk"`
	ClientChunkID  *string        `bun:"client_chunk_id"`
	SHA256         []byte         `bun:"sha256"`
	Content        []byte         `bun:"content"`
	ByteSize       int            `bun:"byte_size"`
	RowsCount      int            `bun:"rows_count"`
	ValidRowsCount int            `bun:"valid_rows_count"`
	RecordCounts   map[string]int `bun:"record_counts,type:jsonb"`
	Status         string         `bun:"status"`
	Error          *ChunkError    `bun:"error,type:jsonb"`
	CreatedAt      time.Time      `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time      `bun:"updated_at,nullzero,default:now()"`
}

// ChunkError says why a chunk stopped its session's publish.
type ChunkError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Chunk statuses.
const (
	ChunkPending  = "pending"
	ChunkComplete = "complete"
	ChunkFailed   = "failed"
)

// SessionRequest asks for an import session.
type SessionRequest struct {
	FamilyID, UserID uuid.UUID
	Type             string
	// ClientSessionID makes the request idempotent: the same id returns the same session.
	ClientSessionID *string
	ExpectedChunks  *int
}

// SessionNotFound answers for a session that does not exist or is another family's.
func SessionNotFound() error {
	return apperr.New(apperr.NotFound, "Import session not found").WithSlug("record_not_found")
}

// GetSession returns the family's import session with id; another family's session, or an
// import that is not a session, is not found.
func GetSession(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) (*Import, error) {
	im, err := Get(ctx, idb, familyID, id)
	switch {
	case apperr.Is(err, apperr.NotFound) || (err == nil && !im.Session):
		return nil, SessionNotFound()
	case err != nil:
		return nil, err
	}
	return im, nil
}

// PublishSession queues the family's session for publishing; one already publishing or
// published is left as it is. A refusal other than a conflict is a PublishError, with the
// session's id.
func (s *Service) PublishSession(ctx context.Context, familyID, id uuid.UUID) error {
	im, err := GetSession(ctx, s.DB, familyID, id)
	if err != nil {
		return err
	}
	if im.Status == StatusImporting || im.Status == StatusComplete {
		return nil
	}
	if err := s.Publish(ctx, familyID, id); err != nil {
		if apperr.Is(err, apperr.Conflict) {
			return err
		}
		return &PublishError{ImportID: id, Err: err}
	}
	return nil
}

func sessionConflict(msg string) error {
	return apperr.New(apperr.Conflict, msg).WithSlug("import_session_conflict")
}

// CreateSession starts an import session, or returns the family's session with the same
// client_session_id.
func (s *Service) CreateSession(ctx context.Context, req SessionRequest) (*Import, error) {
	var v apperr.Validation
	if req.Type != "" && req.Type != string(NativeImport) {
		v.Add("type", "An import session's type must be NativeImport")
	}
	if req.ExpectedChunks != nil && *req.ExpectedChunks < 1 {
		v.Add("expected_chunks", "expected_chunks must be a whole number greater than 0")
	}
	var client *string
	if req.ClientSessionID != nil {
		c := strings.TrimSpace(*req.ClientSessionID)
		switch {
		case len(c) > 255:
			v.Add("client_session_id", "client_session_id must be at most 255 characters")
		case c != "":
			client = &c
		}
	}
	if err := v.Err(); err != nil {
		e := apperr.As(err)
		e.Message, e.Slug = "Import session could not be created", "validation_failed"
		return nil, e
	}
	var out *Import
	create := func(ctx context.Context, tx db.Tx) error {
		if client != nil {
			existing := new(Import)
			err := tx.NewSelect().Model(existing).ExcludeColumn("content").
				Where("family_id = ? AND client_session_id = ?", req.FamilyID, *client).For("NO KEY UPDATE").Scan(ctx)
			switch {
			case err == nil:
				out = existing
				if req.ExpectedChunks == nil || (existing.ExpectedChunks != nil && *existing.ExpectedChunks == *req.ExpectedChunks) {
					return nil
				}
				if existing.ExpectedChunks != nil {
					return sessionConflict(fmt.Sprintf("client_session_id %q already names a session of %d chunks, not %d",
						*client, *existing.ExpectedChunks, *req.ExpectedChunks))
				}
				var have int
				if err := tx.NewRaw("SELECT count(*) FROM import_chunks WHERE import_id = ?", existing.ID).Scan(ctx, &have); err != nil {
					return err
				}
				if have > *req.ExpectedChunks {
					return sessionConflict(fmt.Sprintf("client_session_id %q already names a session with %s, more than expected_chunks %d",
						*client, plural(have, "chunk", "chunks"), *req.ExpectedChunks))
				}
				existing.ExpectedChunks = req.ExpectedChunks
				_, err := tx.NewUpdate().Model(existing).Column("expected_chunks").Set("updated_at = now()").WherePK().Exec(ctx)
				return err
			case !db.IsNoRows(err):
				return err
			}
		}
		out = &Import{ID: uuid.Must(uuid.NewV7()), FamilyID: req.FamilyID, Type: NativeImport, Status: StatusPending,
			Session: true, ClientSessionID: client, ExpectedChunks: req.ExpectedChunks,
			ExpectedRecordCounts: AllCounts(nil), Summary: Summary{}}
		if req.UserID != uuid.Nil {
			out.UserID = &req.UserID
		}
		out.Filename, out.ContentType, out.Encoding = strPtr("session.ndjson"), strPtr("application/x-ndjson"), strPtr("UTF-8")
		out.Config = defaultConfig()
		_, err := tx.NewInsert().Model(out).ExcludeColumn("content").Exec(ctx)
		return err
	}
	err := s.DB.InTx(ctx, create)
	if c, ok := apperr.UniqueViolation(err); ok && c == "imports_client_session_key" {
		// A concurrent request with the same client_session_id made the session: it is this one.
		err = s.DB.InTx(ctx, create)
	}
	if err != nil {
		return nil, err
	}
	return Get(ctx, s.DB, req.FamilyID, out.ID)
}

// ChunkRequest uploads one chunk of a session.
type ChunkRequest struct {
	FamilyID, ImportID uuid.UUID
	Sequence           int
	ClientChunkID      *string
	// SHA256 is the hex digest the client computed; when sent, the content must match it.
	SHA256 *string
	Upload Upload
}

// AddChunk stores a chunk of the family's session. Chunks arrive in sequence: each is the
// next one, or a retry of one already stored, which is accepted again when its content is the
// same. It returns whether the chunk was new.
func (s *Service) AddChunk(ctx context.Context, req ChunkRequest) (bool, error) {
	// Whose session it is comes first: another family's gets the answer of a missing one,
	// whatever the request holds.
	if _, err := GetSession(ctx, s.DB, req.FamilyID, req.ImportID); err != nil {
		return false, err
	}
	if req.Sequence < 1 {
		return false, apperr.New(apperr.Invalid, "sequence must be a whole number greater than 0").
			WithSlug("validation_failed").WithFields(map[string][]string{"sequence": {"sequence must be a whole number greater than 0"}})
	}
	if err := s.checkNativeUpload(req.Upload); err != nil {
		return false, err
	}
	sum := sha256.Sum256(req.Upload.Content)
	if req.SHA256 != nil {
		sent := strings.ToLower(strings.TrimSpace(*req.SHA256))
		if sent != hex.EncodeToString(sum[:]) {
			return false, apperr.Errorf(apperr.Invalid, "Chunk %d does not match its checksum: sha256 %q was sent, but the content received hashes to %s. Send the chunk again.",
				req.Sequence, sent, hex.EncodeToString(sum[:])).WithSlug("checksum_mismatch").
				WithFields(map[string][]string{"sha256": {"sha256 does not match the content"}})
		}
	}
	var client *string
	if req.ClientChunkID != nil && strings.TrimSpace(*req.ClientChunkID) != "" {
		c := strings.TrimSpace(*req.ClientChunkID)
		if len(c) > 255 {
			return false, apperr.New(apperr.Invalid, "client_chunk_id must be at most 255 characters").WithSlug("validation_failed").
				WithFields(map[string][]string{"client_chunk_id": {"client_chunk_id must be at most 255 characters"}})
		}
		client = &c
	}
	// Read before the session is locked: a chunk is up to 10 MB.
	done, err := s.Reading(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	f := native.ReadWith(req.Upload.Content, native.Options{Chunk: req.Sequence})
	created := false
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, req.ImportID)
		if err != nil {
			return err
		}
		if im.FamilyID != req.FamilyID || !im.Session {
			return SessionNotFound()
		}
		if im.Status != StatusPending && im.Status != StatusFailed {
			return apperr.Errorf(apperr.Conflict, "The session is %s: chunks cannot be added after publishing starts.", im.Status).
				WithSlug("import_session_conflict")
		}
		if im.ExpectedChunks != nil && req.Sequence > *im.ExpectedChunks {
			return apperr.Errorf(apperr.Invalid, "sequence %d exceeds expected_chunks %d", req.Sequence, *im.ExpectedChunks).
				WithSlug("validation_failed").WithFields(map[string][]string{"sequence": {fmt.Sprintf("sequence %d exceeds expected_chunks %d", req.Sequence, *im.ExpectedChunks)}})
		}
		var have []Chunk
		if err := tx.NewSelect().Model(&have).Column("sequence", "client_chunk_id", "sha256").
			Where("import_id = ?", im.ID).Order("sequence").Scan(ctx); err != nil {
			return err
		}
		for _, c := range have {
			sameSeq := c.Sequence == req.Sequence
			sameClient := client != nil && c.ClientChunkID != nil && *c.ClientChunkID == *client
			switch {
			case sameSeq && !bytes.Equal(c.SHA256, sum[:]):
				return sessionConflict(fmt.Sprintf("chunk %d already exists with different content", req.Sequence))
			case sameSeq && client != nil && c.ClientChunkID != nil && !sameClient:
				return sessionConflict(fmt.Sprintf("chunk %d already exists with client_chunk_id %q", req.Sequence, *c.ClientChunkID))
			case !sameSeq && sameClient:
				return sessionConflict(fmt.Sprintf("client_chunk_id %q already names chunk %d", *client, c.Sequence))
			case sameSeq:
				return nil // a retry of a stored chunk
			}
		}
		if next := len(have) + 1; req.Sequence != next {
			return apperr.Errorf(apperr.Invalid, "Chunk %d is out of order: the session has %s, so the next is chunk %d.",
				req.Sequence, plural(len(have), "chunk", "chunks"), next).WithSlug("chunk_out_of_order").
				WithFields(map[string][]string{"sequence": {fmt.Sprintf("sequence must be %d, the next chunk", next)}})
		}
		if im.RowsCount+f.RowsCount > s.Limits.MaxRecords {
			return apperr.Errorf(apperr.Invalid, "Chunk %d would bring the session to %d records; one import may publish at most %d.",
				req.Sequence, im.RowsCount+f.RowsCount, s.Limits.MaxRecords).WithSlug("max_row_count_exceeded")
		}
		// One statement with bind parameters: bun would inline the content into the SQL text.
		counts, _ := json.Marshal(f.Counts)
		if _, err := tx.Pgx.Exec(ctx, `INSERT INTO import_chunks
				(import_id, sequence, client_chunk_id, sha256, content, byte_size, rows_count, valid_rows_count, record_counts)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			pgUUID(im.ID), req.Sequence, client, sum[:], req.Upload.Content, len(req.Upload.Content), f.RowsCount, f.ValidRowsCount, counts); err != nil {
			return fmt.Errorf("store chunk: %w", err)
		}
		created = true
		return s.sumChunks(ctx, tx, im.ID)
	})
	return created, err
}

// sumChunks sets the session's size and counts from its chunks'. The findings are made at
// publish, when every chunk is known.
func (s *Service) sumChunks(ctx context.Context, tx db.Tx, id uuid.UUID) error {
	var chunks []Chunk
	if err := tx.NewSelect().Model(&chunks).Column("byte_size", "rows_count", "valid_rows_count", "record_counts").
		Where("import_id = ?", id).Scan(ctx); err != nil {
		return err
	}
	counts := AllCounts(nil)
	size, rows, valid := 0, 0, 0
	for _, c := range chunks {
		size, rows, valid = size+c.ByteSize, rows+c.RowsCount, valid+c.ValidRowsCount
		for k, n := range c.RecordCounts {
			counts[k] += n
		}
	}
	_, err := tx.NewUpdate().Model((*Import)(nil)).Where("id = ?", id).
		Set("byte_size = ?", size).Set("rows_count = ?", rows).Set("valid_rows_count = ?", valid).
		Set("expected_record_counts = ?", counts).Set("problems = NULL").Set("warnings = NULL").Set("updated_at = now()").Exec(ctx)
	return err
}

// Chunks returns a session's chunks in sequence, without their content.
func Chunks(ctx context.Context, idb bun.IDB, importID uuid.UUID) ([]Chunk, error) {
	var out []Chunk
	err := idb.NewSelect().Model(&out).ExcludeColumn("content").Where("import_id = ?", importID).Order("sequence").Scan(ctx)
	return out, err
}

// chunkSequences returns the sequence numbers of a session's chunks, in order.
func chunkSequences(ctx context.Context, idb bun.IDB, importID uuid.UUID) ([]int, error) {
	var seqs []int
	err := idb.NewRaw("SELECT sequence FROM import_chunks WHERE import_id = ? ORDER BY sequence", importID).Scan(ctx, &seqs)
	return seqs, err
}

// checkSession runs the session's preflight over every chunk in sequence, each with the
// source ids of the ones before it, and records the findings on the session. It refuses a
// session whose chunks are not all there.
func (s *Service) checkSession(ctx context.Context, tx db.Tx, im *Import) error {
	seqs, err := chunkSequences(ctx, tx, im.ID)
	if err != nil {
		return err
	}
	if len(seqs) == 0 {
		return sessionConflict("The import session has no chunks: upload them before publishing.")
	}
	if im.ExpectedChunks != nil && len(seqs) != *im.ExpectedChunks {
		var missing []string
		for n := len(seqs) + 1; n <= *im.ExpectedChunks; n++ {
			missing = append(missing, fmt.Sprint(n))
		}
		if len(missing) == 0 {
			return sessionConflict(fmt.Sprintf("The import session expects %s but has %d.", plural(*im.ExpectedChunks, "chunk", "chunks"), len(seqs)))
		}
		return sessionConflict(fmt.Sprintf("The import session expects %s but has %d: missing %s %s.",
			plural(*im.ExpectedChunks, "chunk", "chunks"), len(seqs), map[bool]string{true: "chunk", false: "chunks"}[len(missing) == 1], strings.Join(missing, ", ")))
	}
	var problems, warnings []Finding
	err = s.eachNativeFile(ctx, tx, im, func(_ int, f *native.File) error {
		problems = append(problems, f.Problems...)
		warnings = append(warnings, f.Warnings...)
		return nil
	})
	if err != nil {
		return err
	}
	im.Problems, im.Warnings = capFindings(problems), capFindings(warnings)
	_, err = tx.NewUpdate().Model(im).Column("problems", "warnings").WherePK().Exec(ctx)
	return err
}

// errChunk marks an error with the chunk it happened in, so the chunk can say so.
type errChunk struct {
	seq int
	err error
}

func (e *errChunk) Error() string { return e.err.Error() }
func (e *errChunk) Unwrap() error { return e.err }

// markChunks records the outcome of a session's publish (or revert) on its chunks.
func markChunks(ctx context.Context, tx db.Tx, im *Import, status string, cause error) error {
	if !im.Session {
		return nil
	}
	// A failed publish rolled every chunk back: only the one that failed says so.
	all := status
	if status == ChunkFailed {
		all = ChunkPending
	}
	if _, err := tx.NewRaw("UPDATE import_chunks SET status = ?, error = NULL, updated_at = now() WHERE import_id = ?",
		all, im.ID).Exec(ctx); err != nil {
		return err
	}
	var ec *errChunk
	if status != ChunkFailed || !errors.As(cause, &ec) {
		return nil
	}
	code, msg := "import_failed", failureMessage("publish", cause)
	if e := apperr.As(cause); e != nil && e.Slug != "" {
		code = e.Slug
	}
	_, err := tx.NewRaw("UPDATE import_chunks SET status = ?, error = ?, updated_at = now() WHERE import_id = ? AND sequence = ?",
		ChunkFailed, &ChunkError{Code: code, Message: msg}, im.ID, ec.seq).Exec(ctx)
	return err
}
