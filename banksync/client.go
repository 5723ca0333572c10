// Package banksync keeps a family's accounts in step with a SimpleFIN-protocol bank-data
// provider: it claims a setup token once for an access URL (stored encrypted), reads the
// provider's accounts, and syncs balances and transactions into the linked Tally accounts.
package banksync

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/internal/netguard"
	"tally/models"
)

// Errors the client returns, for the caller to tell the user what to do.
var (
	// ErrTokenRefused is a 403 on claim: the token was used, has expired, or may be
	// compromised.
	ErrTokenRefused = errors.New("the setup token was refused")
	// ErrAccessRevoked is a 403 on /accounts: the connection needs a new setup token.
	ErrAccessRevoked = errors.New("the provider refused the access URL")
	// ErrPaymentRequired is a 402: the user's subscription at the provider has lapsed.
	ErrPaymentRequired = errors.New("the provider wants payment")
)

// RateLimitedError is a 429: the provider wants no more requests for a while.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string { return "the provider is rate limiting requests" }

// ProviderError is an error entry the provider reported in an account set: for one account,
// one connection, or in general. Its message is the provider's, shown to the user sanitized.
type ProviderError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	ConnID    string `json:"conn_id,omitempty"`
	AccountID string `json:"account_id,omitempty"`
}

// userAgent names Tally in every request to the provider.
const userAgent = "Tally SimpleFIN client"

// Client speaks the SimpleFIN protocol.
type Client struct {
	// HTTP is the client; nil builds one that refuses private and loopback addresses
	// unless AllowInsecure.
	HTTP *http.Client
	// AllowInsecure accepts plain http and private or loopback hosts (BANKSYNC_ALLOW_INSECURE,
	// for tests and local fakes).
	AllowInsecure bool
	// Attempts is how many times a request is tried on network errors and 5xx (default 3).
	Attempts int
	// Sleep waits between attempts; nil is time.Sleep honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (c *Client) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !c.AllowInsecure {
		// Refuse private, loopback and link-local addresses at connect time, so that a host
		// resolving to one (now or after a DNS change) is never reached.
		dialer.Control = netguard.Control(false)
	}
	return &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: 10 * time.Second},
		// The claim must not follow redirects (SSRF); other requests keep their host's auth.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ParseSetupToken decodes a pasted setup token into its claim URL. Whitespace anywhere is
// ignored (tokens get wrapped when pasted), and every base64 alphabet is accepted.
func (c *Client) ParseSetupToken(token string) (*url.URL, error) {
	token = strings.Join(strings.Fields(token), "")
	if token == "" {
		return nil, errors.New("Paste the setup token your provider gave you.")
	}
	var raw []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err = enc.DecodeString(token); err == nil {
			break
		}
	}
	if err != nil {
		return nil, errors.New("That is not a setup token: it should be a long base64 text from your provider.")
	}
	u, err := url.Parse(strings.TrimSpace(string(raw)))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, errors.New("That setup token does not hold a claim URL.")
	}
	if err := c.checkURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkURL refuses plain http and private or loopback hosts, unless insecure is allowed.
func (c *Client) checkURL(u *url.URL) error {
	if c.AllowInsecure {
		return nil
	}
	if u.Scheme != "https" {
		return errors.New("The setup token's URL is not https: it cannot be trusted with your bank data.")
	}
	if netguard.Private(u.Hostname()) {
		return errors.New("The setup token's URL points to a private address, which Tally does not contact.")
	}
	return nil
}

// Claim exchanges the setup token for the access URL. It is never retried after an answer:
// a token works once.
func (c *Client) Claim(ctx context.Context, token string) (string, error) {
	u, err := c.ParseSetupToken(token)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.client().Do(req)
	if err != nil {
		return "", fmt.Errorf("claim at %s: %w", u.Host, redact(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusForbidden:
		return "", ErrTokenRefused
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("claim at %s: HTTP %d", u.Host, resp.StatusCode)
	}
	access, err := url.Parse(strings.TrimSpace(string(body)))
	if err != nil || access.User == nil || access.Host == "" {
		return "", fmt.Errorf("claim at %s: the provider's answer is not an access URL", u.Host)
	}
	if err := c.checkURL(access); err != nil {
		return "", err
	}
	return access.String(), nil
}

// Query is what an /accounts request asks for.
type Query struct {
	// Version2 asks for the v2 shape (a server that lists "2.0" at /info); a v1 server
	// ignores it, and both shapes are read.
	Version2     bool
	Start, End   *time.Time
	Pending      bool
	Accounts     []string
	BalancesOnly bool
}

// AccountSet is the provider's answer, in one shape whatever its protocol version.
type AccountSet struct {
	Errors   []ProviderError
	Accounts []Account
}

// Account is one of the provider's accounts.
type Account struct {
	ID, Name, Currency string
	Balance            *decimal.Decimal
	Available          *decimal.Decimal
	BalanceDate        *time.Time
	Institution        string
	Transactions       []Transaction
	Holdings           []Holding
}

// Transaction is one of an account's transactions. Amount follows the protocol: positive is
// money into the account.
type Transaction struct {
	ID           string
	Posted       *time.Time // nil when pending (posted 0)
	TransactedAt *time.Time
	Amount       decimal.Decimal
	Description  string
	Payee, Memo  string
	Pending      bool
}

// Holding is a position in an investment account (a Bridge extension).
type Holding struct {
	ID, Symbol, Description, Currency string
	Shares, MarketValue, CostBasis    decimal.Decimal
}

// Info lists the protocol versions the server speaks (GET /info, which needs no
// credentials), e.g. ["1.0", "2.0"].
func (c *Client) Info(ctx context.Context, accessURL string) ([]string, error) {
	base, _, _, err := splitAccess(accessURL)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base.String(), "/")+"/info", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("reach the provider: %w", redact(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the provider answered HTTP %d to /info", resp.StatusCode)
	}
	var info struct {
		Versions []string `json:"versions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("read the provider's /info: %w", err)
	}
	return info.Versions, nil
}

// Accounts reads the account set: network errors and 5xx are retried with exponential
// backoff and jitter; 403 is ErrAccessRevoked, 429 a *RateLimitedError.
func (c *Client) Accounts(ctx context.Context, accessURL string, q Query) (*AccountSet, error) {
	base, user, pass, err := splitAccess(accessURL)
	if err != nil {
		return nil, err
	}
	v := url.Values{}
	if q.Version2 {
		v.Set("version", "2")
	}
	if q.Start != nil {
		v.Set("start-date", strconv.FormatInt(q.Start.Unix(), 10))
	}
	if q.End != nil {
		v.Set("end-date", strconv.FormatInt(q.End.Unix(), 10))
	}
	if q.Pending { // presence alone turns pending on: omitted when not wanted
		v.Set("pending", "1")
	}
	if q.BalancesOnly {
		v.Set("balances-only", "1")
	}
	for _, a := range q.Accounts {
		v.Add("account", a)
	}
	target := strings.TrimSuffix(base.String(), "/") + "/accounts?" + v.Encode()
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	var last error
	for i := range attempts {
		if i > 0 {
			if err := c.sleep(ctx, backoff(i)); err != nil {
				return nil, err
			}
		}
		set, retry, err := c.get(ctx, target, user, pass)
		if err == nil {
			return set, nil
		}
		if !retry {
			return nil, err
		}
		last = err
	}
	return nil, last
}

// backoff is the wait before attempt i (from 1): exponential with full jitter.
func backoff(i int) time.Duration {
	d := time.Duration(500*(1<<(i-1))) * time.Millisecond
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// get makes one request; retry says whether another attempt may succeed.
func (c *Client) get(ctx context.Context, target, user, pass string) (*AccountSet, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, false, err
	}
	req.SetBasicAuth(user, pass)
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, true, fmt.Errorf("reach the provider: %w", redact(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	switch {
	case err != nil:
		return nil, true, fmt.Errorf("read the provider's answer: %w", redact(err))
	case resp.StatusCode == http.StatusForbidden:
		return nil, false, ErrAccessRevoked
	case resp.StatusCode == http.StatusPaymentRequired:
		return nil, false, ErrPaymentRequired
	case resp.StatusCode == http.StatusTooManyRequests:
		wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return nil, false, &RateLimitedError{RetryAfter: time.Duration(wait) * time.Second}
	case resp.StatusCode >= 500:
		return nil, true, fmt.Errorf("the provider answered HTTP %d", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("the provider answered HTTP %d", resp.StatusCode)
	}
	set, err := decodeAccountSet(body)
	if err != nil {
		return nil, true, err
	}
	return set, false, nil
}

// splitAccess takes the credentials off the access URL: they go in an Authorization header
// set on every request, never in a URL that could be logged.
func splitAccess(accessURL string) (*url.URL, string, string, error) {
	u, err := url.Parse(accessURL)
	if err != nil || u.User == nil {
		return nil, "", "", errors.New("the stored access URL is not valid")
	}
	pass, _ := u.User.Password()
	user := u.User.Username()
	u.User = nil
	return u, user, pass, nil
}

// redact is a transport error's text without any URL (and so any credentials in it). It
// keeps nothing of the error's chain: a provider that cannot be reached is a failed sync, not
// the database going away, which is what db.Unreachable reads a network error as.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return errors.New(ue.Op + ": " + ue.Err.Error())
	}
	return errors.New(err.Error())
}

// Wire shapes, read leniently: numbers may be strings, epochs strings or floats.
type wireSet struct {
	Errors   []json.RawMessage `json:"errors"`
	Errlist  []wireError       `json:"errlist"`
	Conns    []wireConn        `json:"connections"`
	Accounts []wireAccount     `json:"accounts"`
}

type wireError struct {
	Code      string `json:"code"`
	Msg       string `json:"msg"`
	Message   string `json:"message"`
	ConnID    string `json:"conn_id"`
	AccountID string `json:"account_id"`
}

type wireConn struct {
	ConnID string `json:"conn_id"`
	Name   string `json:"name"`
}

type wireAccount struct {
	ID           string                         `json:"id"`
	Name         string                         `json:"name"`
	Currency     string                         `json:"currency"`
	Balance      json.RawMessage                `json:"balance"`
	Available    json.RawMessage                `json:"available-balance"`
	BalanceDate  json.RawMessage                `json:"balance-date"`
	ConnID       string                         `json:"conn_id"`
	Org          *struct{ Name, Domain string } `json:"org"`
	Transactions []wireTransaction              `json:"transactions"`
	Holdings     []wireHolding                  `json:"holdings"`
}

type wireTransaction struct {
	ID           string          `json:"id"`
	Posted       json.RawMessage `json:"posted"`
	TransactedAt json.RawMessage `json:"transacted_at"`
	Amount       json.RawMessage `json:"amount"`
	Description  string          `json:"description"`
	Payee        string          `json:"payee"`
	Memo         string          `json:"memo"`
	Pending      bool            `json:"pending"`
}

type wireHolding struct {
	ID          string          `json:"id"`
	Symbol      string          `json:"symbol"`
	Description string          `json:"description"`
	Currency    string          `json:"currency"`
	Shares      json.RawMessage `json:"shares"`
	MarketValue json.RawMessage `json:"market_value"`
	CostBasis   json.RawMessage `json:"cost_basis"`
}

func decodeAccountSet(body []byte) (*AccountSet, error) {
	var w wireSet
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, errors.New("the provider's answer is not the JSON of an account set")
	}
	set := &AccountSet{}
	for _, raw := range w.Errors { // v1: strings
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			set.Errors = append(set.Errors, ProviderError{Code: "gen", Message: sanitize(s)})
		}
	}
	for _, e := range w.Errlist {
		set.Errors = append(set.Errors, ProviderError{Code: orDefault(e.Code, "gen"), Message: sanitize(orDefault(e.Msg, e.Message)),
			ConnID: e.ConnID, AccountID: e.AccountID})
	}
	conns := map[string]string{}
	for _, c := range w.Conns {
		conns[c.ConnID] = c.Name
	}
	for _, a := range w.Accounts {
		if a.ID == "" {
			continue
		}
		acct := Account{ID: a.ID, Name: sanitize(orDefault(a.Name, "Account")), Currency: currencyCode(a.Currency),
			Balance: lenientDecimal(a.Balance), Available: lenientDecimal(a.Available), BalanceDate: lenientEpoch(a.BalanceDate),
			Institution: sanitize(conns[a.ConnID])}
		if acct.Institution == "" && a.Org != nil {
			acct.Institution = sanitize(orDefault(a.Org.Name, a.Org.Domain))
		}
		for _, t := range a.Transactions {
			amount := lenientDecimal(t.Amount)
			if t.ID == "" || amount == nil {
				continue
			}
			tx := Transaction{ID: providerID(t.ID), Amount: *amount, Description: sanitize(t.Description), Payee: sanitize(t.Payee),
				Memo: sanitize(t.Memo), Posted: lenientEpoch(t.Posted), TransactedAt: lenientEpoch(t.TransactedAt)}
			tx.Pending = t.Pending || tx.Posted == nil
			if tx.Posted == nil && tx.TransactedAt == nil {
				continue // no date at all: nothing to book it on
			}
			acct.Transactions = append(acct.Transactions, tx)
		}
		for _, h := range a.Holdings {
			hd := Holding{ID: providerID(h.ID), Symbol: strings.ToUpper(sanitize(h.Symbol)), Description: sanitize(h.Description), Currency: h.Currency}
			for _, f := range []struct {
				dst *decimal.Decimal
				raw json.RawMessage
			}{{&hd.Shares, h.Shares}, {&hd.MarketValue, h.MarketValue}, {&hd.CostBasis, h.CostBasis}} {
				if d := lenientDecimal(f.raw); d != nil {
					*f.dst = *d
				}
			}
			acct.Holdings = append(acct.Holdings, hd)
		}
		set.Accounts = append(set.Accounts, acct)
	}
	return set, nil
}

func lenientDecimal(raw json.RawMessage) *decimal.Decimal {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if s == "" || s == "null" {
		return nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil || d.Exponent() < -12 || len(s) > 40 {
		return nil
	}
	return &d
}

// lenientEpoch reads epoch seconds from an int, a float or a digit string; 0 is unknown.
func lenientEpoch(raw json.RawMessage) *time.Time {
	d := lenientDecimal(raw)
	if d == nil || !d.IsPositive() || d.GreaterThan(decimal.NewFromInt(1<<40)) {
		return nil
	}
	t := time.Unix(d.IntPart(), 0).UTC()
	return &t
}

// currencyCode is an ISO code, or the last path segment of a custom currency's URL.
func currencyCode(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ToUpper(s)
	if len(s) != 3 {
		return "USD"
	}
	return s
}

// sanitize keeps a provider's text printable and short: it is shown to users.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	// Cut at a character, never inside one: a provider's text is kept as far as a name goes.
	s, _ = models.Clip(s, models.MaxName)
	return s
}

// providerID bounds an id the provider gives, which Tally stores as an external id, to a
// name's length (models.MaxName). A longer one becomes its first characters and a digest of
// the whole: the same id at every sync, and never the same as another one.
func providerID(id string) string {
	if _, long := models.Clip(id, models.MaxName); !long {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	digest := hex.EncodeToString(sum[:])
	prefix, _ := models.Clip(id, models.MaxName-len(digest)-1)
	return prefix + "~" + digest
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
