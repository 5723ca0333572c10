package fakesimplefin

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
)

// The dataset is one Bridge user's: every access URL of the server sees it. Amounts and
// balances are the wire's numeric strings, so that a test controls their exact spelling
// ("2100.00", "-0.5"). Mutations panic on an unknown or duplicate id: that is a bug in the
// test, not a condition to handle.

// Connection is one login at an institution: v2's Connection, and v1's Organization of its
// accounts.
type Connection struct {
	ID      string // v2 conn_id, e.g. CON-A
	Name    string // v2 name, e.g. "First Example Bank"
	OrgID   string // v2 org_id, e.g. ORG-firstexample
	OrgName string // v2 org_name, v1 org.name
	OrgURL  string // v2 org_url, v1 org.url
	Domain  string // v1 org.domain, and org.id as the Bridge sets it
}

// Account is an account with its transactions and holdings.
type Account struct {
	ID               string // the Bridge's are ACT-<uuid>
	ConnID           string // its Connection
	Name             string
	Currency         string // ISO 4217, or a URL for a custom currency
	Balance          string
	AvailableBalance string // "" omits it, as the Bridge does when it equals Balance
	BalanceDate      time.Time
	Extra            map[string]any
	Transactions     []Transaction
	Holdings         []Holding // a Bridge extension, never date-filtered
}

// Transaction is one transaction. Positive amounts are money into the account.
type Transaction struct {
	ID           string    // unique within its account; the Bridge's are TRN-<uuid>
	Posted       time.Time // zero while pending: posted 0 on the wire
	Amount       string
	Description  string
	Payee        string    // Bridge extension
	Memo         string    // Bridge extension, often ""
	TransactedAt time.Time // zero omits it
	Pending      bool      // also implied by a zero Posted
	Extra        map[string]any
}

// Holding is a position of an investment account (a Bridge extension).
type Holding struct {
	ID            string
	Created       time.Time // when the Bridge first saw it, not a position date
	Currency      string    // may be ""
	Symbol        string    // may be "" (401k funds)
	Description   string
	Shares        string
	PurchasePrice string
	CostBasis     string
	MarketValue   string
}

// pending reports whether t is pending by either of the protocol's signs.
func (t Transaction) pending() bool { return t.Pending || t.Posted.IsZero() }

// when is the time the date filters compare: posted, or transacted_at while unposted.
func (t Transaction) when() time.Time {
	if t.Posted.IsZero() {
		return t.TransactedAt
	}
	return t.Posted
}

// AddConnection adds an institution login.
func (s *Server) AddConnection(c Connection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.connection(c.ID) != nil {
		panic(fmt.Sprintf("fakesimplefin: AddConnection: duplicate id %q", c.ID))
	}
	s.conns = append(s.conns, c)
}

// AddAccount adds an account, with its transactions and holdings, to a connection added
// before.
func (s *Server) AddAccount(a Account) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.connection(a.ConnID) == nil {
		panic(fmt.Sprintf("fakesimplefin: AddAccount %q: no connection %q", a.ID, a.ConnID))
	}
	if slices.ContainsFunc(s.accounts, func(b *Account) bool { return b.ID == a.ID }) {
		panic(fmt.Sprintf("fakesimplefin: AddAccount: duplicate id %q", a.ID))
	}
	// Keep a copy, so that the test's later changes to its value do not reach the server.
	txs := a.Transactions
	a.Transactions, a.Holdings, a.Extra = nil, slices.Clone(a.Holdings), maps.Clone(a.Extra)
	s.accounts = append(s.accounts, &a)
	for _, t := range txs {
		s.addTransaction(&a, t)
	}
}

// AddTransaction adds a transaction to an account.
func (s *Server) AddTransaction(accountID string, t Transaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addTransaction(s.account(accountID), t)
}

// addTransaction enforces the protocol's rule that an id is never reused within an account.
// The caller holds s.mu.
func (s *Server) addTransaction(a *Account, t Transaction) {
	if slices.ContainsFunc(a.Transactions, func(u Transaction) bool { return u.ID == t.ID }) {
		panic(fmt.Sprintf("fakesimplefin: account %q: duplicate transaction id %q", a.ID, t.ID))
	}
	t.Extra = maps.Clone(t.Extra)
	a.Transactions = append(a.Transactions, t)
}

// Post settles a pending transaction as the Bridge does: the pending row disappears and a
// posted row with a new id, the same amount and the same transacted_at appears. It returns
// the new id. (A tip, a changed amount: DeleteTransaction and AddTransaction.)
func (s *Server) Post(txID string, postedAt time.Time) (newID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, i := s.transaction(txID)
	t := a.Transactions[i]
	if !t.pending() {
		panic(fmt.Sprintf("fakesimplefin: Post: transaction %q is not pending", txID))
	}
	t.ID, t.Posted, t.Pending = newTransactionID(), postedAt, false
	a.Transactions = append(slices.Delete(a.Transactions, i, i+1), t)
	return t.ID
}

// Describe changes a transaction's description under the same id, as a bank correcting the
// text it first sent does.
func (s *Server) Describe(txID, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, i := s.transaction(txID)
	a.Transactions[i].Description = description
}

// RotateID gives a transaction a fresh id, all else unchanged, as some banks do to whole date
// blocks (Capital One, Sure #3436). It returns the new id.
func (s *Server) RotateID(txID string) (newID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, i := s.transaction(txID)
	a.Transactions[i].ID = newTransactionID()
	return a.Transactions[i].ID
}

// RotateAccountID gives an account a fresh id with its data, as a bank re-issuing a card
// does: the old id is no longer reported. It returns the new id.
func (s *Server) RotateAccountID(accountID string) (newID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.account(accountID)
	a.ID = "ACT-" + uuid.NewString()
	return a.ID
}

// DeleteTransaction removes a transaction.
func (s *Server) DeleteTransaction(txID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, i := s.transaction(txID)
	a.Transactions = slices.Delete(a.Transactions, i, i+1)
}

// SetBalance changes an account's balance and available balance ("" omits it), dated now by
// the server's clock.
func (s *Server) SetBalance(accountID, balance, available string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.account(accountID)
	a.Balance, a.AvailableBalance, a.BalanceDate = balance, available, s.clock()
}

// SetVersions sets the protocol versions GET /info lists. Without "2.0" the server answers
// every request in the v1 shape, as a v1-only server ignores version=2.
func (s *Server) SetVersions(versions ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions = slices.Clone(versions)
}

// SetHoldings replaces an investment account's positions: a trade, or a market move.
func (s *Server) SetHoldings(accountID string, holdings []Holding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.account(accountID).Holdings = slices.Clone(holdings)
}

// AccountError makes the Bridge fail to fetch an account: its data is left out of every
// answer, which carries msg instead (v1 errors; v2 errlist, code act.failed), until
// ClearAccountError.
func (s *Server) AccountError(accountID, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.account(accountID)
	s.accountErrors[accountID] = msg
}

// ClearAccountError lets an account's data be returned again.
func (s *Server) ClearAccountError(accountID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.accountErrors, accountID)
}

// connection returns the connection with id, or nil. The caller holds s.mu.
func (s *Server) connection(id string) *Connection {
	i := slices.IndexFunc(s.conns, func(c Connection) bool { return c.ID == id })
	if i < 0 {
		return nil
	}
	return &s.conns[i]
}

// account returns the account with id. The caller holds s.mu.
func (s *Server) account(id string) *Account {
	i := slices.IndexFunc(s.accounts, func(a *Account) bool { return a.ID == id })
	if i < 0 {
		panic(fmt.Sprintf("fakesimplefin: no account %q", id))
	}
	return s.accounts[i]
}

// transaction finds a transaction by id alone. Ids are unique only within an account, so an
// id found in two accounts is refused rather than guessed. The caller holds s.mu.
func (s *Server) transaction(id string) (*Account, int) {
	var found *Account
	var at int
	for _, a := range s.accounts {
		if i := slices.IndexFunc(a.Transactions, func(t Transaction) bool { return t.ID == id }); i >= 0 {
			if found != nil {
				panic(fmt.Sprintf("fakesimplefin: transaction id %q is in accounts %q and %q", id, found.ID, a.ID))
			}
			found, at = a, i
		}
	}
	if found == nil {
		panic(fmt.Sprintf("fakesimplefin: no transaction %q", id))
	}
	return found, at
}

func newTransactionID() string { return "TRN-" + uuid.NewString() }
