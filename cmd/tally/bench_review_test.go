package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"tally/internal/benchstat"
	"tally/internal/db"
	"tally/testkit"
)

// reviewRows is how many rows BenchmarkReviewUpload uploads, and reviewBound the most its
// upload for review may take as a multiple of their publish.
const (
	reviewRows  = 20_000
	reviewBound = 1.5
)

// BenchmarkReviewUpload measures an upload for review: a file of 20,000 transactions sent with
// publish=false (the API's default, and the browser's first step), from the POST to the
// server's answer, which ends with the count of the rows already in the account. The account
// holds an earlier file's transactions, published before the rounds, so the staged rows' table
// has statistics, as on any server after its first publish, and the new import's rows are in
// none of them. Each round times a bare COPY of the rows, the upload for review, and the
// publish of the same file (upload to complete); their medians are compared.
//
// The upload for review does a part of the publish's work (the publish looks for the same
// duplicates, then writes), so it takes 0.45 to 0.75 times as long. The benchmark fails when
// the ratio of the medians is over reviewBound, which leaves room for the noise of a shared
// machine (a round can take twice as long as the next) and none for a count that grows
// faster than the rows: when it joined the rows with themselves, 20,000 rows took 29 s
// against 0.6 s for the publish.
func BenchmarkReviewUpload(b *testing.B) {
	srv := newBenchServer(b, buildBinary(b))
	d := srv.d
	acct := testkit.MustCreateAccount(b, d, srv.user.FamilyID, "Checking", "Depository", "")
	request := func(s csvShape, publish bool) []byte {
		body, _ := json.Marshal(map[string]any{"raw_file_content": s.csv(), "date_format": "%Y-%m-%d",
			"publish": strconv.FormatBool(publish), "account_id": acct.ID.String()})
		return body
	}
	shape := csvShapes[2]
	shape.name, shape.rows = "review", reviewRows
	// The earlier file has the same days but other amounts, so that each new row's probe finds
	// its day's entries and none of the rows is a duplicate, not even a likely one: the
	// publish writes them all.
	earlier := shape
	earlier.line = func(i int) string { return strings.Replace(shape.line(i), ",-", ",-1000", 1) }
	waitComplete(b, d, postImport(b, srv.base, srv.key, request(earlier, true)))
	review, publish := request(shape, false), request(shape, true)
	bare := newBareCopy(b, srv.url, srv.user.FamilyID, shape)
	defer bare.close()

	b.ResetTimer()
	var copies, reviews, publishes []time.Duration
	for range b.N {
		for range publishRounds {
			copies = append(copies, bare.run(b))
			reviews = append(reviews, reviewOnce(b, d, srv.base, srv.key, review))
			publishes = append(publishes, publishOnce(b, d, srv.base, srv.key, publish, shape))
		}
	}
	b.StopTimer()
	rev, pub, cp := benchstat.Median(reviews), benchstat.Median(publishes), benchstat.Median(copies)
	ratio := rev.Seconds() / pub.Seconds()
	b.ReportMetric(rev.Seconds()/cp.Seconds(), "x-copy")
	b.ReportMetric(ratio, "x-publish")
	fmt.Printf("upload for review (%d rows): %s; bare COPY %s, ratio %.2fx; publish %s (%.2fx the COPY); review/publish %.2fx "+
		"(bound %.1fx; medians of %d rounds, reviews %s, publishes %s, copies %s)\n",
		shape.rows, rev.Round(time.Millisecond), cp.Round(time.Millisecond), rev.Seconds()/cp.Seconds(), pub.Round(time.Millisecond),
		pub.Seconds()/cp.Seconds(), ratio, reviewBound, len(reviews), rounded(reviews), rounded(publishes), rounded(copies))
	if ratio > reviewBound {
		b.Fatalf("the upload for review took %s, %.2fx the publish of the same rows (%s); the bound is %.1fx",
			rev.Round(time.Millisecond), ratio, pub.Round(time.Millisecond), reviewBound)
	}
}

// reviewOnce uploads the file for review and times it to the server's answer; the import is
// then taken away.
func reviewOnce(b *testing.B, d *db.DB, base, key string, body []byte) time.Duration {
	testkit.Checkpoint(b)
	start := time.Now()
	id := postImport(b, base, key, body)
	elapsed := time.Since(start)
	if status, _ := importStatus(b, d, id); status != "pending" {
		b.Fatalf("the import for review is %s", status)
	}
	removeImport(b, d, id)
	return elapsed
}
