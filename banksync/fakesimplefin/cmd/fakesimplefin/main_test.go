package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tally/banksync/fakesimplefin"
)

// The command serves the demo data to a client that claims the printed token, fails as told,
// logs each request and stops with its context.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stdoutW := io.Pipe()
	var stderr syncBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-fail-every", "3", "-fail-with", "503"}, stdoutW, &stderr)
		stdoutW.Close()
	}()

	var token string
	for lines := bufio.NewScanner(stdout); token == "" && lines.Scan(); {
		if tok, ok := strings.CutPrefix(lines.Text(), "setup token: "); ok {
			token = tok
		}
	}
	claimURL, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("setup token %q: %v", token, err)
	}
	resp, err := http.Post(string(claimURL), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	accounts := strings.TrimSpace(string(body)) + "/accounts"

	start := strconv.FormatInt(time.Now().AddDate(0, 0, -demoDays-1).Unix(), 10)
	var set struct {
		Accounts []struct {
			ID               string `json:"id"`
			Balance          string `json:"balance"`
			AvailableBalance string `json:"available-balance"`
			Transactions     []struct {
				Posted  int64 `json:"posted"`
				Pending bool  `json:"pending"`
			} `json:"transactions"`
			Holdings []json.RawMessage `json:"holdings"`
		} `json:"accounts"`
	}
	if status := getJSON(t, accounts+"?pending=1&start-date="+start, &set); status != http.StatusOK {
		t.Fatalf("first GET /accounts: %d", status)
	}
	if len(set.Accounts) != 3 {
		t.Fatalf("%d accounts, want checking, card and brokerage", len(set.Accounts))
	}
	checking, card, brokerage := set.Accounts[0], set.Accounts[1], set.Accounts[2]
	pending := 0
	for _, a := range set.Accounts[:2] {
		for _, tx := range a.Transactions {
			if tx.Pending {
				pending++
			}
		}
	}
	if first := checking.Transactions[0].Posted; pending != 3 || time.Since(time.Unix(first, 0)) < (demoDays-3)*24*time.Hour {
		t.Errorf("%d pending, first posted %v: want 3 pending and about %d days of history", pending, time.Unix(first, 0), demoDays)
	}
	if checking.AvailableBalance == checking.Balance || !strings.HasPrefix(card.Balance, "-") || len(brokerage.Holdings) != 2 {
		t.Errorf("balances %s/%s, card %s, %d holdings", checking.Balance, checking.AvailableBalance, card.Balance, len(brokerage.Holdings))
	}

	if status := getJSON(t, accounts, &set); status != http.StatusOK {
		t.Errorf("second GET /accounts: %d", status)
	}
	if status := getJSON(t, accounts, nil); status != http.StatusServiceUnavailable {
		t.Errorf("third GET /accounts: %d, want -fail-every 3's 503", status)
	}

	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("run: %v", err)
	}
	if log := stderr.String(); !strings.Contains(log, "path=/simplefin/accounts") || !strings.Contains(log, "status=503") {
		t.Errorf("log lacks the requests:\n%s", log)
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-fail-with", "sometimes"},
		{"-fail-with", "200"},
		{"-addr", "not an address"},
		{"-nope"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestParseFault(t *testing.T) {
	for how, want := range map[string]fakesimplefin.Fault{
		"503":       {Status: 503},
		"429":       {Status: 429, RetryAfter: time.Hour},
		"reset":     {Reset: true},
		"timeout":   {Delay: time.Hour},
		"malformed": {Body: `{"errors":[],"accounts":[{"id":`},
	} {
		got, err := parseFault(how)
		if err != nil || got.Status != want.Status || got.RetryAfter != want.RetryAfter ||
			got.Reset != want.Reset || got.Delay != want.Delay || got.Body != want.Body {
			t.Errorf("parseFault(%q) = %+v, %v; want %+v", how, got, err, want)
		}
	}
}

// getJSON GETs u and decodes a 200's body into v (nil: discard).
func getJSON(t *testing.T, u string, v any) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && v != nil {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// syncBuffer is a bytes.Buffer the server's goroutines can log into while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
