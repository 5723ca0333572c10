package banksync

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/shopspring/decimal"

	"tally/internal/netguard"
	"tally/models"
)

// EnableBankingURL is Enable Banking's production API.
const EnableBankingURL = "https://api.enablebanking.com"

// ErrSessionExpired is a session the provider no longer serves: its consent ran out, or the
// person revoked it at the bank. The connection needs a renewal.
var ErrSessionExpired = errors.New("the bank's consent has expired or was revoked")

// AccountNotCoveredError is a linked account the bank answers 404 for: it is closed, or the
// consent no longer covers it. Reading it again cannot help, so the connection needs a
// renewal rather than spending the day's reads on retries.
type AccountNotCoveredError struct{ Name string }

func (e *AccountNotCoveredError) Error() string {
	return fmt.Sprintf("the bank no longer serves the account %q under this consent", e.Name)
}

// accountRead is the error of reading the linked account ba: a 404 is AccountNotCoveredError.
func accountRead(ba BankAccount, err error) error {
	var e *ebError
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return &AccountNotCoveredError{Name: ba.Name}
	}
	return err
}

// EBClient speaks Enable Banking's API: every request carries a JWT signed with the
// application's private key.
type EBClient struct {
	// BaseURL is the API's root (ENABLE_BANKING_API_URL).
	BaseURL string
	// AppID is the application's id, the JWT's kid.
	AppID string
	// Key signs the JWTs. It is never logged: Tally reads it once at start.
	Key *rsa.PrivateKey
	// Transport is shared with the SimpleFIN client: its HTTP client, insecure switch,
	// attempts and sleep.
	Transport *Client
	// Now is the JWT's clock; nil is time.Now.
	Now func() time.Time
}

// Configured reports whether an application id and key were given.
func (c *EBClient) Configured() bool { return c != nil && c.AppID != "" && c.Key != nil }

// token is a fresh JWT for one request: an hour's validity, well inside the API's 24 hours.
func (c *EBClient) token() (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: c.Key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", c.AppID))
	if err != nil {
		return "", err
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	return jwt.Signed(signer).Claims(jwt.Claims{Issuer: "enablebanking.com", Audience: jwt.Audience{"api.enablebanking.com"},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour))}).Serialize()
}

// ASPSP is a bank the provider reaches.
type ASPSP struct {
	Name    string `json:"name"`
	Country string `json:"country"`
	Logo    string `json:"logo,omitempty"`
	BIC     string `json:"bic,omitempty"`
	// MaxConsentSeconds is the longest consent the bank gives (maximum_consent_validity).
	MaxConsentSeconds int64 `json:"maximum_consent_validity,omitempty"`
	// HistoryDays is how far back the bank serves transactions, when the provider says.
	HistoryDays int          `json:"transaction_total_days,omitempty"`
	PSUTypes    []string     `json:"psu_types,omitempty"`
	AuthMethods []AuthMethod `json:"auth_methods,omitempty"`
}

// AuthMethod is one way a bank authorises: approach REDIRECT, DECOUPLED or EMBEDDED.
type AuthMethod struct {
	Name     string `json:"name,omitempty"`
	Approach string `json:"approach"`
	PSUType  string `json:"psu_type,omitempty"`
}

// Decoupled reports whether the bank approves in its own app rather than on a page it
// redirects through: its personal methods are all decoupled.
func (a ASPSP) Decoupled() bool {
	decoupled := false
	for _, m := range a.AuthMethods {
		if m.PSUType != "" && m.PSUType != "personal" {
			continue
		}
		if m.Approach != "DECOUPLED" {
			return false
		}
		decoupled = true
	}
	return decoupled
}

// MaxHistoryDays is the most history the bank gives, within Tally's 730 days.
func (a ASPSP) MaxHistoryDays() int {
	if a.HistoryDays > 0 && a.HistoryDays < 730 {
		return a.HistoryDays
	}
	return 730
}

// ASPSPs lists the banks of a country (an ISO 3166 code). A bank whose name is longer than a
// name may be (models.MaxName) is left out: its name goes back to the provider as it is, to
// start and renew a consent, so it cannot be cut, and it is not stored whole.
func (c *EBClient) ASPSPs(ctx context.Context, country string) ([]ASPSP, error) {
	var out struct {
		ASPSPs []ASPSP `json:"aspsps"`
	}
	err := c.do(ctx, http.MethodGet, "/aspsps", url.Values{"country": {country}, "psu_type": {"personal"}}, nil, &out)
	return slices.DeleteFunc(out.ASPSPs, func(a ASPSP) bool { _, long := models.Clip(a.Name, models.MaxName); return long }), err
}

// AuthRequest starts an authorisation at a bank.
type AuthRequest struct {
	ASPSP       string
	Country     string
	ValidUntil  time.Time
	State       string
	RedirectURL string
}

// StartAuth asks the provider for the bank's authorisation URL (POST /auth).
func (c *EBClient) StartAuth(ctx context.Context, r AuthRequest) (string, error) {
	body := map[string]any{
		"access":       map[string]any{"valid_until": r.ValidUntil.UTC().Format(time.RFC3339)},
		"aspsp":        map[string]string{"name": r.ASPSP, "country": r.Country},
		"state":        r.State,
		"redirect_url": r.RedirectURL,
		"psu_type":     "personal",
	}
	var out struct {
		URL string `json:"url"`
	}
	if err := c.do(ctx, http.MethodPost, "/auth", nil, body, &out); err != nil {
		return "", err
	}
	u, err := url.Parse(out.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", errors.New("the provider's authorisation URL is not a web address")
	}
	return u.String(), nil
}

// EBSession is a session the provider made from an authorisation's code.
type EBSession struct {
	ID         string
	Accounts   []EBAccount
	ValidUntil *time.Time
	ASPSP      string
	Country    string
}

// EBAccount is one of a session's accounts.
type EBAccount struct {
	UID      string
	IBAN     string
	Other    string // another identification when there is no IBAN
	Name     string
	Currency string
	Product  string
	CashType string // cash_account_type: CACC, SVGS, CARD, LOAN, ...
	// Hash is the provider's identification_hash: the same account in every session.
	Hash string
}

// Key names the account across sessions: the provider's identification hash, else its
// IBAN or other identification, else (nothing better) the session's uid; bounded as every
// provider id is (providerID).
func (a EBAccount) Key() string {
	switch {
	case a.Hash != "":
		return providerID("hash:" + a.Hash)
	case a.IBAN != "":
		return "iban:" + a.IBAN
	case a.Other != "":
		return providerID("other:" + a.Other)
	}
	return providerID("uid:" + a.UID)
}

// maxIBAN is the longest an IBAN is (ISO 13616).
const maxIBAN = 34

// ibanOf is the account's IBAN without spaces, in capitals, or "" for one longer than an IBAN
// can be, which is no IBAN.
func ibanOf(raw string) string {
	iban := strings.ToUpper(strings.Join(strings.Fields(raw), ""))
	if len(iban) > maxIBAN {
		return ""
	}
	return iban
}

type wireEBAccount struct {
	UID       string `json:"uid"`
	AccountID *struct {
		IBAN  string `json:"iban"`
		Other *struct {
			Identification string `json:"identification"`
		} `json:"other"`
	} `json:"account_id"`
	Name     string `json:"name"`
	Details  string `json:"details"`
	Product  string `json:"product"`
	Currency string `json:"currency"`
	CashType string `json:"cash_account_type"`
	Hash     string `json:"identification_hash"`
}

type wireEBSession struct {
	SessionID string          `json:"session_id"`
	Accounts  []wireEBAccount `json:"accounts"`
	ASPSP     struct {
		Name    string `json:"name"`
		Country string `json:"country"`
	} `json:"aspsp"`
	Access struct {
		ValidUntil string `json:"valid_until"`
	} `json:"access"`
}

// CreateSession exchanges the callback's code for a session (POST /sessions).
func (c *EBClient) CreateSession(ctx context.Context, code string) (*EBSession, error) {
	var w wireEBSession
	if err := c.do(ctx, http.MethodPost, "/sessions", nil, map[string]string{"code": code}, &w); err != nil {
		return nil, err
	}
	if w.SessionID == "" {
		return nil, errors.New("the provider's answer holds no session")
	}
	s := &EBSession{ID: w.SessionID, ASPSP: w.ASPSP.Name, Country: w.ASPSP.Country}
	if t, err := time.Parse(time.RFC3339, w.Access.ValidUntil); err == nil {
		s.ValidUntil = &t
	}
	for _, a := range w.Accounts {
		if a.UID == "" {
			continue
		}
		acct := EBAccount{UID: a.UID, Name: sanitize(orDefault(a.Name, orDefault(a.Product, a.Details))), Currency: currencyCode(a.Currency),
			Product: sanitize(a.Product), CashType: sanitize(a.CashType), Hash: a.Hash}
		if a.AccountID != nil {
			acct.IBAN = ibanOf(a.AccountID.IBAN)
			if a.AccountID.Other != nil {
				acct.Other = sanitize(a.AccountID.Other.Identification)
			}
		}
		if acct.Name == "" {
			acct.Name = "Account"
		}
		s.Accounts = append(s.Accounts, acct)
	}
	return s, nil
}

// DeleteSession closes the session at the provider (DELETE /sessions/{id}).
func (c *EBClient) DeleteSession(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/sessions/"+url.PathEscape(id), nil, nil, nil)
}

// SessionStatus is the session's state at the provider (GET /sessions/{id}): AUTHORIZED,
// EXPIRED, REVOKED, CLOSED, ...
func (c *EBClient) SessionStatus(ctx context.Context, id string) (string, error) {
	var out struct {
		Status string `json:"status"`
	}
	err := c.do(ctx, http.MethodGet, "/sessions/"+url.PathEscape(id), nil, nil, &out)
	return out.Status, err
}

// EBBalance is one of an account's balances.
type EBBalance struct {
	Type   string
	Amount decimal.Decimal
	Date   *time.Time
}

// Balances reads an account's balances (GET /accounts/{uid}/balances).
func (c *EBClient) Balances(ctx context.Context, uid string) ([]EBBalance, error) {
	var w struct {
		Balances []struct {
			Type   string     `json:"balance_type"`
			Amount wireAmount `json:"balance_amount"`
			Date   string     `json:"reference_date"`
		} `json:"balances"`
	}
	if err := c.do(ctx, http.MethodGet, "/accounts/"+url.PathEscape(uid)+"/balances", nil, nil, &w); err != nil {
		return nil, err
	}
	var out []EBBalance
	for _, b := range w.Balances {
		amount := lenientDecimal(b.Amount.Amount)
		if amount == nil {
			continue
		}
		out = append(out, EBBalance{Type: b.Type, Amount: *amount, Date: parseDay(b.Date)})
	}
	return out, nil
}

type wireAmount struct {
	Amount   json.RawMessage `json:"amount"`
	Currency string          `json:"currency"`
}

type wireParty struct {
	Name          string `json:"name"`
	PostalAddress *struct {
		AddressLine []string `json:"address_line"`
	} `json:"postal_address"`
}

// name is the party's name, else its postal address's first line (where some banks put it).
func (p *wireParty) name() string {
	if p == nil {
		return ""
	}
	if n := sanitize(p.Name); n != "" {
		return n
	}
	if p.PostalAddress != nil {
		for _, l := range p.PostalAddress.AddressLine {
			if l = sanitize(l); l != "" {
				return l
			}
		}
	}
	return ""
}

type wireEBTransaction struct {
	EntryReference  string     `json:"entry_reference"`
	TransactionID   string     `json:"transaction_id"`
	Amount          wireAmount `json:"transaction_amount"`
	Indicator       string     `json:"credit_debit_indicator"`
	Status          string     `json:"status"`
	BookingDate     string     `json:"booking_date"`
	ValueDate       string     `json:"value_date"`
	TransactionDate string     `json:"transaction_date"`
	Creditor        *wireParty `json:"creditor"`
	Debtor          *wireParty `json:"debtor"`
	RemittanceInfo  []string   `json:"remittance_information"`
}

// Transactions reads an account's transactions from the day from on (GET
// /accounts/{uid}/transactions), following continuation_key to the last page; read is the
// day it reads them, the date of a pending entry that has none. pages is how many requests
// it took.
func (c *EBClient) Transactions(ctx context.Context, uid string, from, read time.Time) (txs []Transaction, pages int, err error) {
	q := url.Values{"date_from": {from.UTC().Format(time.DateOnly)}}
	for {
		var w struct {
			Transactions    []wireEBTransaction `json:"transactions"`
			ContinuationKey string              `json:"continuation_key"`
		}
		pages++
		if err := c.do(ctx, http.MethodGet, "/accounts/"+url.PathEscape(uid)+"/transactions", q, nil, &w); err != nil {
			return nil, pages, err
		}
		for _, t := range w.Transactions {
			if tx, ok := ebTransaction(t, read); ok {
				txs = append(txs, tx)
			}
		}
		if w.ContinuationKey == "" || pages >= 500 {
			return txs, pages, nil
		}
		q.Set("continuation_key", w.ContinuationKey)
	}
}

// ebTransaction is the provider's transaction in the sync's shape: positive is money in.
func ebTransaction(t wireEBTransaction, read time.Time) (Transaction, bool) {
	amount := lenientDecimal(t.Amount.Amount)
	if amount == nil {
		return Transaction{}, false
	}
	// An unsigned amount takes its sign from the indicator; a signed one keeps its own.
	a := *amount
	switch strings.ToUpper(t.Indicator) {
	case "DBIT":
		a = a.Abs().Neg()
	case "CRDT":
		a = a.Abs()
	}
	// The name is the other party: the creditor when money goes out, the debtor when it
	// comes in, each from its postal address when the bank puts the name only there.
	name := ""
	if a.IsNegative() {
		name = orDefault(t.Creditor.name(), t.Debtor.name())
	} else {
		name = orDefault(t.Debtor.name(), t.Creditor.name())
	}
	var memo []string
	for _, r := range t.RemittanceInfo {
		if r = strings.TrimSpace(r); r != "" {
			memo = append(memo, r)
		}
	}
	tx := Transaction{Amount: a, Payee: strings.TrimSpace(name), Memo: sanitize(strings.Join(memo, " ")),
		Pending: strings.ToUpper(t.Status) == "PDNG"}
	if tx.Payee == "" {
		tx.Description = tx.Memo
	}
	booked := parseDay(t.BookingDate)
	happened := firstDay(t.TransactionDate, t.ValueDate, t.BookingDate)
	if tx.Pending {
		// A pending entry without any date is booked on the day it was read.
		if happened == nil {
			d := read.UTC().Truncate(24 * time.Hour)
			happened = &d
		}
		tx.TransactedAt = happened
	} else {
		tx.Posted = booked
		if tx.Posted == nil {
			tx.Posted = firstDay(t.ValueDate, t.TransactionDate)
		}
		if tx.Posted == nil {
			return Transaction{}, false
		}
		tx.TransactedAt = happened
	}
	tx.ID = orDefault(strings.TrimSpace(t.EntryReference), strings.TrimSpace(t.TransactionID))
	if tx.ID == "" {
		tx.ID = contentKey(tx)
	}
	tx.ID = providerID(tx.ID)
	return tx, true
}

// contentKey keys a transaction the bank gives no id for by what it says: its day, amount,
// party and text. A pending one's key includes that it is pending, so that when it posts
// under another key the sync matches it as a pending entry that settled.
func contentKey(t Transaction) string {
	day := t.TransactedAt
	if !t.Pending && t.Posted != nil {
		day = t.Posted
	}
	kind := "B"
	if t.Pending {
		kind = "P"
	}
	return fmt.Sprintf("content:%s:%s:%s:%s:%s", kind, day.Format(time.DateOnly), t.Amount.String(),
		strings.ToLower(t.Payee), strings.ToLower(t.Memo))
}

func parseDay(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return &t
}

func firstDay(days ...string) *time.Time {
	for _, d := range days {
		if t := parseDay(d); t != nil {
			return t
		}
	}
	return nil
}

// ebError is the provider's error answer.
type ebError struct {
	Status  int
	Code    string
	Message string
}

func (e *ebError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("the provider answered HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("the provider answered HTTP %d", e.Status)
}

// do makes one API call: the path under BaseURL, the query encoded, the body as JSON. GETs
// are tried again on network errors and 5xx; 429 is a *RateLimitedError and an expired or
// revoked session ErrSessionExpired.
func (c *EBClient) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	if !c.Configured() {
		return errors.New("Enable Banking is not configured: set ENABLE_BANKING_APP_ID and its private key")
	}
	base, err := url.Parse(c.BaseURL)
	if err != nil || base.Host == "" {
		return errors.New("ENABLE_BANKING_API_URL is not a URL")
	}
	if !c.Transport.AllowInsecure && (base.Scheme != "https" || netguard.Private(base.Hostname())) {
		return errors.New("ENABLE_BANKING_API_URL must be https on a public address (BANKSYNC_ALLOW_INSECURE allows others)")
	}
	target := strings.TrimSuffix(c.BaseURL, "/") + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	attempts := 1
	if method == http.MethodGet {
		attempts = max(c.Transport.Attempts, 3)
	}
	var last error
	for i := range attempts {
		if i > 0 {
			if err := c.Transport.sleep(ctx, backoff(i)); err != nil {
				return err
			}
		}
		retry, err := c.once(ctx, method, target, payload, out)
		if err == nil || !retry {
			return err
		}
		last = err
	}
	return last
}

func (c *EBClient) once(ctx context.Context, method, target string, payload []byte, out any) (bool, error) {
	token, err := c.token()
	if err != nil {
		return false, fmt.Errorf("sign the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(payload))
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Tally Enable Banking client")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Transport.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, fmt.Errorf("reach the provider: %w", redact(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return true, fmt.Errorf("read the provider's answer: %w", redact(err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil || len(bytes.TrimSpace(raw)) == 0 {
			return false, nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return true, errors.New("the provider's answer is not the JSON it should be")
		}
		return false, nil
	}
	var w struct {
		Error   string `json:"error"`
		Code    any    `json:"code"`
		Message string `json:"message"`
		Detail  any    `json:"detail"`
	}
	_ = json.Unmarshal(raw, &w)
	e := &ebError{Status: resp.StatusCode, Code: strings.ToUpper(w.Error), Message: sanitize(w.Message)}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return false, &RateLimitedError{}
	case strings.Contains(e.Code, "SESSION") || strings.Contains(e.Code, "CONSENT"):
		return false, fmt.Errorf("%w (%s)", ErrSessionExpired, e.Code)
	case resp.StatusCode >= 500:
		return true, e
	}
	return false, e
}
