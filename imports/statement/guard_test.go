package statement

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// rawPDF writes a PDF by hand: objects[i] is the body of object i+1. Object 1 must be the
// catalog. The cross-reference table is computed.
func rawPDF(objects ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		b.Write(o)
		b.WriteString("\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// streamObject is a stream object's body; a non-empty filter names how data is encoded.
func streamObject(dict string, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<< %s /Length %d >>\nstream\n", dict, len(data))
	b.Write(data)
	b.WriteString("\nendstream")
	return b.Bytes()
}

// deflate compresses what write writes.
func deflate(t testing.TB, write func(w io.Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	write(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// repeated writes s until n bytes have been written.
func repeated(s string, n int) func(w io.Writer) {
	return func(w io.Writer) {
		chunk := []byte(strings.Repeat(s, max(1, (64<<10)/len(s))))
		for written := 0; written < n; written += len(chunk) {
			w.Write(chunk)
		}
	}
}

// pagesPDF builds a PDF of n pages in Courier, each drawn by the content stream in object
// content (given as a stream object's body), plus any extra objects after it.
func pagesPDF(n int, content []byte, extra ...[]byte) []byte {
	objects := [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		nil, // the page tree, below
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>"),
		content,
	}
	objects = append(objects, extra...)
	var kids []string
	for range n {
		objects = append(objects, []byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "+
			"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objects)))
	}
	objects[1] = []byte(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	return rawPDF(objects...)
}

const helloContent = "BT /F1 12 Tf 72 720 Td (01/02/2024  DEPOSIT  1.00) Tj ET\n"

func TestGoReaderReadsHandWrittenPDF(t *testing.T) {
	for _, tt := range []struct {
		name string
		pdf  []byte
	}{
		{"plain", pagesPDF(2, streamObject("", []byte(helloContent)))},
		{"deflated", pagesPDF(2, streamObject("/Filter /FlateDecode", deflate(t, repeated(helloContent, 1))))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := ExtractTextWith(context.Background(), tt.pdf, MethodGo)
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if len(pages) != 2 || !strings.Contains(pages[1], "01/02/2024  DEPOSIT  1.00") {
				t.Errorf("pages = %q", pages)
			}
		})
	}
}

func TestGoReaderRefusesDecompressionBombs(t *testing.T) {
	bomb := func(n int) []byte { return deflate(t, repeated(helloContent+strings.Repeat(" ", 200), n)) }
	big := bomb(100 << 20)
	tests := []struct {
		name string
		pdf  []byte
	}{
		{"one stream of 100 MB", pagesPDF(1, streamObject("/Filter /FlateDecode", big))},
		{"many pages sharing a stream of 6 MB", pagesPDF(40, streamObject("/Filter /FlateDecode", bomb(6<<20)))},
		// A string holding "stream" hides the dictionary from the guard, which must then
		// measure the stream as if it were compressed.
		{"a stream of 100 MB whose dictionary is hidden", pagesPDF(1, streamObject("/Filter /FlateDecode /Note (a stream\n)", big))},
		{"ASCII85 and Flate", pagesPDF(1, streamObject("/Filter [/ASCII85Decode /FlateDecode]", ascii85Of(big)))},
		{"an object stream of 100 MB", pagesPDF(1, streamObject("", []byte(helloContent)),
			streamObject("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", big))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ExtractTextWith(context.Background(), tt.pdf, MethodGo)
			if !errors.Is(err, ErrTooComplex) {
				t.Fatalf("error = %v, want ErrTooComplex", err)
			}
			if err.Error() != ErrTooComplex.Error() {
				t.Errorf("error says %q, want %q", err, ErrTooComplex)
			}
			var e *ExtractError
			if !errors.As(err, &e) || e.Kind != ErrKindTooComplex || e.Err == nil {
				t.Errorf("error %#v is not a too_complex ExtractError with detail", err)
			} else {
				t.Logf("detail: %s", e.Detail())
			}
		})
	}
}

// ascii85Of encodes data as an ASCII85 stream body.
func ascii85Of(data []byte) []byte {
	var b bytes.Buffer
	w := ascii85.NewEncoder(&b)
	w.Write(data)
	w.Close()
	b.WriteString("~>")
	return b.Bytes()
}

// withFont builds a one-page PDF whose content uses font F2, the given font dictionary, with
// any extra objects (numbered from 6).
func withFont(content, font string, extra ...[]byte) []byte {
	objects := [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F2 5 0 R >> >> /Contents 4 0 R >>"),
		streamObject("", []byte(content)),
		[]byte(font),
	}
	return rawPDF(append(objects, extra...)...)
}

func TestGoReaderChecksToUnicodeMaps(t *testing.T) {
	const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Mapped /ToUnicode 6 0 R >>"
	const content = "BT /F2 12 Tf 72 720 Td (\x01\x02) Tj ET"
	cmap := func(entries string) []byte {
		return streamObject("", []byte("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"+
			"1 begincodespacerange <00> <FF> endcodespacerange\n"+entries+"\nendcmap CMapName currentdict /CMap defineresource pop end end"))
	}
	t.Run("a small map is used", func(t *testing.T) {
		pdf := withFont(content, font, cmap("2 beginbfchar <01> <0041> <02> <00420043> endbfchar"))
		pages, err := ExtractTextWith(context.Background(), pdf, MethodGo)
		if err != nil || len(pages) != 1 || !strings.Contains(pages[0], "ABC") {
			t.Fatalf("pages %q, error %v; want the mapped text ABC", pages, err)
		}
	})
	for name, entries := range map[string]string{
		"one code mapped to a long text": "1 beginbfchar <01> <" + strings.Repeat("0041", 300) + "> endbfchar",
		"a huge entry count":             "1000000000 beginbfchar <01> <0041> endbfchar",
		"a count reused by end operators": "1000 beginbfchar <01> <0041> endbfchar" +
			strings.Repeat(" endbfchar", 200),
		"PostScript dictionaries":       strings.Repeat("<< >> begin ", 1000),
		"a count defined as a variable": "12 dict begin /N 1000000000 def N beginbfchar <01> <0041> endbfchar end",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ExtractTextWith(context.Background(), withFont(content, font, cmap(entries)), MethodGo)
			if !errors.Is(err, ErrTooComplex) {
				t.Fatalf("error = %v, want ErrTooComplex", err)
			}
		})
	}
}

func TestGoReaderRefusesHugeStructures(t *testing.T) {
	plain := pagesPDF(1, streamObject("", []byte(helloContent)))
	xref := bytes.LastIndex(plain, []byte("\nxref\n")) + 1
	withTrailer := func(trailer string) []byte {
		i := bytes.LastIndex(plain, []byte("trailer\n"))
		return append(append([]byte{}, plain[:i]...), []byte(fmt.Sprintf("%s\nstartxref\n%d\n%%%%EOF\n", trailer, xref))...)
	}
	tests := []struct {
		name string
		pdf  []byte
		want error
	}{
		{"cross-reference section for huge object numbers", bytes.Replace(plain, []byte("trailer\n"),
			[]byte("4000000000 1\n0000000010 00000 n \ntrailer\n"), 1), ErrTooComplex},
		{"cross-reference chain that loops", withTrailer(fmt.Sprintf("trailer\n<< /Size 6 /Root 1 0 R /Prev %d >>", xref)),
			ErrUnreadable},
		{"page tree that contains itself", onePage("/Kids [2 0 R 5 0 R]", "/Contents 4 0 R"), ErrTooComplex},
		{"page drawn by many streams", onePage("/Kids [5 0 R]", "/Contents ["+strings.Repeat("4 0 R ", 5000)+"]"), ErrTooComplex},
		{"predictor with huge rows", pagesPDF(1, streamObject("/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 100000000000 >>",
			deflate(t, repeated(helloContent, 1)))), ErrTooComplex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ExtractTextWith(context.Background(), tt.pdf, MethodGo)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

// onePage builds a PDF of one page with the given page tree kids and page contents.
func onePage(kids, contents string) []byte {
	return rawPDF(
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages "+kids+" /Count 1 >>"),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>"),
		streamObject("", []byte(helloContent)),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> "+contents+" >>"),
	)
}

// loopingPDF is a PDF the library, left alone, would read forever: the page's content is in an
// object stream that extends itself and does not hold it.
func loopingPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := map[int]int{}
	obj := func(n int, body string) {
		offsets[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	obj(2, "<< /Type /Pages /Kids [5 0 R] /Count 1 >>")
	obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>")
	obj(5, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
	obj(6, "<< /Type /ObjStm /N 0 /First 1 /Extends 6 0 R /Length 1 >>\nstream\n \nendstream")
	offsets[7] = b.Len()
	var table bytes.Buffer
	for n := range 8 {
		switch {
		case n == 0:
			table.Write([]byte{0, 0, 0, 0, 0, 0xff, 0xff})
		case n == 4: // in object stream 6
			table.Write([]byte{2, 0, 0, 0, 6, 0, 0})
		default:
			off := offsets[n]
			table.Write([]byte{1, byte(off >> 24), byte(off >> 16), byte(off >> 8), byte(off), 0, 0})
		}
	}
	fmt.Fprintf(&b, "7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", table.Len())
	b.Write(table.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", offsets[7])
	return b.Bytes()
}

// waitGoroutines waits for the number of goroutines to come back to n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines are still running, want %d: the reader did not stop", runtime.NumGoroutine(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestGoReaderStopsWhenTheContextEnds(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := ExtractTextWith(ctx, loopingPDF(), MethodGo)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want context.DeadlineExceeded", err)
	}
	waitGoroutines(t, before)

	// Without a deadline of the caller's, the reader has its own.
	defer func(d time.Duration) { defaultExtractTimeout = d }(defaultExtractTimeout)
	defaultExtractTimeout = 200 * time.Millisecond
	_, err = ExtractTextWith(context.Background(), loopingPDF(), MethodGo)
	if !errors.Is(err, ErrTooComplex) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("error = %v, want a too_complex error saying it took too long", err)
	}
	waitGoroutines(t, before)
}

func TestGoReaderStopsInTheMiddleOfAPage(t *testing.T) {
	// Many glyphs, each placed on its own: slow to lay out, but within every limit.
	spread := "BT 1 0 Td (x) Tj 1 0 Td (y) Tj 0 -12 Td (z) Tj ET "
	pdf := pagesPDF(60, streamObject("/Filter /FlateDecode", deflate(t, repeated(spread, 300<<10))))
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := ExtractTextWith(ctx, pdf, MethodGo); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	waitGoroutines(t, before)
}
