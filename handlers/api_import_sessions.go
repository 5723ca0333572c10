package handlers

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/imports"
	"tally/internal/apperr"
)

// SessionJSON is an import session: the import, with its chunks.
type SessionJSON struct {
	ID              string            `json:"id"`
	Type            string            `json:"type"`
	Status          string            `json:"status"`
	ClientSessionID *string           `json:"client_session_id"`
	ExpectedChunks  *int              `json:"expected_chunks"`
	ChunksCount     int               `json:"chunks_count"`
	RowsCount       int               `json:"rows_count"`
	Summary         imports.Summary   `json:"summary"`
	Error           *string           `json:"error"`
	Problems        []imports.Finding `json:"problems,omitempty"`
	Verification    *VerificationJSON `json:"verification"`
	CreatedAt       apiTime           `json:"created_at"`
	UpdatedAt       apiTime           `json:"updated_at"`
	Chunks          []ChunkJSON       `json:"chunks"`
}

// ChunkJSON is one chunk of a session.
type ChunkJSON struct {
	Sequence      int                 `json:"sequence"`
	ClientChunkID *string             `json:"client_chunk_id"`
	SHA256        string              `json:"sha256"`
	ByteSize      int                 `json:"byte_size"`
	RowsCount     int                 `json:"rows_count"`
	Status        string              `json:"status"`
	Error         *imports.ChunkError `json:"error"`
	CreatedAt     apiTime             `json:"created_at"`
	UpdatedAt     apiTime             `json:"updated_at"`
}

// sessionResponse answers with the family's session id.
func (a *app) sessionResponse(c echo.Context, status int, id uuid.UUID) error {
	out, err := a.sessionJSON(c, id)
	if err != nil {
		return err
	}
	return c.JSON(status, map[string]any{"data": out})
}

// visibleSession loads the family's import session id, if the caller may see it: one that
// touches a private account kept from them is not found, as another family's
// (imports.GetFor).
func (a *app) visibleSession(c echo.Context, id uuid.UUID) (*imports.Import, error) {
	im, err := imports.GetSession(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return nil, err
	}
	if _, err := a.visibleImport(c, id); apperr.Is(err, apperr.NotFound) {
		return nil, imports.SessionNotFound()
	} else if err != nil {
		return nil, err
	}
	return im, nil
}

// sessionJSON is the import session with its chunks.
func (a *app) sessionJSON(c echo.Context, id uuid.UUID) (*SessionJSON, error) {
	ctx := c.Request().Context()
	im, err := a.visibleSession(c, id)
	if err != nil {
		return nil, err
	}
	chunks, err := imports.Chunks(ctx, a.DB, im.ID)
	if err != nil {
		return nil, err
	}
	d, err := imports.Describe(ctx, a.DB, im)
	if err != nil {
		return nil, err
	}
	detail := importJSON(d)
	out := SessionJSON{ID: im.ID.String(), Type: string(im.Type), Status: im.Status, ClientSessionID: im.ClientSessionID,
		ExpectedChunks: im.ExpectedChunks, ChunksCount: len(chunks), RowsCount: im.RowsCount, Summary: im.Summary,
		Error: im.Error, Problems: im.Problems, Verification: detail.Verification,
		CreatedAt: apiTime(im.CreatedAt), UpdatedAt: apiTime(im.UpdatedAt), Chunks: make([]ChunkJSON, len(chunks))}
	if out.Summary == nil {
		out.Summary = imports.Summary{}
	}
	for i, ch := range chunks {
		out.Chunks[i] = ChunkJSON{Sequence: ch.Sequence, ClientChunkID: ch.ClientChunkID, SHA256: hex.EncodeToString(ch.SHA256),
			ByteSize: ch.ByteSize, RowsCount: ch.RowsCount, Status: ch.Status, Error: ch.Error,
			CreatedAt: apiTime(ch.CreatedAt), UpdatedAt: apiTime(ch.UpdatedAt)}
	}
	return &out, nil
}

// sessionID parses :id; a malformed id is not found, like another family's.
func sessionID(c echo.Context) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return uuid.Nil, imports.SessionNotFound()
	}
	return id, nil
}

// positiveInt reads a whole-number field; "2abc" and 1.5 are refused by name.
func positiveInt(v *apperr.Validation, body requestBody, key string) *int {
	s := body.str(v, key)
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(*s))
	if err != nil || n < 1 {
		v.Add(key, key+" must be a whole number greater than 0")
		return nil
	}
	return &n
}

// apiSessionCreate is POST /api/v1/import_sessions.
func (a *app) apiSessionCreate(c echo.Context) error {
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	var v apperr.Validation
	u := currentUser(c)
	req := imports.SessionRequest{FamilyID: u.FamilyID, UserID: u.ID,
		ClientSessionID: body.str(&v, "client_session_id"), ExpectedChunks: positiveInt(&v, body, "expected_chunks")}
	if t := body.str(&v, "type"); t != nil {
		req.Type = strings.TrimSpace(*t)
	}
	if err := v.Err(); err != nil {
		e := apperr.As(err)
		e.Message, e.Slug = "Import session could not be created", "validation_failed"
		return e
	}
	return a.idempotent(c, req, func() (int, any, error) {
		im, err := a.Imports.CreateSession(c.Request().Context(), req)
		if err != nil {
			return 0, nil, err
		}
		out, err := a.sessionJSON(c, im.ID)
		return http.StatusCreated, map[string]any{"data": out}, err
	})
}

// apiSessionShow is GET /api/v1/import_sessions/:id.
func (a *app) apiSessionShow(c echo.Context) error {
	id, err := sessionID(c)
	if err != nil {
		return err
	}
	return a.sessionResponse(c, http.StatusOK, id)
}

// apiSessionChunk is POST /api/v1/import_sessions/:id/chunks: 201 for a new chunk, 200 for a
// retry of one already stored.
func (a *app) apiSessionChunk(c echo.Context) error {
	id, err := sessionID(c)
	if err != nil {
		return err
	}
	if _, err := a.visibleSession(c, id); err != nil {
		return err
	}
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	var v apperr.Validation
	if _, ok := body.fields["sequence"]; !ok {
		return apperr.New(apperr.BadRequest, "sequence is required: the chunk's number, from 1, in upload order").
			WithFields(map[string][]string{"sequence": {"sequence is required"}})
	}
	req := imports.ChunkRequest{FamilyID: currentUser(c).FamilyID, ImportID: id,
		ClientChunkID: body.str(&v, "client_chunk_id"), SHA256: body.str(&v, "sha256"), Upload: body.content(&v)}
	if n := positiveInt(&v, body, "sequence"); n != nil {
		req.Sequence = *n
	}
	if err := v.Err(); err != nil {
		e := apperr.As(err)
		e.Message, e.Slug = "Chunk could not be added", "validation_failed"
		return e
	}
	created, err := a.Imports.AddChunk(c.Request().Context(), req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return a.sessionResponse(c, status, id)
}

// apiSessionPublish is POST /api/v1/import_sessions/:id/publish: 202 once queued, or at once
// when the session is already publishing or published.
func (a *app) apiSessionPublish(c echo.Context) error {
	id, err := sessionID(c)
	if err != nil {
		return err
	}
	if _, err := a.visibleSession(c, id); err != nil {
		return err
	}
	if err := a.Imports.PublishSession(c.Request().Context(), currentUser(c).FamilyID, id); err != nil {
		return err
	}
	return a.sessionResponse(c, http.StatusAccepted, id)
}
