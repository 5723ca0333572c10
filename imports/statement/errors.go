package statement

import (
	"errors"
	"fmt"
)

// Error kinds: what went wrong, in a form a caller can switch on (ExtractError.Kind).
const (
	ErrKindNotPDF     = "not_pdf"     // the upload is not a PDF
	ErrKindEncrypted  = "encrypted"   // the PDF needs a password, or forbids copying its text
	ErrKindNoText     = "no_text"     // no text to read: a scanned statement needs OCR
	ErrKindTooComplex = "too_complex" // the PDF (or its text) is too large or slow to read safely
	ErrKindUnreadable = "unreadable"  // the PDF is damaged or uses features the readers do not support
	ErrKindUpstream   = "upstream"    // the model endpoint failed: HTTP error, timeout, malformed answer
	ErrKindInternal   = "internal"    // a failure on this side: configuration, temporary storage
)

// ExtractError is the error ExtractText, ExtractTextWith and LLM.Extract return. It keeps what
// may be shown to a user apart from what may only be logged:
//
//   - Error() returns Public, a message written for the person who uploaded the statement. It
//     never holds a file path, the model endpoint's URL, the API key or the endpoint's answer.
//   - Err holds the internal detail (pdftotext's output and exit status, the endpoint's HTTP
//     status and body, the library's panic, ...), for logs; Detail formats both. Err may name
//     temporary files or the endpoint, so it must not be shown to users. Errors from the LLM
//     extractor have the API key removed from Err as well.
//
// errors.Is matches an ExtractError against the sentinel of its kind (ErrNotPDF, ErrEncrypted,
// ErrNoText, ErrTooComplex, ErrUnreadable, ErrUpstream), and through Err against the causes it
// wraps, such as context.Canceled or context.DeadlineExceeded.
type ExtractError struct {
	Kind   string // one of the ErrKind constants
	Public string // safe to show to users; what Error returns
	Err    error  // internal detail for logs; may be nil
}

func (e *ExtractError) Error() string { return e.Public }

// Unwrap returns the internal detail, so that errors.Is and errors.As reach its causes.
func (e *ExtractError) Unwrap() error { return e.Err }

// Is reports whether target is an ExtractError of the same kind: errors.Is(err, ErrTooComplex)
// holds for every too-complex error, whatever its message.
func (e *ExtractError) Is(target error) bool {
	t, ok := target.(*ExtractError)
	return ok && t.Kind == e.Kind
}

// Detail is the message for a log: the public message followed by the internal detail.
func (e *ExtractError) Detail() string {
	if e.Err == nil {
		return e.Public
	}
	return e.Public + " [" + e.Err.Error() + "]"
}

// The sentinel of each kind, for errors.Is. Their messages are the generic public messages.
var (
	// ErrNotPDF is returned for a file that does not start with a PDF header.
	ErrNotPDF error = &ExtractError{Kind: ErrKindNotPDF, Public: "the file is not a PDF (it does not start with %PDF-)"}

	// ErrEncrypted describes a PDF that needs a password to open.
	ErrEncrypted error = &ExtractError{Kind: ErrKindEncrypted,
		Public: "the PDF is password-protected; save an unprotected copy and upload that"}

	// ErrNoText is returned for a PDF whose pages hold no text, as scanned statements do:
	// reading those needs OCR, which this package does not do.
	ErrNoText error = &ExtractError{Kind: ErrKindNoText,
		Public: "the PDF has no text to read (it may be a scanned image, which needs OCR)"}

	// ErrTooComplex is returned for a PDF that would take too much memory or time to read: a
	// content stream that inflates to tens of megabytes, too many pages or objects, text that
	// takes longer than the time allowed. Real statements are far below the limits.
	ErrTooComplex error = &ExtractError{Kind: ErrKindTooComplex,
		Public: "the PDF's content is too large to read safely"}

	// ErrUnreadable is returned for a PDF that is damaged or that the readers cannot handle.
	ErrUnreadable error = &ExtractError{Kind: ErrKindUnreadable,
		Public: "the PDF could not be read (the file may be damaged)"}

	// ErrUpstream is returned by LLM.Extract when the model endpoint fails: it cannot be
	// reached, answers with an HTTP error, times out, or answers with something other than
	// the statement data asked for. A statement the model did read, but whose lines do not
	// add up, is not an error: it comes back with Reconciled false and its Problems.
	ErrUpstream error = &ExtractError{Kind: ErrKindUpstream,
		Public: "the model endpoint failed to read the statement"}
)

// errorf builds an ExtractError of kind with the public message of its sentinel and internal
// detail.
func errorf(kind string, format string, args ...any) error {
	return &ExtractError{Kind: kind, Public: publicMessage(kind), Err: fmt.Errorf(format, args...)}
}

// publicMessage is the generic public message for a kind.
func publicMessage(kind string) string {
	for _, s := range []error{ErrNotPDF, ErrEncrypted, ErrNoText, ErrTooComplex, ErrUnreadable, ErrUpstream} {
		var e *ExtractError
		if errors.As(s, &e) && e.Kind == kind {
			return e.Public
		}
	}
	return "the statement could not be read"
}

// tooComplex is an ErrTooComplex with the limit that was reached as its detail.
func tooComplex(format string, args ...any) error {
	return errorf(ErrKindTooComplex, format, args...)
}
