package fakesimplefin

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// RangeMode is what the server does with a date range longer than its limit.
type RangeMode int

// The range modes.
const (
	RangeCap      RangeMode = iota // keep the range's last days and warn (gen.api), as the Bridge does
	RangeTruncate                  // keep the range's last days silently, as older Bridges did
	RangeReject                    // answer 400
)

// defaultWindow is the range without start-date. The Bridge's is undocumented ("recent").
const defaultWindow = 30 * 24 * time.Hour

// quotaWarning is the warning past the quota's first threshold. The Bridge's exact words are
// undocumented; these contain what clients (Sure) match on.
const quotaWarning = "Too many requests. Please make fewer requests; SimpleFIN data is only refreshed once every 24 hours."

// SetRangeLimit sets the longest range (end-date − start-date) a request may ask, in days (0:
// none), and what happens to a longer one. The Bridge's is 90 days, RangeCap. A request
// without start-date asks for no range and is never refused.
func (s *Server) SetRangeLimit(days int, mode RangeMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rangeDays, s.rangeMode = days, mode
}

// SetQuota sets from which /accounts request in 24 hours (the nth, this one included) an
// access URL's answers carry a warning, and from which it is refused with 429; 0 turns either
// off. The Bridge's are 48 and 96. Requests naming accounts are counted apart.
func (s *Server) SetQuota(warnAt, blockAt int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnAt, s.blockAt = warnAt, blockAt
}

func (s *Server) serveAccounts(w http.ResponseWriter, r *http.Request) {
	extra, _ := r.Context().Value(extraErrorsKey{}).([]Error)
	status, body := s.answerAccounts(r, extra)
	writeJSON(w, status, body)
}

// answerAccounts is GET /accounts: authentication, quota, the query, then the Account Set.
func (s *Server) answerAccounts(r *http.Request, extra []Error) (int, any) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	v2 := q.Get("version") == "2" && slices.Contains(s.versions, "2.0")
	c := s.authenticate(r)
	if c == nil {
		return http.StatusForbidden, failure(v2, Error{Code: "gen.auth", Msg: "Authentication failed"})
	}
	now := s.clock()

	var warnings []Error
	n := c.count(q.Has("account"), now)
	switch {
	case s.blockAt > 0 && n >= s.blockAt:
		return http.StatusTooManyRequests, json.RawMessage(quotaText)
	case s.warnAt > 0 && n >= s.warnAt:
		warnings = append(warnings, Error{Code: "gen.api", Msg: quotaWarning})
	}

	start, end, invalid := window(q, now)
	if invalid != "" {
		return http.StatusBadRequest, failure(v2, Error{Code: "gen.api", Msg: "Invalid " + invalid})
	}
	limit := time.Duration(s.rangeDays) * 24 * time.Hour
	if s.rangeDays > 0 && q.Get("start-date") != "" && end.Sub(start) > limit {
		switch s.rangeMode {
		case RangeReject:
			msg := fmt.Sprintf("Requested date range exceeds limit of %d days.", s.rangeDays)
			return http.StatusBadRequest, failure(v2, Error{Code: "gen.api", Msg: msg})
		case RangeCap:
			msg := fmt.Sprintf("Requested date range exceeds limit of %d days and was capped.", s.rangeDays)
			warnings = append(warnings, Error{Code: "gen.api", Msg: msg})
		}
		start = end.Add(-limit)
	}

	f := filter{
		start: start, end: end,
		pending:      q.Has("pending"), // presence: pending=0 includes them too (Sure #2440)
		balancesOnly: q.Get("balances-only") == "1",
		accounts:     q["account"],
	}
	return http.StatusOK, s.setOf(v2, f, append(warnings, extra...))
}

// window reads start-date and end-date: epoch seconds, start inclusive, end exclusive. It
// names the parameter it cannot read, if any.
func window(q url.Values, now time.Time) (start, end time.Time, invalid string) {
	end = now
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"start-date", &start}, {"end-date", &end}} {
		if v := q.Get(p.name); v != "" {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return start, end, p.name
			}
			*p.t = time.Unix(sec, 0)
		}
	}
	if start.IsZero() {
		start = end.Add(-defaultWindow)
	}
	return start, end, ""
}

// count records a request by c at now and returns how many c made in the 24 hours up to
// now, this one included, on the quota the request counts against.
func (c *credential) count(namesAccounts bool, now time.Time) int {
	calls := &c.calls
	if namesAccounts {
		calls = &c.accountCalls
	}
	dayAgo := now.Add(-24 * time.Hour)
	*calls = slices.DeleteFunc(*calls, func(t time.Time) bool { return !t.After(dayAgo) })
	*calls = append(*calls, now)
	return len(*calls)
}

// filter is what a request asks of the dataset.
type filter struct {
	start, end   time.Time
	pending      bool
	balancesOnly bool
	accounts     []string // nil: all
}

// setOf builds the answer from the dataset. The caller holds s.mu.
func (s *Server) setOf(v2 bool, f filter, errs []Error) wireSet {
	set := wireSet{Accounts: []wireAccount{}}
	used := map[string]bool{} // connections of the accounts in the answer, for v2
	for _, a := range s.accounts {
		if f.accounts != nil && !slices.Contains(f.accounts, a.ID) {
			continue
		}
		used[a.ConnID] = true
		if msg, failed := s.accountErrors[a.ID]; failed {
			errs = append(errs, Error{Code: "act.failed", Msg: msg, ConnID: a.ConnID, AccountID: a.ID})
			continue
		}
		set.Accounts = append(set.Accounts, s.accountOf(a, v2, f))
	}
	if !v2 {
		set.Errors = []string{}
		for _, e := range errs {
			set.Errors = append(set.Errors, e.Msg)
		}
		return set
	}
	for _, id := range f.accounts {
		if !slices.ContainsFunc(s.accounts, func(a *Account) bool { return a.ID == id }) {
			errs = append(errs, Error{Code: "act.", Msg: "Unknown account", AccountID: id})
		}
	}
	set.Errlist = []wireError{}
	for _, e := range errs {
		set.Errlist = append(set.Errlist, wireErr(e))
	}
	set.Connections = []wireConn{}
	for _, c := range s.conns {
		if used[c.ID] {
			set.Connections = append(set.Connections, wireConn{
				ConnID: c.ID, Name: c.Name, OrgID: c.OrgID, OrgName: c.OrgName, OrgURL: c.OrgURL,
				SFINURL: s.URL + root,
			})
		}
	}
	return set
}

// accountOf is a as the answer shows it: balances as of now, transactions in the window.
// The caller holds s.mu.
func (s *Server) accountOf(a *Account, v2 bool, f filter) wireAccount {
	out := wireAccount{
		ID: a.ID, Name: a.Name, Currency: a.Currency, Balance: a.Balance,
		AvailableBalance: a.AvailableBalance, BalanceDate: epoch(a.BalanceDate), Extra: a.Extra,
	}
	if v2 {
		out.ConnID = a.ConnID
	} else {
		c := s.connection(a.ConnID)
		out.Org = &wireOrg{Domain: c.Domain, Name: c.OrgName, SFINURL: s.URL + root, URL: c.OrgURL, ID: c.Domain}
	}
	for _, h := range a.Holdings {
		out.Holdings = append(out.Holdings, wireHolding{
			ID: h.ID, Created: epoch(h.Created), Currency: h.Currency, Symbol: h.Symbol,
			Description: h.Description, Shares: h.Shares, PurchasePrice: h.PurchasePrice,
			CostBasis: h.CostBasis, MarketValue: h.MarketValue,
		})
	}
	if f.balancesOnly {
		return out
	}
	out.Transactions = []wireTx{}
	for _, t := range a.Transactions {
		if t.pending() && !f.pending || t.when().Before(f.start) || !t.when().Before(f.end) {
			continue
		}
		out.Transactions = append(out.Transactions, wireTx{
			ID: t.ID, Posted: epoch(t.Posted), Amount: t.Amount, Description: t.Description,
			Payee: t.Payee, Memo: t.Memo, TransactedAt: epoch(t.TransactedAt), Pending: t.Pending,
			Extra: t.Extra,
		})
	}
	// "Ordered by posted" (spec), pending rows at their transacted_at, as in the reference's
	// sample; stable, so equal times keep the order they were added in.
	slices.SortStableFunc(out.Transactions, func(x, y wireTx) int {
		return cmp.Compare(cmp.Or(x.Posted, x.TransactedAt), cmp.Or(y.Posted, y.TransactedAt))
	})
	return out
}

// failure is the body of a refused request: the v1 errors, plus errlist for a v2 client.
func failure(v2 bool, e Error) wireSet {
	set := wireSet{Errors: []string{e.Msg}, Accounts: []wireAccount{}}
	if v2 {
		set.Errlist = []wireError{wireErr(e)}
	}
	return set
}

// errorsBody is failure's v1 JSON.
func errorsBody(msg string) string {
	b, _ := json.Marshal(failure(false, Error{Msg: msg}))
	return string(b)
}

func wireErr(e Error) wireError {
	return wireError{Code: cmp.Or(e.Code, "gen."), Msg: e.Msg, ConnID: e.ConnID, AccountID: e.AccountID}
}

func epoch(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakesimplefin: encode answer: %v", err)) // an unencodable Extra
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// The wire shapes. One Account Set type serves v1 and v2: omitzero leaves out a nil slice but
// keeps an empty one, so each version sets exactly its own keys (v1 errors; v2 errlist and
// connections) and they always appear, [] when empty. Note the protocol's mix of hyphens and
// underscores.
type (
	wireSet struct {
		Errors      []string      `json:"errors,omitzero"`
		Errlist     []wireError   `json:"errlist,omitzero"`
		Connections []wireConn    `json:"connections,omitzero"`
		Accounts    []wireAccount `json:"accounts"`
	}
	wireError struct {
		Code      string `json:"code"`
		Msg       string `json:"msg"`
		ConnID    string `json:"conn_id,omitempty"`
		AccountID string `json:"account_id,omitempty"`
	}
	wireConn struct {
		ConnID  string `json:"conn_id"`
		Name    string `json:"name"`
		OrgID   string `json:"org_id"`
		OrgName string `json:"org_name,omitempty"`
		OrgURL  string `json:"org_url,omitempty"`
		SFINURL string `json:"sfin_url"`
	}
	wireOrg struct {
		Domain  string `json:"domain,omitempty"`
		Name    string `json:"name,omitempty"`
		SFINURL string `json:"sfin-url"`
		URL     string `json:"url,omitempty"`
		ID      string `json:"id,omitempty"`
	}
	wireAccount struct {
		Org              *wireOrg       `json:"org,omitempty"`     // v1
		ConnID           string         `json:"conn_id,omitempty"` // v2
		ID               string         `json:"id"`
		Name             string         `json:"name"`
		Currency         string         `json:"currency"`
		Balance          string         `json:"balance"`
		AvailableBalance string         `json:"available-balance,omitempty"`
		BalanceDate      int64          `json:"balance-date"`
		Transactions     []wireTx       `json:"transactions,omitzero"` // nil with balances-only
		Extra            map[string]any `json:"extra,omitzero"`
		Holdings         []wireHolding  `json:"holdings,omitzero"`
	}
	wireTx struct {
		ID           string         `json:"id"`
		Posted       int64          `json:"posted"`
		Amount       string         `json:"amount"`
		Description  string         `json:"description"`
		Payee        string         `json:"payee"`
		Memo         string         `json:"memo"`
		TransactedAt int64          `json:"transacted_at,omitzero"`
		Pending      bool           `json:"pending,omitzero"`
		Extra        map[string]any `json:"extra,omitzero"`
	}
	wireHolding struct {
		ID            string `json:"id"`
		Created       int64  `json:"created"`
		Currency      string `json:"currency"`
		Symbol        string `json:"symbol"`
		Description   string `json:"description"`
		Shares        string `json:"shares"`
		PurchasePrice string `json:"purchase_price"`
		CostBasis     string `json:"cost_basis"`
		MarketValue   string `json:"market_value"`
	}
)
