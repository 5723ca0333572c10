package fakesimplefin_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"tally/banksync/fakesimplefin"
)

// Every change to the dataset shows on the next request.
func TestMutationsShowOnTheNextRequest(t *testing.T) {
	day2 := time.Unix(1773662400, 0) // 2026-03-16T12:00Z, the reference's day-2 scenario
	for _, tc := range []struct {
		name   string
		change func(s *fakesimplefin.Server) (newID string)
		check  func(t *testing.T, set accountSet, newID string)
	}{
		{"Post settles a pending row under a new id", func(s *fakesimplefin.Server) string {
			s.Advance(25 * time.Hour) // past day2: end-date (default now) is exclusive
			return s.Post("TRN-1001-05", day2)
		}, func(t *testing.T, set accountSet, newID string) {
			ids := set.transactionIDs()["ACT-1001"]
			if slices.Contains(ids, "TRN-1001-05") || !strings.HasPrefix(newID, "TRN-") || ids[len(ids)-1] != newID {
				t.Fatalf("transactions %v, want TRN-1001-05 replaced by %s", ids, newID)
			}
			tx := set.Accounts[0].Transactions[len(ids)-1]
			if tx.Posted != day2.Unix() || tx.TransactedAt != 1773505200 || tx.Amount != "-6.48" || tx.Pending {
				t.Errorf("posted row %+v, want posted %d, transacted_at and amount kept, not pending", tx, day2.Unix())
			}
		}},
		{"RotateID changes only the id", func(s *fakesimplefin.Server) string {
			return s.RotateID("TRN-1001-03")
		}, func(t *testing.T, set accountSet, newID string) {
			tx := set.Accounts[0].Transactions[2]
			if tx.ID != newID || newID == "TRN-1001-03" || tx.Posted != 1773144000 || tx.Amount != "-87.23" || tx.Description != "WHOLEFDS #10234" {
				t.Errorf("third checking row %+v, want TRN-1001-03's fields under %s", tx, newID)
			}
		}},
		{"DeleteTransaction removes it", func(s *fakesimplefin.Server) string {
			s.DeleteTransaction("TRN-2002-03")
			return ""
		}, func(t *testing.T, set accountSet, _ string) {
			if ids := set.transactionIDs()["ACT-2002"]; slices.Contains(ids, "TRN-2002-03") {
				t.Errorf("card transactions %v still hold TRN-2002-03", ids)
			}
		}},
		{"SetBalance changes the balances, dated now", func(s *fakesimplefin.Server) string {
			s.SetBalance("ACT-2002", "-1315.51", "")
			return ""
		}, func(t *testing.T, set accountSet, _ string) {
			a := set.Accounts[1]
			if a.Balance != "-1315.51" || a.AvailableBalance != "" || a.BalanceDate != fakesimplefin.SampleNow.Unix() {
				t.Errorf("card %s %q %d, want -1315.51, no available balance, dated SampleNow", a.Balance, a.AvailableBalance, a.BalanceDate)
			}
		}},
		{"AddAccount and AddTransaction add them", func(s *fakesimplefin.Server) string {
			s.AddAccount(fakesimplefin.Account{
				ID: "ACT-4004", ConnID: "CON-A", Name: "Savings", Currency: "USD", Balance: "10.00",
				BalanceDate: fakesimplefin.SampleNow,
			})
			s.AddTransaction("ACT-4004", fakesimplefin.Transaction{
				ID: "TRN-4004-01", Posted: fakesimplefin.SampleNow.Add(-time.Hour), Amount: "10.00", Description: "DEPOSIT",
			})
			return ""
		}, func(t *testing.T, set accountSet, _ string) {
			if ids := set.transactionIDs()["ACT-4004"]; !slices.Equal(ids, []string{"TRN-4004-01"}) {
				t.Errorf("new account's transactions %v", ids)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, access := newSample(t)
			getAccounts(t, access, "pending=1", http.StatusOK)
			newID := tc.change(s)
			tc.check(t, getAccounts(t, access, "pending=1", http.StatusOK), newID)
		})
	}
}

func TestMutationsRefuseUnknownIDs(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	s.LoadSample()
	for name, f := range map[string]func(){
		"Post of an unknown transaction":  func() { s.Post("TRN-NOPE", time.Now()) },
		"Post of a posted transaction":    func() { s.Post("TRN-1001-01", time.Now()) },
		"a transaction id reused":         func() { s.AddTransaction("ACT-1001", fakesimplefin.Transaction{ID: "TRN-1001-01"}) },
		"an account without a connection": func() { s.AddAccount(fakesimplefin.Account{ID: "ACT-X", ConnID: "CON-X"}) },
		"an error for an unknown account": func() { s.AccountError("ACT-X", "x") },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}
