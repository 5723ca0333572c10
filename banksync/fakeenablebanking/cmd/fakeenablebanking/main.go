// Command fakeenablebanking runs a fake Enable Banking API (package fakeenablebanking) to try
// Tally's European bank sync by hand:
//
//	go run ./banksync/fakeenablebanking/cmd/fakeenablebanking [-addr 127.0.0.1:8788] [-key .data/fake-enable-banking.pem]
//
// It makes an application key, writes it to -key (mode 0600), and prints the environment to
// start Tally with. It serves two German banks dated from today: Demobank (a current account
// with 90 days of transactions, in pages of 25, some pending, some unsigned with
// credit_debit_indicator, some named only in postal addresses; and a savings account) and
// App Bank, which approves in its app (the fake's page has a button standing in for the
// app). It logs every request to stderr.
package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"tally/banksync/fakeenablebanking"
	"tally/banksync/internal/fakecmd"
)

func main() { fakecmd.Main("fakeenablebanking", run) }

// run is the whole program, with its environment passed in, so that tests run it as main does.
// It serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("fakeenablebanking", flag.ContinueOnError)
	addr := flags.String("addr", "127.0.0.1:8788", "`address` to listen on")
	keyFile := flags.String("key", filepath.Join(".data", "fake-enable-banking.pem"), "`file` to write the application's private key to")
	if done, err := fakecmd.Parse(flags, args, stderr); done {
		return err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	s := fakeenablebanking.NewWithKey("fake-enable-banking-app", key)
	if err := os.MkdirAll(filepath.Dir(*keyFile), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(*keyFile, []byte(s.PrivateKeyPEM()), 0o600); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	s.URL = "http://" + ln.Addr().String()
	s.SetPageSize(25)
	seedDemo(s, time.Now().UTC())

	log := slog.New(slog.NewTextHandler(stderr, nil))
	srv := &http.Server{Handler: logRequests(log, s), ReadHeaderTimeout: 10 * time.Second}
	abs, _ := filepath.Abs(*keyFile)
	fmt.Fprintf(stdout, "fake Enable Banking API on %s\n", s.URL)
	fmt.Fprintf(stdout, "start Tally with:\nENABLE_BANKING_APP_ID=%s ENABLE_BANKING_PRIVATE_KEY_FILE=%s ENABLE_BANKING_API_URL=%s BANKSYNC_ALLOW_INSECURE=true make run\n",
		s.AppID, abs, s.URL)

	return fakecmd.Serve(ctx, srv, ln, nil)
}

// seedDemo adds the demo banks, dated back from now.
func seedDemo(s *fakeenablebanking.Server, now time.Time) {
	s.AddASPSP(fakeenablebanking.ASPSP{Name: "Demobank", Country: "DE"})
	s.AddASPSP(fakeenablebanking.ASPSP{Name: "App Bank", Country: "DE", Decoupled: true})
	day := func(n int) string { return now.AddDate(0, 0, -n).Format(time.DateOnly) }
	var giro []fakeenablebanking.Transaction
	balance := 250000 // cents
	for i := 90; i >= 1; i-- {
		switch {
		case i%30 == 2:
			giro = append(giro, fakeenablebanking.Transaction{EntryReference: "salary-" + day(i), Amount: "3100.00", Indicator: "CRDT", Status: "BOOK",
				BookingDate: day(i), Debtor: &fakeenablebanking.Party{Address: []string{"Beispiel GmbH", "Hauptstraße 1", "10115 Berlin"}},
				Remittance: []string{"Gehalt " + now.AddDate(0, 0, -i).Format("01/2006")}})
			balance += 310000
		case i%30 == 3:
			giro = append(giro, fakeenablebanking.Transaction{EntryReference: "rent-" + day(i), Amount: "-1150.00", Status: "BOOK", BookingDate: day(i),
				Creditor: &fakeenablebanking.Party{Name: "Hausverwaltung Muster"}, Remittance: []string{"Miete"}})
			balance -= 115000
		}
		if i%3 == 0 {
			cents := 1500 + i*137%4000
			giro = append(giro, fakeenablebanking.Transaction{TransactionID: "card-" + day(i), Amount: money(cents), Indicator: "DBIT", Status: "BOOK",
				BookingDate: day(i), ValueDate: day(i), Creditor: &fakeenablebanking.Party{Name: "Supermarkt Nord"}, Remittance: []string{"Kartenzahlung"}})
			balance -= cents
		}
	}
	// Pending: one with its id and day, one with neither.
	giro = append(giro,
		fakeenablebanking.Transaction{EntryReference: "pending-coffee", Amount: "3.80", Indicator: "DBIT", Status: "PDNG", TransactionDate: day(0),
			Creditor: &fakeenablebanking.Party{Name: "Café am Eck"}},
		fakeenablebanking.Transaction{Amount: "-54.20", Status: "PDNG", Creditor: &fakeenablebanking.Party{Address: []string{"Tankstelle Süd"}}})
	s.AddAccount("Demobank", fakeenablebanking.Account{Key: "demo-giro", IBAN: "DE89370400440532013000", Name: "Girokonto", Currency: "EUR",
		Balances: map[string]string{"CLBD": money(balance), "CLAV": money(balance - 5800)}, BalanceDate: day(0), Transactions: giro})
	s.AddAccount("Demobank", fakeenablebanking.Account{Key: "demo-savings", IBAN: "DE02120300000000202051", Name: "Tagesgeld", Currency: "EUR",
		CashType: "SVGS", Balances: map[string]string{"ITBD": "12000.00"}})
	s.AddAccount("App Bank", fakeenablebanking.Account{Key: "app-giro", IBAN: "DE44500105175407324931", Name: "Konto", Currency: "EUR",
		Balances: map[string]string{"CLBD": "830.15"},
		Transactions: []fakeenablebanking.Transaction{{EntryReference: "app-1", Amount: "19.99", Indicator: "DBIT", Status: "BOOK", BookingDate: day(2),
			Creditor: &fakeenablebanking.Party{Name: "Streaming AG"}}}})
}

func money(cents int) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return sign + strconv.Itoa(cents/100) + "." + fmt.Sprintf("%02d", cents%100)
}

// logRequests logs each request once answered. It never logs the Authorization header.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		next.ServeHTTP(w, r)
		log.Info("request", "method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery, "duration", time.Since(start).Round(time.Millisecond))
	})
}
