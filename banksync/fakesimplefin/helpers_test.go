package fakesimplefin_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"tally/banksync/fakesimplefin"
)

// accountSet is what a client reads of an answer to GET /accounts, v1 or v2.
type accountSet struct {
	Errors  []string `json:"errors"`
	Errlist []struct {
		Code      string `json:"code"`
		Msg       string `json:"msg"`
		ConnID    string `json:"conn_id"`
		AccountID string `json:"account_id"`
	} `json:"errlist"`
	Connections []struct {
		ConnID string `json:"conn_id"`
	} `json:"connections"`
	Accounts []struct {
		ID     string `json:"id"`
		ConnID string `json:"conn_id"`
		Org    *struct {
			Domain  string `json:"domain"`
			SFINURL string `json:"sfin-url"`
		} `json:"org"`
		Balance          string `json:"balance"`
		AvailableBalance string `json:"available-balance"`
		BalanceDate      int64  `json:"balance-date"`
		Transactions     []struct {
			ID           string `json:"id"`
			Posted       int64  `json:"posted"`
			TransactedAt int64  `json:"transacted_at"`
			Amount       string `json:"amount"`
			Description  string `json:"description"`
			Pending      bool   `json:"pending"`
		} `json:"transactions"`
		Holdings []struct {
			ID          string `json:"id"`
			MarketValue string `json:"market_value"`
		} `json:"holdings"`
	} `json:"accounts"`
}

// transactionIDs maps each account of the answer to its transaction ids, in order.
func (set accountSet) transactionIDs() map[string][]string {
	m := map[string][]string{}
	for _, a := range set.Accounts {
		m[a.ID] = []string{}
		for _, t := range a.Transactions {
			m[a.ID] = append(m[a.ID], t.ID)
		}
	}
	return m
}

// newSample starts a fake with the reference's sample dataset, its clock at SampleNow, and
// returns it with an access URL.
func newSample(t *testing.T) (*fakesimplefin.Server, string) {
	t.Helper()
	s := fakesimplefin.NewTest(t)
	s.LoadSample()
	s.SetNow(fakesimplefin.SampleNow)
	return s, s.NewAccessURL()
}

// get GETs u with c and returns the answer with its body read.
func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", u, err)
	}
	return resp, string(body)
}

// getAccounts GETs {accessURL}/accounts?query, expecting status, and decodes the answer.
func getAccounts(t *testing.T, accessURL, query string, status int) accountSet {
	t.Helper()
	resp, body := get(t, http.DefaultClient, accessURL+"/accounts?"+query)
	if resp.StatusCode != status {
		t.Fatalf("GET /accounts?%s: status %d, want %d; body %s", query, resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET /accounts?%s: Content-Type %q", query, ct)
	}
	var set accountSet
	if err := json.Unmarshal([]byte(body), &set); err != nil {
		t.Fatalf("GET /accounts?%s: %v; body %s", query, err, body)
	}
	return set
}

// claim POSTs to a setup token's claim URL, with no body, as a client must.
func claim(t *testing.T, c *http.Client, token string) (int, string) {
	t.Helper()
	claimURL, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("setup token %q: %v", token, err)
	}
	resp, err := c.Post(string(claimURL), "", nil)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// epochQuery formats start-date and end-date (zero: left out).
func epochQuery(start, end time.Time) string {
	var q []string
	if !start.IsZero() {
		q = append(q, "start-date="+strconv.FormatInt(start.Unix(), 10))
	}
	if !end.IsZero() {
		q = append(q, "end-date="+strconv.FormatInt(end.Unix(), 10))
	}
	return strings.Join(q, "&")
}
