package statement

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
)

var methods = []string{MethodPdftotext, MethodGo}

func TestExtractRejectsFilesThatAreNotPDFs(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("date,amount\n2024-01-01,5\n"), []byte(" %PDF-1.7"), []byte("%PDF")} {
		if _, _, err := ExtractText(context.Background(), data); !errors.Is(err, ErrNotPDF) {
			t.Errorf("ExtractText(%q) error = %v, want ErrNotPDF", data, err)
		}
		for _, m := range methods {
			if _, err := ExtractTextWith(context.Background(), data, m); !errors.Is(err, ErrNotPDF) {
				t.Errorf("ExtractTextWith(%q, %s) error = %v, want ErrNotPDF", data, m, err)
			}
		}
	}
	if !strings.Contains(ErrNotPDF.Error(), "not a PDF") {
		t.Errorf("ErrNotPDF says %q, which does not say what is wrong", ErrNotPDF)
	}
}

func TestExtractReportsDamagedPDFs(t *testing.T) {
	good := buildPDF(t, singleColumnBank(false)...)
	damaged := map[string][]byte{
		"garbage after the header": []byte("%PDF-1.4\nthis is not a PDF body at all\n%%EOF\n"),
		"header only":              []byte("%PDF-1.7"),
		"cut in the middle":        good[:len(good)/3],
		"bad xref": append(append([]byte{}, good[:len(good)-60]...),
			[]byte("startxref\n999999999\n%%EOF\n")...),
	}
	for name, data := range damaged {
		for _, m := range methods {
			t.Run(name+"/"+m, func(t *testing.T) {
				if m == MethodPdftotext {
					requirePdftotext(t)
				}
				pages, err := ExtractTextWith(context.Background(), data, m)
				// pdftotext repairs some damage; what matters is an error or text, never a panic
				// and never empty success.
				if err == nil && len(pages) == 0 {
					t.Errorf("no error and no pages")
				}
				if err != nil && err.Error() == "" {
					t.Errorf("an error without a message")
				}
				if err != nil && !errors.Is(err, ErrUnreadable) && !errors.Is(err, ErrNotPDF) {
					t.Errorf("error %v, want ErrUnreadable or ErrNotPDF", err)
				}
				checkNoPath(t, err)
			})
		}
	}
	for _, m := range methods {
		if m == MethodPdftotext {
			continue
		}
		if _, err := ExtractTextWith(context.Background(), damaged["garbage after the header"], m); err == nil {
			t.Errorf("%s read a PDF with no body without an error", m)
		}
	}
}

func TestExtractPDFWithoutText(t *testing.T) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.AddPage()
	doc.Rect(20, 20, 100, 50, "D") // a scanned page would be an image: no text either way
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatal(err)
	}
	for _, m := range methods {
		t.Run(m, func(t *testing.T) {
			if m == MethodPdftotext {
				requirePdftotext(t)
			}
			if _, err := ExtractTextWith(context.Background(), buf.Bytes(), m); !errors.Is(err, ErrNoText) {
				t.Errorf("error = %v, want ErrNoText", err)
			}
		})
	}
}

func TestExtractTextChoosesPdftotextWhenInstalled(t *testing.T) {
	pdf := buildPDF(t, creditCard()...)
	t.Run("installed", func(t *testing.T) {
		requirePdftotext(t)
		pages, method, err := ExtractText(context.Background(), pdf)
		if err != nil || method != MethodPdftotext {
			t.Fatalf("ExtractText = method %q, error %v; want pdftotext", method, err)
		}
		if len(pages) != 1 || !strings.Contains(pages[0], "GROCERY MART") {
			t.Errorf("pages = %q", pages)
		}
	})
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		pages, method, err := ExtractText(context.Background(), pdf)
		if err != nil || method != MethodGo {
			t.Fatalf("ExtractText = method %q, error %v; want go", method, err)
		}
		if len(pages) != 1 || !strings.Contains(pages[0], "GROCERY MART") {
			t.Errorf("pages = %q", pages)
		}
	})
	t.Run("not installed, with a PDF too large to read", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		bomb := pagesPDF(1, streamObject("/Filter /FlateDecode", deflate(t, repeated(" ", 20<<20))))
		if _, method, err := ExtractText(context.Background(), bomb); method != MethodGo || !errors.Is(err, ErrTooComplex) {
			t.Fatalf("ExtractText = method %q, error %v; want go and ErrTooComplex", method, err)
		}
	})
	t.Run("installed, failing on the file", func(t *testing.T) {
		requirePdftotext(t)
		damaged := []byte("%PDF-1.4\nthis is not a PDF body at all\n%%EOF\n")
		pages, method, err := ExtractText(context.Background(), damaged)
		// pdftotext's error, classified; the Go reader is not tried.
		if pages != nil || method != MethodPdftotext || !errors.Is(err, ErrUnreadable) {
			t.Fatalf("ExtractText = %q, method %q, error %v; want pdftotext's unreadable error", pages, method, err)
		}
		var e *ExtractError
		if !errors.As(err, &e) || !strings.Contains(e.Detail(), "Couldn't find trailer dictionary") {
			t.Errorf("error %#v does not keep what pdftotext said for the log", err)
		}
		checkNoPath(t, err)
	})
}

// checkNoPath checks that an error's message names no file: no temporary file, no directory.
func checkNoPath(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if msg := err.Error(); strings.Contains(msg, os.TempDir()) || strings.Contains(msg, "statement-") || strings.Contains(msg, "/") {
		t.Errorf("error %q names a file", msg)
	}
}

func TestExtractHonoursContext(t *testing.T) {
	pdf := buildPDF(t, multiPageBank()...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range methods {
		t.Run(m, func(t *testing.T) {
			if m == MethodPdftotext {
				requirePdftotext(t)
			}
			if _, err := ExtractTextWith(ctx, pdf, m); !errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, want context.Canceled", err)
			}
		})
	}
}

func TestExtractTextWithUnknownMethod(t *testing.T) {
	_, err := ExtractTextWith(context.Background(), []byte("%PDF-1.7"), "ocr")
	if err == nil || !strings.Contains(err.Error(), `"ocr"`) {
		t.Errorf("error = %v, want one naming the method", err)
	}
}

func TestSplitFormFeeds(t *testing.T) {
	got := splitFormFeeds("one\n\ftwo\n\f")
	if len(got) != 2 || got[0] != "one\n" || got[1] != "two\n" {
		t.Errorf("splitFormFeeds = %q", got)
	}
}

func TestExtractPasswordProtectedPDF(t *testing.T) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetProtection(0, "secret", "owner")
	doc.AddPage()
	doc.SetFont("Courier", "", 9)
	doc.Text(20, 20, "01/02/2024  DEPOSIT  1.00")
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatal(err)
	}
	for _, m := range methods {
		t.Run(m, func(t *testing.T) {
			if m == MethodPdftotext {
				requirePdftotext(t)
			}
			if _, err := ExtractTextWith(context.Background(), buf.Bytes(), m); !errors.Is(err, ErrEncrypted) {
				t.Errorf("error = %v, want ErrEncrypted", err)
			}
		})
	}
}
