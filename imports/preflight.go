package imports

import (
	"context"
	"fmt"

	"tally/internal/apperr"
)

// Problem is one finding of a preflight.
type Problem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Row     int    `json:"row,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// PreflightResult says whether a file would import, without storing anything.
type PreflightResult struct {
	Type            Type      `json:"type"`
	Valid           bool      `json:"valid"`
	Filename        string    `json:"-"`
	ContentType     string    `json:"-"`
	ByteSize        int       `json:"-"`
	Encoding        string    `json:"-"`
	RowsCount       int       `json:"-"`
	ValidRowsCount  int       `json:"-"`
	Headers         []string  `json:"headers"`
	RequiredHeaders []string  `json:"required_headers"`
	MissingHeaders  []string  `json:"missing_required_headers"`
	Errors          []Problem `json:"errors"`
	Warnings        []string  `json:"warnings"`
}

// maxPreflightRowErrors bounds how many row problems a preflight lists.
const maxPreflightRowErrors = 50

// Preflight checks a request as Create would, and reports what Create would do with it. Unlike
// a bare header check, it types every row, so valid means the rows can be published.
func (s *Service) Preflight(ctx context.Context, req Request) (*PreflightResult, error) {
	done, err := s.Reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if req.Type == AutoType {
		t, err := detectUpload(req.Upload)
		if err != nil {
			return nil, err
		}
		req.Type = string(t)
	}
	res := &PreflightResult{Type: Type(req.Type), Headers: []string{}, RequiredHeaders: []string{}, MissingHeaders: []string{}, Errors: []Problem{}, Warnings: []string{}}
	if req.Type == "" {
		res.Type = TransactionImport
	}
	if res.Type.MoveIn() {
		return s.preflightMoveIn(ctx, req, res)
	}
	p, err := s.prepare(ctx, req)
	if err != nil {
		e := apperr.As(err)
		if e == nil {
			return nil, err
		}
		switch e.Slug {
		case "missing_required_headers":
			d, _ := e.Details.(map[string]any)
			res.MissingHeaders, _ = d["missing_required_headers"].([]string)
			res.Headers, _ = d["headers"].([]string)
			res.RequiredHeaders = requiredHeaders(&Config{}, res.Type)
			res.Errors = append(res.Errors, Problem{Code: e.Slug, Message: e.Message})
			return res, nil
		case "no_data_rows":
			res.Errors = append(res.Errors, Problem{Code: e.Slug, Message: e.Message})
			return res, nil
		case "validation_failed":
			for _, msgs := range e.Fields {
				for _, m := range msgs {
					res.Errors = append(res.Errors, Problem{Code: e.Slug, Message: m})
				}
			}
			return res, nil
		}
		return nil, err
	}
	im := p.im
	res.Filename, res.ContentType, res.ByteSize = *im.Filename, *im.ContentType, im.ByteSize
	res.Encoding = *im.Encoding
	if p.headers != nil {
		res.Headers = p.headers
	}
	if p.required != nil {
		res.RequiredHeaders = p.required
	}
	var rowErrors []Problem
	listed := 0
	for r := range p.each {
		res.RowsCount++
		if len(r.Errors) == 0 {
			res.ValidRowsCount++
		}
		for _, msg := range r.Errors {
			if listed == maxPreflightRowErrors {
				break
			}
			rowErrors = append(rowErrors, Problem{Code: "invalid_row", Message: fmt.Sprintf("Row %d (line %d): %s", r.Number, r.Line, msg), Row: r.Number, Line: r.Line})
			listed++
		}
	}
	if res.RowsCount == 0 {
		res.Errors = append(res.Errors, Problem{Code: "no_data_rows", Message: "No data rows were found."})
	}
	res.Errors = append(res.Errors, rowErrors...)
	if invalid := res.RowsCount - res.ValidRowsCount; invalid > listed && listed == maxPreflightRowErrors {
		res.Warnings = append(res.Warnings, fmt.Sprintf("Only the first %d row problems are listed.", maxPreflightRowErrors))
	}
	if res.RowsCount > s.Limits.MaxRows {
		res.Warnings = append(res.Warnings, fmt.Sprintf("Row count exceeds this import type's publish limit (%d rows).", s.Limits.MaxRows))
	}
	if im.Type == QifImport && im.AccountID == nil {
		res.Errors = append(res.Errors, Problem{Code: "account_required", Message: "A QIF import needs an account: send account_id."})
	}
	res.Valid = len(res.Errors) == 0
	return res, nil
}
