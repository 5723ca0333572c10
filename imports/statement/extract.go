package statement

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Extraction methods.
const (
	MethodPdftotext = "pdftotext"
	MethodGo        = "go"
)

// maxTextBytes bounds the text either reader may make of a PDF, all of which Parse holds: a
// statement of maxPages dense pages has about 4 MB.
const maxTextBytes = 16 << 20

// defaultExtractTimeout bounds an extraction whose context has no deadline. A variable for
// the tests.
var defaultExtractTimeout = 30 * time.Second

// ExtractText returns the text of each page of a PDF, laid out so that a statement's columns
// stay apart. It runs pdftotext (poppler-utils) when it is installed, and reads the PDF in Go
// only when it is not: when pdftotext fails on a file, its error is returned, classified,
// rather than trying the Go reader, which is less capable and would only fail in other ways.
// method is MethodPdftotext or MethodGo.
//
// Errors are ExtractErrors (see there for what to show and what to log) or, when ctx ends
// first, wrap ctx.Err().
func ExtractText(ctx context.Context, pdf []byte) (pages []string, method string, err error) {
	if err := checkPDF(pdf); err != nil {
		return nil, "", err
	}
	if _, lookErr := exec.LookPath("pdftotext"); lookErr == nil {
		pages, err = ExtractTextWith(ctx, pdf, MethodPdftotext)
		if !errors.Is(err, exec.ErrNotFound) { // removed since LookPath: fall back
			return pages, MethodPdftotext, err
		}
	}
	pages, err = ExtractTextWith(ctx, pdf, MethodGo)
	return pages, MethodGo, err
}

// ExtractTextWith extracts the text with one method, MethodPdftotext or MethodGo. Either is
// bounded in time by ctx, or by 30 seconds when ctx has no deadline; the Go reader is also
// bounded in memory (see ErrTooComplex). When ctx ends first, the error wraps ctx.Err().
func ExtractTextWith(ctx context.Context, pdf []byte, method string) ([]string, error) {
	if err := checkPDF(pdf); err != nil {
		return nil, err
	}
	if method != MethodPdftotext && method != MethodGo {
		return nil, fmt.Errorf("unknown text extraction method %q (want %q or %q)", method, MethodPdftotext, MethodGo)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading the PDF: %w", err)
	}
	parent := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultExtractTimeout)
		defer cancel()
	}
	var pages []string
	var err error
	if method == MethodPdftotext {
		pages, err = runPdftotext(ctx, pdf)
	} else {
		pages, err = readPDFAsync(ctx, pdf)
	}
	if err != nil {
		switch {
		case parent.Err() != nil:
			return nil, fmt.Errorf("reading the PDF: %w", parent.Err())
		case ctx.Err() != nil: // the default deadline
			return nil, &ExtractError{Kind: ErrKindTooComplex, Public: "the PDF took too long to read",
				Err: fmt.Errorf("%s gave no result within %v: %w", method, defaultExtractTimeout, ctx.Err())}
		}
		return nil, err
	}
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return pages, nil
		}
	}
	return nil, ErrNoText
}

// readPDFAsync runs the Go reader in a goroutine and gives up on it when ctx ends. The reader
// checks ctx on every read of the file and as it interprets pages, so it stops soon after.
func readPDFAsync(ctx context.Context, pdf []byte) ([]string, error) {
	type result struct {
		pages []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		pages, err := readPDF(ctx, pdf)
		done <- result{pages, err}
	}()
	select {
	case r := <-done:
		return r.pages, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func checkPDF(pdf []byte) error {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return ErrNotPDF
	}
	return nil
}

// runPdftotext runs pdftotext -layout on a temporary copy of the file (a file rather than
// standard input because older poppler releases cannot read a PDF from a pipe) and splits its
// output into pages at the form feeds it ends each page with. The temporary file's name
// appears only in the internal detail of its errors.
func runPdftotext(ctx context.Context, pdf []byte) ([]string, error) {
	f, err := os.CreateTemp("", "statement-*.pdf")
	if err != nil {
		return nil, &ExtractError{Kind: ErrKindInternal, Public: "the PDF could not be stored for reading",
			Err: fmt.Errorf("creating a temporary file: %w", err)}
	}
	defer os.Remove(f.Name())
	_, err = f.Write(pdf)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, &ExtractError{Kind: ErrKindInternal, Public: "the PDF could not be stored for reading",
			Err: fmt.Errorf("writing a temporary file: %w", err)}
	}
	var stdout limitedBuffer
	var stderr limitedBuffer
	stdout.max, stderr.max = maxTextBytes, 4096
	cmd := exec.CommandContext(ctx, "pdftotext", "-layout", "-enc", "UTF-8",
		"-l", strconv.Itoa(maxPages), f.Name(), "-")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, pdftotextError(err, stderr.String())
	}
	if stdout.overflow {
		return nil, tooComplex("pdftotext wrote more than %d MB of text", maxTextBytes>>20)
	}
	return splitFormFeeds(stdout.String()), nil
}

// pdftotextError classifies a pdftotext failure from what it printed and its exit status
// (documented in its man page). What it printed, which names the temporary file, is kept for
// the log only.
func pdftotextError(err error, stderr string) error {
	detail := fmt.Errorf("pdftotext: %w: %s", err, strings.TrimSpace(stderr))
	lower := strings.ToLower(stderr)
	var exit *exec.ExitError
	code := -1
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	}
	switch {
	case strings.Contains(lower, "password"):
		return &ExtractError{Kind: ErrKindEncrypted, Public: publicMessage(ErrKindEncrypted), Err: detail}
	case code == 3 || strings.Contains(lower, "permission error"):
		return &ExtractError{Kind: ErrKindEncrypted, Err: detail,
			Public: "the PDF's permissions do not allow copying its text; save an unprotected copy and upload that"}
	case strings.Contains(lower, "may not be a pdf"):
		return &ExtractError{Kind: ErrKindNotPDF, Public: "the file is not a valid PDF", Err: detail}
	case code == 1:
		return &ExtractError{Kind: ErrKindUnreadable, Public: "the PDF could not be read: the file is damaged or not a PDF", Err: detail}
	case errors.Is(err, exec.ErrNotFound):
		return &ExtractError{Kind: ErrKindInternal, Public: "the PDF reader is not available", Err: detail}
	}
	return &ExtractError{Kind: ErrKindUnreadable, Public: publicMessage(ErrKindUnreadable), Err: detail}
}

// splitFormFeeds splits pdftotext output into pages; the form feed after the last page ends
// it rather than starting another.
func splitFormFeeds(text string) []string {
	text = strings.TrimSuffix(text, "\f")
	return strings.Split(text, "\f")
}

// limitedBuffer keeps the first max bytes written to it and notes whether more came. It is a
// strings.Builder, so that the text it holds becomes a string without a copy.
type limitedBuffer struct {
	strings.Builder
	max      int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.overflow = true
		if room > 0 {
			b.Builder.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Builder.Write(p)
}
