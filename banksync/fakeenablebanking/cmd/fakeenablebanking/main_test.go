package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tally/banksync"
	"tally/config"
)

// The command writes its key, prints the environment Tally starts with, serves the demo banks
// to a client signing with that key, and stops with its context.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	stdout, stdoutW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-key", keyFile}, stdoutW, io.Discard)
		stdoutW.Close()
	}()
	env := map[string]string{"EXCHANGE_RATES_URL": "none"}
	for lines := bufio.NewScanner(stdout); env["ENABLE_BANKING_API_URL"] == "" && lines.Scan(); {
		for _, f := range strings.Fields(lines.Text()) {
			if k, v, ok := strings.Cut(f, "="); ok && strings.HasPrefix(k, "ENABLE_BANKING_") {
				env[k] = v
			}
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if info, err := os.Stat(keyFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", info, err)
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("Tally does not start with the printed environment: %v", err)
	}
	client := &banksync.EBClient{BaseURL: cfg.EnableBankingAPIURL, AppID: cfg.EnableBankingAppID, Key: cfg.EnableBankingKey.Key,
		Transport: &banksync.Client{AllowInsecure: true}}
	banks, err := client.ASPSPs(ctx, "DE")
	if err != nil || len(banks) != 2 || !banks[1].Decoupled() {
		t.Fatalf("banks %+v, %v", banks, err)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not stop")
	}
}
