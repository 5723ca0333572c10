package fakeenablebanking

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// ASPSP is a bank the fake serves.
type ASPSP struct {
	Name    string
	Country string
	// Decoupled banks approve in their own app: the authorisation page waits for it.
	Decoupled bool
	// MaxConsentDays is the longest consent the bank gives (180 when 0).
	MaxConsentDays int
}

// Account is one of a bank's accounts. Key is stable across sessions (its
// identification_hash); each session gives it a uid of its own.
type Account struct {
	Key      string
	IBAN     string
	Name     string
	Currency string
	CashType string // cash_account_type, CACC when empty
	// Balances are its balances by type (CLBD, ITBD, CLAV, ...), as decimal strings.
	Balances map[string]string
	// BalanceDate is the balances' reference_date, when set.
	BalanceDate  string
	Transactions []Transaction
}

// Transaction is a transaction as the API sends it: every field as written, so that tests
// shape each fault (unsigned amounts, no dates, names only in addresses).
type Transaction struct {
	EntryReference  string   `json:"entry_reference,omitempty"`
	TransactionID   string   `json:"transaction_id,omitempty"`
	Amount          string   `json:"-"`
	Currency        string   `json:"-"`
	Indicator       string   `json:"credit_debit_indicator,omitempty"` // CRDT or DBIT
	Status          string   `json:"status"`                           // BOOK or PDNG
	BookingDate     string   `json:"booking_date,omitempty"`
	ValueDate       string   `json:"value_date,omitempty"`
	TransactionDate string   `json:"transaction_date,omitempty"`
	Creditor        *Party   `json:"creditor,omitempty"`
	Debtor          *Party   `json:"debtor,omitempty"`
	Remittance      []string `json:"remittance_information,omitempty"`
}

// Party is a creditor or debtor: a name, or only address lines.
type Party struct {
	Name    string   `json:"name,omitempty"`
	Address []string `json:"-"`
}

// MarshalJSON writes the address as postal_address.address_line.
func (p Party) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if p.Name != "" {
		m["name"] = p.Name
	}
	if len(p.Address) > 0 {
		m["postal_address"] = map[string]any{"address_line": p.Address}
	}
	return json.Marshal(m)
}

// Authorization is a POST /auth the fake answered.
type Authorization struct {
	ID          string
	ASPSP       string
	Country     string
	State       string
	RedirectURL string
	ValidUntil  time.Time
	Approved    bool // in the bank's app (decoupled)
	Code        string
}

// Request is one API request the fake received.
type Request struct {
	Method string
	Path   string
	Query  url.Values
}

type session struct {
	id         string
	aspsp      string
	validUntil time.Time
	uids       map[string]string // uid → account key
	status     string
}

// Server is a fake Enable Banking API. Its methods are safe for concurrent use with the
// requests it serves.
type Server struct {
	// URL is the API's base URL. NewTest sets it; whoever serves a Server from New sets it.
	URL string
	// AppID is the application id JWTs must name as kid.
	AppID string

	key  *rsa.PrivateKey // nil when only the public key is known
	pub  *rsa.PublicKey
	mux  *http.ServeMux
	http *httptest.Server

	mu       sync.Mutex
	aspsps   []ASPSP
	accounts map[string][]*Account // by bank name
	auths    map[string]*Authorization
	codes    map[string]string // code → authorization id
	sessions map[string]*session
	requests []Request
	pageSize int
	limited  int // account reads still to answer 429
	seq      int
}

// New returns a fake that checks JWTs with pub for appID. Serve it after setting URL.
func New(appID string, pub *rsa.PublicKey) *Server {
	s := &Server{AppID: appID, pub: pub, mux: http.NewServeMux(), accounts: map[string][]*Account{}, auths: map[string]*Authorization{},
		codes: map[string]string{}, sessions: map[string]*session{}, pageSize: 50}
	s.mux.HandleFunc("GET /aspsps", s.api(s.serveASPSPs))
	s.mux.HandleFunc("POST /auth", s.api(s.serveAuth))
	s.mux.HandleFunc("POST /sessions", s.api(s.serveCreateSession))
	s.mux.HandleFunc("GET /sessions/{id}", s.api(s.serveSession))
	s.mux.HandleFunc("DELETE /sessions/{id}", s.api(s.serveDeleteSession))
	s.mux.HandleFunc("GET /accounts/{uid}/balances", s.api(s.serveBalances))
	s.mux.HandleFunc("GET /accounts/{uid}/transactions", s.api(s.serveTransactions))
	s.mux.HandleFunc("GET /fake/authorize/{id}", s.serveAuthorizePage)
	s.mux.HandleFunc("POST /fake/authorize/{id}", s.serveAuthorizeDecision)
	s.mux.HandleFunc("POST /fake/app/{id}/approve", s.serveAppApprove)
	return s
}

// testKey is one application key for every fake of a test binary: RSA generation is slow.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// NewTest starts a fake on a loopback server, closed when the test ends, with an application
// key of its own (PrivateKeyPEM).
func NewTest(tb testing.TB) *Server {
	tb.Helper()
	key := testKey()
	s := New("fake-app-"+strconv.Itoa(int(time.Now().UnixNano()%1e6)), &key.PublicKey)
	s.key = key
	s.http = httptest.NewServer(s)
	s.URL = s.http.URL
	tb.Cleanup(s.http.Close)
	return s
}

// NewWithKey is New with the private key known, for PrivateKeyPEM.
func NewWithKey(appID string, key *rsa.PrivateKey) *Server {
	s := New(appID, &key.PublicKey)
	s.key = key
	return s
}

// PrivateKeyPEM is the application's private key as Tally reads it (PKCS#8 PEM).
func (s *Server) PrivateKeyPEM() string {
	der, err := x509.MarshalPKCS8PrivateKey(s.key)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// ServeHTTP answers a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// AddASPSP adds a bank.
func (s *Server) AddASPSP(a ASPSP) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aspsps = append(s.aspsps, a)
}

// AddAccount adds an account to a bank.
func (s *Server) AddAccount(bank string, a Account) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[bank] = append(s.accounts[bank], &a)
}

// AddTransactions adds transactions to an account, by its key.
func (s *Server) AddTransactions(key string, txs ...Transaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.account(key); a != nil {
		a.Transactions = append(a.Transactions, txs...)
	}
}

// Update changes a transaction (found by entry_reference or transaction_id, else by
// content with match) of an account in place: a pending one that posts.
func (s *Server) Update(key string, match func(*Transaction) bool, change func(*Transaction)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.account(key); a != nil {
		for i := range a.Transactions {
			if match(&a.Transactions[i]) {
				change(&a.Transactions[i])
			}
		}
	}
}

// SetBalance sets an account's balance of a type.
func (s *Server) SetBalance(key, typ, amount string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.account(key); a != nil {
		if a.Balances == nil {
			a.Balances = map[string]string{}
		}
		a.Balances[typ] = amount
	}
}

func (s *Server) account(key string) *Account {
	for _, list := range s.accounts {
		for _, a := range list {
			if a.Key == key {
				return a
			}
		}
	}
	return nil
}

// RemoveAccount closes an account at its bank: its reads answer 404 ACCOUNT_DOES_NOT_EXIST.
func (s *Server) RemoveAccount(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for bank, list := range s.accounts {
		s.accounts[bank] = slices.DeleteFunc(list, func(a *Account) bool { return a.Key == key })
	}
}

// SetPageSize sets how many transactions a page holds.
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// ExpireSessions ends every session's consent: account reads answer 401 EXPIRED_SESSION.
func (s *Server) ExpireSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		if ss.status == "AUTHORIZED" {
			ss.status = "EXPIRED"
		}
	}
}

// RateLimit answers the next n account reads with 429.
func (s *Server) RateLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited = n
}

// ApproveInApp approves an authorisation as a decoupled bank's app does.
func (s *Server) ApproveInApp(authID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.auths[authID]; a != nil {
		a.Approved = true
	}
}

// Authorizations returns the authorisations started so far, oldest first.
func (s *Server) Authorizations() []Authorization {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Authorization
	for _, a := range s.auths {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b Authorization) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// SessionStatuses returns each session's status by id.
func (s *Server) SessionStatuses() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for id, ss := range s.sessions {
		out[id] = ss.status
	}
	return out
}

// Requests returns every API request received, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// apiError answers as the API does: a status and a JSON error.
func apiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": status, "error": code, "message": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// api checks the request's JWT and records it before h answers.
func (s *Server) api(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
		s.mu.Unlock()
		if msg := s.checkJWT(r.Header.Get("Authorization")); msg != "" {
			apiError(w, http.StatusUnauthorized, "UNAUTHORIZED", msg)
			return
		}
		h(w, r)
	}
}

// checkJWT says what is wrong with a request's token, or "".
func (s *Server) checkJWT(header string) string {
	raw, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return "no bearer token"
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return "the token is not an RS256 JWT"
	}
	if len(tok.Headers) != 1 || tok.Headers[0].KeyID != s.AppID {
		return "the token's kid is not the application id"
	}
	var c jwt.Claims
	if err := tok.Claims(s.pub, &c); err != nil {
		return "the token's signature does not verify with the application's key"
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: "enablebanking.com", AnyAudience: jwt.Audience{"api.enablebanking.com"}, Time: time.Now()}, time.Minute); err != nil {
		return "the token's claims are not valid: " + err.Error()
	}
	if c.IssuedAt == nil || c.Expiry == nil || c.Expiry.Time().Sub(c.IssuedAt.Time()) > 24*time.Hour {
		return "the token must have iat and an exp at most 24 hours later"
	}
	return ""
}

func (s *Server) aspsp(name, country string) (ASPSP, bool) {
	for _, a := range s.aspsps {
		if a.Name == name && a.Country == country {
			return a, true
		}
	}
	return ASPSP{}, false
}

func (s *Server) serveASPSPs(w http.ResponseWriter, r *http.Request) {
	country := r.URL.Query().Get("country")
	s.mu.Lock()
	defer s.mu.Unlock()
	list := []map[string]any{}
	for _, a := range s.aspsps {
		if country != "" && a.Country != country {
			continue
		}
		approach := "REDIRECT"
		if a.Decoupled {
			approach = "DECOUPLED"
		}
		list = append(list, map[string]any{"name": a.Name, "country": a.Country, "logo": "", "psu_types": []string{"personal"},
			"maximum_consent_validity": int64(maxDays(a)) * 86400, "beta": false,
			"auth_methods": []map[string]any{{"name": "default", "approach": approach, "psu_type": "personal"}}})
	}
	writeJSON(w, map[string]any{"aspsps": list})
}

func maxDays(a ASPSP) int {
	if a.MaxConsentDays > 0 {
		return a.MaxConsentDays
	}
	return 180
}

func (s *Server) nextID(prefix string) string {
	s.seq++
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%04d-%x", prefix, s.seq, b)
}

func (s *Server) serveAuth(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Access struct {
			ValidUntil string `json:"valid_until"`
		} `json:"access"`
		ASPSP struct {
			Name    string `json:"name"`
			Country string `json:"country"`
		} `json:"aspsp"`
		State       string `json:"state"`
		RedirectURL string `json:"redirect_url"`
		PSUType     string `json:"psu_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		apiError(w, http.StatusBadRequest, "WRONG_REQUEST_PARAMETERS", "the body is not JSON")
		return
	}
	validUntil, err := time.Parse(time.RFC3339, body.Access.ValidUntil)
	s.mu.Lock()
	defer s.mu.Unlock()
	bank, ok := s.aspsp(body.ASPSP.Name, body.ASPSP.Country)
	switch {
	case !ok:
		apiError(w, http.StatusNotFound, "ASPSP_NOT_FOUND", "no such bank")
		return
	case err != nil || !validUntil.After(time.Now()) || validUntil.After(time.Now().AddDate(0, 0, maxDays(bank)+1)):
		apiError(w, http.StatusUnprocessableEntity, "WRONG_ACCESS_VALID_UNTIL", "access.valid_until must be in the bank's maximum consent")
		return
	case body.State == "" || body.RedirectURL == "":
		apiError(w, http.StatusUnprocessableEntity, "WRONG_REQUEST_PARAMETERS", "state and redirect_url are required")
		return
	}
	a := &Authorization{ID: s.nextID("auth"), ASPSP: bank.Name, Country: bank.Country, State: body.State, RedirectURL: body.RedirectURL,
		ValidUntil: validUntil}
	s.auths[a.ID] = a
	writeJSON(w, map[string]any{"url": strings.TrimSuffix(s.URL, "/") + "/fake/authorize/" + a.ID, "authorization_id": a.ID})
}

// redirectBack sends the browser to the authorisation's redirect URL with a new code. The
// caller holds s.mu.
func (s *Server) redirectBack(w http.ResponseWriter, r *http.Request, a *Authorization) {
	a.Code = s.nextID("code")
	s.codes[a.Code] = a.ID
	http.Redirect(w, r, withQuery(a.RedirectURL, url.Values{"code": {a.Code}, "state": {a.State}}), http.StatusFound)
}

func withQuery(base string, q url.Values) string {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + q.Encode()
}

var authorizePage = template.Must(template.New("authorize").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Bank}}: authorise Tally</title>
{{if .Waiting}}<meta http-equiv="refresh" content="1">{{end}}</head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 3rem auto">
<h1>{{.Bank}}</h1>
{{if .Waiting}}
<p data-testid="fake-decoupled">Approve the access in your {{.Bank}} app. This page moves on by itself once you have.</p>
<form method="post" action="/fake/app/{{.ID}}/approve"><button data-testid="fake-app-approve">Approve in the app (the fake's stand-in)</button></form>
{{else}}
<p>Tally asks to read your accounts' balances and transactions until {{.ValidUntil}}.</p>
<form method="post"><button name="decision" value="approve" data-testid="fake-approve">Approve</button>
<button name="decision" value="deny" data-testid="fake-deny">Deny</button></form>
{{end}}
</body></html>`))

// authOf finds the authorisation the path's id names, or answers a 404. The caller holds s.mu.
func (s *Server) authOf(w http.ResponseWriter, r *http.Request) *Authorization {
	a := s.auths[r.PathValue("id")]
	if a == nil {
		http.Error(w, "unknown authorisation", http.StatusNotFound)
	}
	return a
}

func (s *Server) serveAuthorizePage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.authOf(w, r)
	if a == nil {
		return
	}
	bank, _ := s.aspsp(a.ASPSP, a.Country)
	if bank.Decoupled && a.Approved && a.Code == "" {
		s.redirectBack(w, r, a)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = authorizePage.Execute(w, map[string]any{"Bank": a.ASPSP, "ID": a.ID, "Waiting": bank.Decoupled && a.Code == "",
		"ValidUntil": a.ValidUntil.Format(time.DateOnly)})
}

func (s *Server) serveAuthorizeDecision(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.authOf(w, r)
	if a == nil {
		return
	}
	if r.FormValue("decision") == "deny" {
		http.Redirect(w, r, withQuery(a.RedirectURL, url.Values{"error": {"access_denied"}, "error_description": {"The person denied the access"},
			"state": {a.State}}), http.StatusFound)
		return
	}
	s.redirectBack(w, r, a)
}

func (s *Server) serveAppApprove(w http.ResponseWriter, r *http.Request) {
	s.ApproveInApp(r.PathValue("id"))
	http.Redirect(w, r, "/fake/authorize/"+r.PathValue("id"), http.StatusSeeOther)
}

func (s *Server) serveCreateSession(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Code string `json:"code"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	defer s.mu.Unlock()
	authID, ok := s.codes[body.Code]
	if !ok {
		apiError(w, http.StatusUnprocessableEntity, "WRONG_AUTHORIZATION_CODE", "the code is unknown or was used")
		return
	}
	delete(s.codes, body.Code) // a code makes one session
	a := s.auths[authID]
	ss := &session{id: s.nextID("sess"), aspsp: a.ASPSP, validUntil: a.ValidUntil, uids: map[string]string{}, status: "AUTHORIZED"}
	var accounts []map[string]any
	for _, acct := range s.accounts[a.ASPSP] {
		uid := s.nextID("acc")
		ss.uids[uid] = acct.Key
		cash := acct.CashType
		if cash == "" {
			cash = "CACC"
		}
		accounts = append(accounts, map[string]any{"uid": uid, "account_id": map[string]any{"iban": acct.IBAN}, "name": acct.Name,
			"currency": acct.Currency, "cash_account_type": cash, "identification_hash": "hash-" + acct.Key})
	}
	s.sessions[ss.id] = ss
	writeJSON(w, map[string]any{"session_id": ss.id, "accounts": accounts, "aspsp": map[string]string{"name": a.ASPSP, "country": a.Country},
		"psu_type": "personal", "access": map[string]string{"valid_until": a.ValidUntil.UTC().Format(time.RFC3339)}})
}

// sessionOf finds the session the path's id names, or answers the API's 404. The caller holds
// s.mu.
func (s *Server) sessionOf(w http.ResponseWriter, r *http.Request) *session {
	ss := s.sessions[r.PathValue("id")]
	if ss == nil {
		apiError(w, http.StatusNotFound, "SESSION_DOES_NOT_EXIST", "no such session")
	}
	return ss
}

func (s *Server) serveSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessionOf(w, r)
	if ss == nil {
		return
	}
	writeJSON(w, map[string]any{"status": ss.status, "accounts": slices.Sorted(mapKeys(ss.uids)),
		"access": map[string]string{"valid_until": ss.validUntil.UTC().Format(time.RFC3339)}})
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (s *Server) serveDeleteSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessionOf(w, r)
	if ss == nil {
		return
	}
	ss.status = "CLOSED"
	writeJSON(w, map[string]string{"message": "OK"})
}

// accountOf finds the account a uid names in a live session, or answers the error. The
// caller holds s.mu.
func (s *Server) accountOf(w http.ResponseWriter, uid string) *Account {
	if s.limited > 0 {
		s.limited--
		apiError(w, http.StatusTooManyRequests, "ASPSP_RATE_LIMIT_EXCEEDED", "the bank's daily limit of unattended reads is reached")
		return nil
	}
	for _, ss := range s.sessions {
		key, ok := ss.uids[uid]
		if !ok {
			continue
		}
		if ss.status != "AUTHORIZED" {
			apiError(w, http.StatusUnauthorized, ss.status+"_SESSION", "the session is "+strings.ToLower(ss.status))
			return nil
		}
		if a := s.account(key); a != nil {
			return a
		}
	}
	apiError(w, http.StatusNotFound, "ACCOUNT_DOES_NOT_EXIST", "no such account")
	return nil
}

func (s *Server) serveBalances(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accountOf(w, r.PathValue("uid"))
	if a == nil {
		return
	}
	var list []map[string]any
	for _, typ := range slices.Sorted(mapKeys(a.Balances)) {
		b := map[string]any{"name": typ, "balance_type": typ, "balance_amount": map[string]string{"amount": a.Balances[typ], "currency": a.Currency}}
		if a.BalanceDate != "" {
			b["reference_date"] = a.BalanceDate
		}
		list = append(list, b)
	}
	writeJSON(w, map[string]any{"balances": list})
}

// continuation is an opaque page key that needs URL-encoding: a space, + / and = in it.
func continuation(offset int) string {
	return "page " + strconv.Itoa(offset) + "+/=" + base64.StdEncoding.EncodeToString([]byte("offset"+strconv.Itoa(offset)))
}

func (s *Server) serveTransactions(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accountOf(w, r.PathValue("uid"))
	if a == nil {
		return
	}
	q := r.URL.Query()
	from, err := time.Parse(time.DateOnly, q.Get("date_from"))
	if q.Get("date_from") != "" && err != nil {
		apiError(w, http.StatusUnprocessableEntity, "WRONG_TRANSACTIONS_PERIOD", "date_from must be YYYY-MM-DD")
		return
	}
	var list []Transaction
	for _, t := range a.Transactions {
		day := t.BookingDate
		if day == "" {
			day = t.ValueDate
		}
		if day == "" {
			day = t.TransactionDate
		}
		if day != "" && !from.IsZero() && day < from.Format(time.DateOnly) {
			continue
		}
		list = append(list, t)
	}
	offset := 0
	if k := q.Get("continuation_key"); k != "" {
		offset = -1
		for o := 0; o <= len(list); o += s.pageSize {
			if continuation(o) == k {
				offset = o
			}
		}
		if offset < 0 {
			apiError(w, http.StatusUnprocessableEntity, "WRONG_CONTINUATION_KEY", "the continuation key is not one this API gave")
			return
		}
	}
	end := min(offset+s.pageSize, len(list))
	page := []map[string]any{}
	for _, t := range list[offset:end] {
		raw, _ := json.Marshal(t)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		ccy := t.Currency
		if ccy == "" {
			ccy = a.Currency
		}
		m["transaction_amount"] = map[string]string{"amount": t.Amount, "currency": ccy}
		page = append(page, m)
	}
	out := map[string]any{"transactions": page}
	if end < len(list) {
		out["continuation_key"] = continuation(end)
	}
	writeJSON(w, out)
}
