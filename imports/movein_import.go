package imports

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"path"
	"regexp"

	"tally/imports/actual"
	"tally/imports/movein"
	"tally/imports/native"
	"tally/imports/ynab"
	"tally/internal/apperr"
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
		b, err = ynab.Read(bytes.NewReader(up.Content))
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

// createMoveIn stores a move-in: its budget as native records, with its counts and notices.
// Nothing is written to the family until it is published.
func (s *Service) createMoveIn(ctx context.Context, req Request) (*Detail, error) {
	typ := Type(req.Type)
	b, err := s.readMoveIn(ctx, typ, req.Upload)
	if err != nil {
		return nil, err
	}
	m := moveInRecords(b)
	if err := s.noteFamily(ctx, req.FamilyID, m); err != nil {
		return nil, err
	}
	mi := &MoveIn{Source: b.Source, Name: b.Name, Counts: m.counts, Notices: make([]MoveInNotice, len(m.notices)), Expected: m.expect(),
		Goals: m.goalList}
	for i, n := range m.notices {
		mi.Notices[i] = MoveInNotice{What: n.What, Entity: n.Entity, ID: n.ID, Name: n.Name, Reason: n.Reason, Message: n.String()}
	}
	return s.storeNative(ctx, req, typ, m.ndjson.Bytes(), mi)
}

// preflightMoveIn checks a move-in's file as create would: a file the reader refuses is an
// error of the preflight; each notice (a renaming, a thing not kept) is a warning.
func (s *Service) preflightMoveIn(ctx context.Context, req Request, res *PreflightResult) (*PreflightResult, error) {
	res.Filename, res.ContentType, res.ByteSize = req.Upload.Filename, req.Upload.ContentType, len(req.Upload.Content)
	b, err := s.readMoveIn(ctx, res.Type, req.Upload)
	if e := apperr.As(err); e != nil && e.Code == apperr.Invalid {
		res.Errors = append(res.Errors, Problem{Code: e.Slug, Message: e.Message})
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	m := moveInRecords(b)
	if err := s.noteFamily(ctx, req.FamilyID, m); err != nil {
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

// moveInPieceBytes is the most of a move-in's records read at once. Its file is a whole
// budget's records, tens of MB for a large one, and read whole they took three times their
// size (a ten-year budget of 100,000 transactions: 45 MB of records held 150 MB), which in a
// server held under 256 MB left its collector running without end. A piece at a time, as a
// session's chunks are read, what is held is bounded by the piece.
const moveInPieceBytes = 8 << 20

// moveInPieces splits a move-in's records into pieces of whole lines of at most
// moveInPieceBytes (a longer line is a piece of its own).
func moveInPieces(content []byte) [][]byte {
	var pieces [][]byte
	for len(content) > 0 {
		n := len(content)
		if n > moveInPieceBytes {
			if n = bytes.LastIndexByte(content[:moveInPieceBytes], '\n') + 1; n == 0 {
				if n = bytes.IndexByte(content, '\n') + 1; n == 0 {
					n = len(content)
				}
			}
		}
		pieces = append(pieces, content[:n])
		content = content[n:]
	}
	return pieces
}

// eachMoveInPiece reads a move-in's records a piece at a time, each with the source ids of the
// pieces before it known, as eachNativeFile reads a session's chunks, and hands each to fn.
// The converter writes every record after those it refers to, so each reference resolves.
func eachMoveInPiece(content []byte, fn func(int, *native.File) error) error {
	pieces := moveInPieces(content)
	known := native.NewKnown()
	for i, p := range pieces {
		opts := native.Options{Known: known}
		if len(pieces) > 1 {
			opts.Chunk = i + 1 // a finding says which piece it is in
		}
		f := native.ReadWith(p, opts)
		f.CheckRefs(nil)
		known.Add(f, i+1)
		if err := fn(i+1, f); err != nil {
			return err
		}
	}
	return nil
}

// readMoveInRecords is readNative of a move-in's records, read a piece at a time: the counts
// and findings of the whole, without the records.
func readMoveInRecords(content []byte) *native.File {
	all := &native.File{Counts: map[string]int{}, RecordTypeCounts: map[string]int{}}
	_ = eachMoveInPiece(content, func(_ int, f *native.File) error {
		all.RowsCount += f.RowsCount
		all.ValidRowsCount += f.ValidRowsCount
		all.Lines += f.Lines
		for k, n := range f.Counts {
			all.Counts[k] += n
		}
		for k, n := range f.RecordTypeCounts {
			all.RecordTypeCounts[k] += n
		}
		all.Problems = append(all.Problems, f.Problems...)
		all.Warnings = append(all.Warnings, f.Warnings...)
		all.UnresolvedRefs = append(all.UnresolvedRefs, f.UnresolvedRefs...)
		return nil
	})
	return all
}
