// Package models holds Tally's tables as bun models, and the queries and invariants of the
// data. Every query for family data takes the family's id and filters by it: another family's
// record is simply not found.
package models

import (
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"tally/internal/apperr"
)

// newID returns a new random (v7, time-ordered) id.
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// notFound turns sql.ErrNoRows into a NotFound error naming what was missing.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.Errorf(apperr.NotFound, "%s not found", what)
	}
	return err
}

// isNoRows reports whether err means a query found nothing.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Page selects one page of a list. Number starts at 1.
type Page struct {
	Number int
	Size   int
}

// Normalize clamps the page into sensible bounds (size 1..max, default def).
func (p Page) Normalize(def, max int) Page {
	if p.Number < 1 {
		p.Number = 1
	}
	if p.Size < 1 {
		p.Size = def
	}
	if p.Size > max {
		p.Size = max
	}
	return p
}

// Offset is the number of rows before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }
