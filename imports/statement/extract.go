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
)

// Extraction methods.
const (
	MethodPdftotext = "pdftotext"
	MethodGo        = "go"
)

// ErrNotPDF is returned for a file that does not start with a PDF header.
var ErrNotPDF = errors.New("the file is not a PDF (it does not start with %PDF-)")

// ErrEncrypted describes a PDF that needs a password to open.
var ErrEncrypted = errors.New("the PDF is password-protected; save an unprotected copy and upload that")

// ErrNoText is returned for a PDF whose pages hold no text, as scanned statements do: reading
// those needs OCR, which this package does not do.
var ErrNoText = errors.New("the PDF has no text to read (it may be a scanned image, which needs OCR)")

// maxTextBytes bounds the text pdftotext may write; a real statement's text is a small
// fraction of it.
const maxTextBytes = 64 << 20

// ExtractText returns the text of each page of a PDF, laid out so that a statement's columns
// stay apart. It runs pdftotext (poppler-utils) when it is on PATH, and otherwise, or when
// pdftotext fails on the file, reads the PDF in Go. method is MethodPdftotext or MethodGo.
func ExtractText(ctx context.Context, pdf []byte) (pages []string, method string, err error) {
	if err := checkPDF(pdf); err != nil {
		return nil, "", err
	}
	if _, lookErr := exec.LookPath("pdftotext"); lookErr == nil {
		pages, err = ExtractTextWith(ctx, pdf, MethodPdftotext)
		if err == nil || errors.Is(err, ErrNoText) || errors.Is(err, ErrEncrypted) || ctx.Err() != nil {
			return pages, MethodPdftotext, err
		}
		// The Go reader copes with a few files poppler refuses; if it fails too, the
		// pdftotext error is the one worth showing.
		if goPages, goErr := ExtractTextWith(ctx, pdf, MethodGo); goErr == nil {
			return goPages, MethodGo, nil
		}
		return nil, MethodPdftotext, err
	}
	pages, err = ExtractTextWith(ctx, pdf, MethodGo)
	return pages, MethodGo, err
}

// ExtractTextWith extracts the text with one method, MethodPdftotext or MethodGo.
func ExtractTextWith(ctx context.Context, pdf []byte, method string) ([]string, error) {
	if err := checkPDF(pdf); err != nil {
		return nil, err
	}
	var pages []string
	var err error
	switch method {
	case MethodPdftotext:
		pages, err = runPdftotext(ctx, pdf)
	case MethodGo:
		pages, err = readPDF(ctx, pdf)
	default:
		return nil, fmt.Errorf("unknown text extraction method %q (want %q or %q)", method, MethodPdftotext, MethodGo)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return pages, nil
		}
	}
	return nil, ErrNoText
}

func checkPDF(pdf []byte) error {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return ErrNotPDF
	}
	return nil
}

// runPdftotext runs pdftotext -layout on a temporary copy of the file (a file rather than
// standard input because older poppler releases cannot read a PDF from a pipe) and splits its
// output into pages at the form feeds it ends each page with.
func runPdftotext(ctx context.Context, pdf []byte) ([]string, error) {
	f, err := os.CreateTemp("", "statement-*.pdf")
	if err != nil {
		return nil, fmt.Errorf("reading the PDF: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(pdf)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, fmt.Errorf("reading the PDF: %w", err)
	}
	var stdout limitedBuffer
	var stderr limitedBuffer
	stdout.max, stderr.max = maxTextBytes, 4096
	cmd := exec.CommandContext(ctx, "pdftotext", "-layout", "-enc", "UTF-8",
		"-l", strconv.Itoa(maxPages), f.Name(), "-")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading the PDF: %w", ctx.Err())
		}
		return nil, pdftotextError(err, stderr.String())
	}
	if stdout.overflow {
		return nil, fmt.Errorf("the PDF's text is longer than %d MB", maxTextBytes>>20)
	}
	return splitFormFeeds(stdout.String()), nil
}

// pdftotextError explains a pdftotext failure from what it printed and its exit status
// (documented in its man page).
func pdftotextError(err error, stderr string) error {
	if strings.Contains(strings.ToLower(stderr), "password") {
		return ErrEncrypted
	}
	reason := err.Error()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case 1:
			reason = "the file is damaged or not a PDF"
		case 3:
			reason = "the PDF's permissions do not allow copying its text"
		}
	}
	return fmt.Errorf("pdftotext could not read the PDF: %s", reason)
}

// splitFormFeeds splits pdftotext output into pages; the form feed after the last page ends
// it rather than starting another.
func splitFormFeeds(text string) []string {
	text = strings.TrimSuffix(text, "\f")
	return strings.Split(text, "\f")
}

// limitedBuffer keeps the first max bytes written to it and notes whether more came.
type limitedBuffer struct {
	bytes.Buffer
	max      int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.overflow = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
