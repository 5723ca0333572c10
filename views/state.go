// Package views holds Tally's templ pages and the one set of components they are built from.
package views

import (
	"context"

	"tally/models"
)

// State is what every page needs to know about the request: who is signed in, the CSRF token
// and flash messages. Handlers put it into the request context; components read it from there.
type State struct {
	CSRF  string
	User  *models.User
	Path  string
	Flash []Flash
	// Nav is the navigation entry to highlight ("dashboard", "accounts", ...).
	Nav string
	// RequestID is the request's id, shown on error pages for people to quote.
	RequestID string
}

// Flash is a message shown once after a redirect.
type Flash struct {
	Kind string // "success" or "error"
	Text string
}

type stateKey struct{}

// WithState returns ctx carrying s.
func WithState(ctx context.Context, s *State) context.Context {
	return context.WithValue(ctx, stateKey{}, s)
}

// StateOf returns the page state in ctx (never nil).
func StateOf(ctx context.Context) *State {
	if s, ok := ctx.Value(stateKey{}).(*State); ok {
		return s
	}
	return &State{}
}

// Form carries a form's submitted values and its problems, so that a page re-renders the form
// with what the person typed and every error at once.
type Form struct {
	Values map[string]string
	Errors map[string][]string
	// Message is an error about the form as a whole.
	Message string
	// Prefix sets the form's element ids (and test ids) apart from another form's of the
	// same page with fields of the same names.
	Prefix string
}

// ID is the id of field's input, also its test id.
func (f *Form) ID(field string) string {
	if f == nil {
		return "field-" + field
	}
	return f.Prefix + "field-" + field
}

// ErrorID is the id of field's error message.
func (f *Form) ErrorID(field string) string {
	if f == nil {
		return "error-" + field
	}
	return f.Prefix + "error-" + field
}

// Value returns the submitted value of field.
func (f *Form) Value(field string) string {
	if f == nil {
		return ""
	}
	return f.Values[field]
}

// Error returns the first problem with field, or "".
func (f *Form) Error(field string) string {
	if f == nil || len(f.Errors[field]) == 0 {
		return ""
	}
	return f.Errors[field][0]
}

// CanWrite reports whether the signed-in person may change the family's data: a viewer reads
// only (handlers/viewer_rules.go refuses their changes), and their pages leave out the
// buttons and forms that change something.
func CanWrite(ctx context.Context) bool {
	u := StateOf(ctx).User
	return u != nil && !u.Role.ReadOnly()
}
