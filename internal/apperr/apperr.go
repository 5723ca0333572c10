// Package apperr is Tally's one application error type: a code that decides the HTTP status,
// a message that is safe to show a client, and the wrapped internal cause.
package apperr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"tally/internal/i18n"
)

// Code classifies an error. Handlers map codes to statuses in exactly one function.
type Code string

// The codes. Anything without a code is Internal.
const (
	Invalid       Code = "invalid"        // the input is wrong: 422
	BadRequest    Code = "bad_request"    // the request cannot be read: 400
	NotFound      Code = "not_found"      // missing, or another family's: 404
	Conflict      Code = "conflict"       // the state does not allow it: 409
	Unauthorized  Code = "unauthorized"   // who you are is unknown or refused: 401
	Forbidden     Code = "forbidden"      // you may not: 403
	TooLarge      Code = "too_large"      // over a size limit: 413 (or 422 where the spec says so)
	RateLimited   Code = "rate_limited"   // too many requests: 429
	Unavailable   Code = "unavailable"    // a dependency is down: 503
	Internal      Code = "internal"       // a bug or an outage: 500, logged, text never shown
	InvalidFormat Code = "invalid_format" // content that cannot be parsed: 422
)

// Error is an error with a code and a client-safe message.
type Error struct {
	Code Code
	// Slug overrides the API's "error" field (for example "insufficient_scope").
	Slug    string
	Message string
	// Fields holds per-field problems (field name to messages), for forms and the API.
	Fields map[string][]string
	// Texts are the Fields' messages that have an id in the catalogues (internal/i18n), by
	// field, in the same order, a zero Text where one has none: a page says them in its
	// reader's language (FieldsIn), the API as Fields says them, in English.
	Texts map[string][]Text
	// Details is extra machine-readable context for the API's "details" field.
	Details any
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with code and a client-safe message.
func New(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// Errorf returns an error with code and a formatted client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message that wraps cause, which stays internal.
func Wrap(code Code, cause error, msg string) *Error {
	return &Error{Code: code, Message: msg, Err: cause}
}

// WithSlug sets the API error slug.
func (e *Error) WithSlug(slug string) *Error { e.Slug = slug; return e }

// WithDetails sets the API details.
func (e *Error) WithDetails(d any) *Error { e.Details = d; return e }

// WithFields sets the per-field messages.
func (e *Error) WithFields(f map[string][]string) *Error { e.Fields = f; return e }

// CodeOf returns err's code: Internal when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns err's *Error, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Is reports whether err carries code.
func Is(err error, code Code) bool { return As(err) != nil && CodeOf(err) == code }

// Validation collects field problems so that all of them are reported at once.
type Validation struct {
	fields map[string][]string
	texts  map[string][]Text
	order  []string
}

// Text is a message for people by the id of its text in the catalogues (internal/i18n) and
// its placeholders' values, as name and value pairs.
type Text struct {
	ID   string
	Data []any
}

// AddText adds the message id (with its placeholders' values, as name and value pairs) to
// field: in English, as Add does, and by id, so that a page says it in its reader's language.
func (v *Validation) AddText(field, id string, data ...any) {
	v.add(field, i18n.T(context.Background(), id, data...), Text{ID: id, Data: data})
}

// FieldsIn are e's field messages in the language of ctx: those added by id translated, the
// others as they are (English).
func (e *Error) FieldsIn(ctx context.Context) map[string][]string {
	if len(e.Texts) == 0 {
		return e.Fields
	}
	out := make(map[string][]string, len(e.Fields))
	for field, msgs := range e.Fields {
		out[field] = slices.Clone(msgs)
		for i, t := range e.Texts[field] {
			if t.ID != "" && i < len(msgs) {
				out[field][i] = i18n.T(ctx, t.ID, t.Data...)
			}
		}
	}
	return out
}

// Add records a problem with field.
func (v *Validation) Add(field, msg string) { v.add(field, msg, Text{}) }

func (v *Validation) add(field, msg string, t Text) {
	if v.fields == nil {
		v.fields, v.texts = map[string][]string{}, map[string][]Text{}
	}
	if _, ok := v.fields[field]; !ok {
		v.order = append(v.order, field)
	}
	v.fields[field] = append(v.fields[field], msg)
	v.texts[field] = append(v.texts[field], t)
}

// Has reports whether a problem with field was recorded.
func (v *Validation) Has(field string) bool { _, ok := v.fields[field]; return ok }

// Merge adds the field problems of err, an Invalid error; other errors are ignored.
func (v *Validation) Merge(err error) {
	e := As(err)
	if e == nil || e.Code != Invalid {
		return
	}
	for field, msgs := range e.Fields {
		for i, m := range msgs {
			var t Text
			if i < len(e.Texts[field]) {
				t = e.Texts[field][i]
			}
			v.add(field, m, t)
		}
	}
}

// Err returns nil when nothing was added, else an Invalid error holding every problem.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	var msgs []string
	for _, f := range v.order {
		for _, m := range v.fields[f] {
			msgs = append(msgs, m)
		}
	}
	return &Error{Code: Invalid, Message: strings.Join(msgs, "; "), Fields: v.fields, Texts: v.texts}
}

// UniqueViolation reports whether err is PostgreSQL's unique-violation (23505), and on which
// constraint. It is the one place that translates it.
func UniqueViolation(err error) (constraint string, ok bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return pgErr.ConstraintName, true
	}
	return "", false
}
