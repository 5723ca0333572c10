package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
	"tally/testkit"
)

// BenchmarkStatementUploads sends the real server what issue 28 measured, each case to a
// server of its own: eight 8 MB OFX files of unclosed tags at once (they took it to 1.84 GB),
// and a valid 10 MB MT940 of 350,000 entries stored for review (748 MB). It reports the
// server's peak memory and fails past 300 MB.
func BenchmarkStatementUploads(b *testing.B) {
	hostile := "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX>" + strings.Repeat("<A>", (8<<20)/3)
	valid, _ := bankfiletest.LargeMT940(bankfile.MaxBytes)
	uploadPeaks(b, []uploadCase{
		{"eight hostile OFX at once", jsonUpload("OfxImport", []byte(hostile)), 8, http.StatusUnprocessableEntity},
		{"a 10 MB MT940", jsonUpload("Mt940Import", valid), 1, http.StatusCreated},
	})
}

// BenchmarkFileUploads sends the real server a 10 MB file of each format issue 40 found read
// whole, each to a server of its own, stored for review, and eight 10 MB JSON bodies at once.
// It reports the server's peak memory and fails past 300 MB.
func BenchmarkFileUploads(b *testing.B) {
	const size = bankfile.MaxBytes
	file := func(content []byte, _ int) []byte { return content }
	pdf, _ := testkit.LargeStatementPDF(b, size)
	// A CSV as JSON escapes it: a quote and a line break in every line.
	escaped := strings.Repeat("2024-01-02,\"Coffee \"\"to go\"\"\",-4.50\n", size/40)
	uploadPeaks(b, []uploadCase{
		{"a 10 MB QIF", jsonUpload("QifImport", file(testkit.LargeQIF(size))), 1, http.StatusCreated},
		{"a 10 MB Mint export", jsonUpload("ExternalAppAImport", file(testkit.LargeAppExport("ExternalAppAImport", size))), 1, http.StatusCreated},
		{"a 10 MB Actual export", jsonUpload("ExternalAppBImport", file(testkit.LargeAppExport("ExternalAppBImport", size))), 1, http.StatusCreated},
		{"a 10 MB YNAB export", jsonUpload("ExternalAppCImport", file(testkit.LargeAppExport("ExternalAppCImport", size))), 1, http.StatusCreated},
		{"a 10 MB category file", jsonUpload("CategoryImport", file(testkit.LargeCategories(size))), 1, http.StatusCreated},
		{"a 10 MB merchant file", jsonUpload("MerchantImport", file(testkit.LargeMerchants(size))), 1, http.StatusCreated},
		{"a 10 MB rule file", jsonUpload("RuleImport", file(testkit.LargeRules(size))), 1, http.StatusCreated},
		{"a 10 MB PDF statement of 500 pages", fileUpload("PdfImport", "statement.pdf", "application/pdf", pdf), 1, http.StatusCreated},
		// Each body is read whole before a reader slot is taken; a PdfImport, which must come
		// as a file, is refused once it is.
		{"eight 10 MB JSON bodies at once", jsonUpload("PdfImport", []byte(escaped)), 8, http.StatusUnprocessableEntity},
	})
}

// uploadCase is a request a benchmark sends, at once from several clients, and the status
// each must get.
type uploadCase struct {
	name string
	// body is the request's body and content type, for the server's user and an account of
	// theirs.
	body func(account string) (body []byte, contentType string)
	at   int // requests at once
	want int
}

// jsonUpload sends content as raw_file_content, as the benchmarks of issue 28 did.
func jsonUpload(typ string, content []byte) func(string) ([]byte, string) {
	return func(account string) ([]byte, string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"type": typ, "account_id": account, "raw_file_content": string(content)})
		return buf.Bytes(), "application/json"
	}
}

// fileUpload sends content as a multipart file.
func fileUpload(typ, filename, contentType string, content []byte) func(string) ([]byte, string) {
	return func(account string) ([]byte, string) {
		return multipartFile(map[string]string{"type": typ, "account_id": account}, filename, contentType, content)
	}
}

// multipartFile is a multipart body of the fields and the file.
func multipartFile(fields map[string]string, filename, contentType string, content []byte) ([]byte, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	part, _ := w.CreatePart(map[string][]string{"Content-Disposition": {`form-data; name="file"; filename="` + filename + `"`},
		"Content-Type": {contentType}})
	part.Write(content)
	w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

// uploadPeaks sends each case to a server of its own, reports the server's peak memory and
// fails past 300 MB.
func uploadPeaks(b *testing.B, cases []uploadCase) {
	bin := buildBinary(b)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			srv := newBenchServer(b, bin)
			account := testkit.MustCreateAccount(b, srv.d, srv.user.FamilyID, "Checking", "Depository", "").ID.String()
			body, contentType := c.body(account)
			for b.Loop() {
				var wg sync.WaitGroup
				for range c.at {
					wg.Go(func() {
						req, _ := http.NewRequest(http.MethodPost, srv.base+"/api/v1/imports", bytes.NewReader(body))
						req.Header.Set("Content-Type", contentType)
						req.Header.Set("X-Api-Key", srv.key)
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						resp.Body.Close()
						if resp.StatusCode != c.want {
							b.Errorf("answered %d, want %d", resp.StatusCode, c.want)
						}
					})
				}
				wg.Wait()
			}
			peak := float64(peakRSS(b, srv.process.Process.Pid)) / 1024
			b.ReportMetric(peak, "peak-rss-MB")
			if peak > 300 {
				b.Fatalf("the server's memory peaked at %.0f MB, want under 300 MB", peak)
			}
		})
	}
}
