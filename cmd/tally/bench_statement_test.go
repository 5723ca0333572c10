package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
)

// BenchmarkStatementUploads sends the real server what issue 28 measured, each case to a
// server of its own: eight 8 MB OFX files of unclosed tags at once (they took it to 1.84 GB),
// and a valid 10 MB MT940 of 350,000 entries stored for review (748 MB). It reports the
// server's peak memory and fails past 300 MB.
func BenchmarkStatementUploads(b *testing.B) {
	bin := buildBinary(b)
	hostile := "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX>" + strings.Repeat("<A>", (8<<20)/3)
	valid, _ := bankfiletest.LargeMT940(bankfile.MaxBytes)
	cases := []struct {
		name, typ, content string
		at                 int // uploads at once
		want               int // status
	}{
		{"eight hostile OFX at once", "OfxImport", hostile, 8, http.StatusUnprocessableEntity},
		{"a 10 MB MT940", "Mt940Import", string(valid), 1, http.StatusCreated},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			srv := newBenchServer(b, bin)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(map[string]any{"type": c.typ, "raw_file_content": c.content})
			for b.Loop() {
				var wg sync.WaitGroup
				for range c.at {
					wg.Go(func() {
						req, _ := http.NewRequest(http.MethodPost, srv.base+"/api/v1/imports", bytes.NewReader(buf.Bytes()))
						req.Header.Set("Content-Type", "application/json")
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
