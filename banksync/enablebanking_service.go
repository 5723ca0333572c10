package banksync

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/mail"
	"tally/models"
)

// ErrOverReadLimit is an Enable Banking sync past the day's PSD2 reads.
var ErrOverReadLimit = fmt.Errorf("today's %d unattended reads are used up", DailyReadLimit)

// CallbackPath is where the bank sends people back; the operator registers APP_URL + it as
// the application's redirect URL.
const CallbackPath = "/bank_connections/enable_banking/callback"

// authorizationLifetime is how long a started authorisation waits for the bank's answer.
const authorizationLifetime = 30 * time.Minute

// Countries are the countries Enable Banking reaches (the EEA and the United Kingdom).
var Countries = []string{"AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GB", "GR", "HR", "HU", "IE", "IS",
	"IT", "LI", "LT", "LU", "LV", "MT", "NL", "NO", "PL", "PT", "RO", "SE", "SI", "SK"}

// EnableBankingOn reports whether European banks can be connected.
func (s *Service) EnableBankingOn() bool { return s.EB.Configured() }

// decryptCredentials replaces the connection's encrypted access URL or session id by its
// plain text.
func (s *Service) decryptCredentials(c *Connection) error {
	col, val := accessURLColumn, &c.AccessURL
	if c.Provider == ProviderEnableBanking {
		col, val = sessionIDColumn, &c.SessionID
	}
	plain, _, err := s.Keys.Decrypt(*val, col.Context())
	if err != nil {
		return err
	}
	*val = plain
	return nil
}

// readEnableBanking reads each linked account's balances and its transactions from from on,
// every page of them, in the shape the sync writes.
func (s *Service) readEnableBanking(ctx context.Context, c *Connection, accounts []BankAccount, from, now time.Time, stats *Stats) ([]*AccountSet, error) {
	if c.ConsentExpiresAt != nil && !c.ConsentExpiresAt.After(now) {
		return nil, ErrSessionExpired
	}
	if !s.EB.Configured() {
		return nil, errors.New("Enable Banking is not configured on this Tally")
	}
	set := &AccountSet{}
	linked := slices.ContainsFunc(accounts, func(ba BankAccount) bool { return ba.AccountID != nil })
	if linked && c.RequestsLeft(now) < 1 {
		return nil, ErrOverReadLimit
	}
	for _, ba := range accounts {
		if ba.AccountID == nil {
			continue
		}
		balances, err := s.EB.Balances(ctx, ba.ProviderAccountID)
		stats.Requests++
		if err != nil {
			return nil, accountRead(ba, err)
		}
		txs, pages, err := s.EB.Transactions(ctx, ba.ProviderAccountID, from, now)
		stats.Requests += pages
		if err != nil {
			return nil, accountRead(ba, err)
		}
		if !c.IncludePending {
			txs = slices.DeleteFunc(txs, func(t Transaction) bool { return t.Pending })
		}
		a := Account{ID: ba.ProviderAccountID, Name: ba.Name, Currency: ba.Currency, Institution: ba.Institution, Transactions: txs}
		a.Balance, a.BalanceDate = bookedBalance(balances)
		set.Accounts = append(set.Accounts, a)
	}
	return []*AccountSet{set}, nil
}

// bookedBalance is the bank's booked balance: closing booked (CLBD), else interim booked
// (ITBD), else closing available (CLAV), with its day.
func bookedBalance(balances []EBBalance) (*decimal.Decimal, *time.Time) {
	for _, typ := range []string{"CLBD", "ITBD", "CLAV"} {
		for _, b := range balances {
			if b.Type == typ {
				amount := b.Amount
				return &amount, b.Date
			}
		}
	}
	return nil, nil
}

// ASPSPs lists a country's banks, from the provider at most once a day: the list is kept in
// the database, shared by every process.
func (s *Service) ASPSPs(ctx context.Context, country string) ([]ASPSP, error) {
	country = strings.ToUpper(strings.TrimSpace(country))
	if !slices.Contains(Countries, country) {
		return nil, apperr.New(apperr.Invalid, "Choose a country").WithFields(map[string][]string{"country": {"Choose one of the countries Enable Banking reaches"}})
	}
	var cached []json.RawMessage
	err := s.DB.NewRaw("SELECT aspsps FROM bank_aspsps WHERE country = ? AND fetched_at > ?", country, s.now().Add(-24*time.Hour)).Scan(ctx, &cached)
	if err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	var list []ASPSP
	if len(cached) == 1 && json.Unmarshal(cached[0], &list) == nil {
		return list, nil
	}
	if !s.EB.Configured() {
		return nil, apperr.New(apperr.Unavailable, "European bank sync is not set up on this Tally: its operator sets ENABLE_BANKING_APP_ID and its key.")
	}
	list, err = s.EB.ASPSPs(ctx, country)
	if err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, err, "Enable Banking could not be reached for the list of banks. Try again in a moment.")
	}
	slices.SortFunc(list, func(a, b ASPSP) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	raw, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	_, err = s.DB.NewRaw(`INSERT INTO bank_aspsps (country, aspsps, fetched_at) VALUES (?, ?, ?)
		ON CONFLICT (country) DO UPDATE SET aspsps = excluded.aspsps, fetched_at = excluded.fetched_at`, country, string(raw), s.now()).Exec(ctx)
	return list, err
}

// Authorization is a connection (or a renewal) waiting for the bank's approval.
type Authorization struct {
	ID               uuid.UUID  `bun:"id"`
	FamilyID         uuid.UUID  `bun:"family_id"`
	ASPSPName        string     `bun:"aspsp_name"`
	ASPSPCountry     string     `bun:"aspsp_country"`
	HistoryDays      int        `bun:"history_days"`
	Decoupled        bool       `bun:"decoupled"`
	AuthorizationURL string     `bun:"authorization_url"`
	ConnectionID     *uuid.UUID `bun:"connection_id"`
	Renewal          bool       `bun:"renewal"`
	ExpiresAt        time.Time  `bun:"expires_at"`
	UsedAt           *time.Time `bun:"used_at"`
	Error            *string    `bun:"error"`
	// UserID is who started it (nil once that user is deleted), StarterName and StarterEmail
	// name them (""), and Household is the name of the family that gets the access: the
	// callback shows them before anyone confirms.
	UserID       *uuid.UUID `bun:"user_id"`
	StarterName  string     `bun:"starter_name"`
	StarterEmail string     `bun:"starter_email"`
	Household    string     `bun:"household"`
}

// Done reports whether the bank answered: a connection made or renewed, or an error.
func (a *Authorization) Done() bool {
	return a.Error != nil || (a.UsedAt != nil && a.ConnectionID != nil)
}

// StartInput is what a family admin chooses to connect a European bank.
type StartInput struct {
	Country string
	ASPSP   string
	// Days is the history the first sync reads; 0 is 90, within what the bank allows.
	Days int
}

// Start begins connecting a European bank: it asks the provider for the bank's authorisation
// URL, with a state that alone identifies the connection when the bank sends the person back.
func (s *Service) Start(ctx context.Context, familyID, userID uuid.UUID, in StartInput) (*Authorization, error) {
	var v apperr.Validation
	in.Country = strings.ToUpper(strings.TrimSpace(in.Country))
	in.ASPSP = strings.TrimSpace(in.ASPSP)
	if !slices.Contains(Countries, in.Country) {
		v.Add("country", "Choose one of the countries Enable Banking reaches")
	}
	if in.ASPSP == "" {
		v.Add("aspsp", "Choose your bank")
	}
	models.CheckText(&v, "aspsp", "Bank", in.ASPSP, models.MaxName)
	if in.Days == 0 {
		in.Days = 90
	}
	if in.Days < 1 || in.Days > 730 {
		v.Add("days", "History must be between 1 and 730 days")
	}
	// The bank is checked against the country's list even when another field is wrong, so
	// that every problem is told at once.
	var bank ASPSP
	if slices.Contains(Countries, in.Country) && in.ASPSP != "" && !v.Has("aspsp") {
		banks, err := s.ASPSPs(ctx, in.Country)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(banks, func(a ASPSP) bool { return a.Name == in.ASPSP })
		switch {
		case i < 0:
			v.Add("aspsp", "Enable Banking does not list that bank in "+in.Country+": choose one from the list")
		case in.Days > banks[i].MaxHistoryDays():
			v.Add("days", fmt.Sprintf("%s gives at most %d days of history", banks[i].Name, banks[i].MaxHistoryDays()))
		default:
			bank = banks[i]
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return s.authorize(ctx, familyID, userID, bank, in.Days, nil)
}

// Renew begins a new authorisation at the connection's bank, for a consent that ended or is
// about to: the callback puts the new session in the same connection, so that every linked
// account keeps its history.
func (s *Service) Renew(ctx context.Context, familyID, userID, connID uuid.UUID) (*Authorization, error) {
	c := new(Connection)
	err := s.DB.NewSelect().Model(c).ExcludeColumn("access_url", "session_id").Where("id = ? AND family_id = ?", connID, familyID).Scan(ctx)
	if db.IsNoRows(err) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	if c.Provider != ProviderEnableBanking {
		return nil, apperr.New(apperr.Invalid, "Only a European bank's consent is renewed; a SimpleFIN connection takes a new setup token.")
	}
	bank := ASPSP{Name: c.ASPSPName, Country: c.ASPSPCountry}
	if banks, err := s.ASPSPs(ctx, c.ASPSPCountry); err == nil {
		if i := slices.IndexFunc(banks, func(a ASPSP) bool { return a.Name == c.ASPSPName }); i >= 0 {
			bank = banks[i]
		}
	}
	return s.authorize(ctx, familyID, userID, bank, c.HistoryDays, &c.ID)
}

// authorize asks the provider for the bank's URL and records the authorisation under the
// state's hash: the state itself goes only to the provider and back.
func (s *Service) authorize(ctx context.Context, familyID, userID uuid.UUID, bank ASPSP, days int, renew *uuid.UUID) (*Authorization, error) {
	if !s.EB.Configured() {
		return nil, apperr.New(apperr.Unavailable, "European bank sync is not set up on this Tally: its operator sets ENABLE_BANKING_APP_ID and its key.")
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	state := base64.RawURLEncoding.EncodeToString(raw)
	consent := 90 * 24 * time.Hour
	if bank.MaxConsentSeconds > 0 {
		consent = min(time.Duration(bank.MaxConsentSeconds)*time.Second, 180*24*time.Hour)
	}
	now := s.now()
	authURL, err := s.EB.StartAuth(ctx, AuthRequest{ASPSP: bank.Name, Country: bank.Country, ValidUntil: now.Add(consent),
		State: state, RedirectURL: strings.TrimSuffix(s.AppURL, "/") + CallbackPath})
	if err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, err, "Enable Banking did not start the authorisation at your bank: "+userMessage(err))
	}
	a := &Authorization{ID: uuid.Must(uuid.NewV7()), FamilyID: familyID, ASPSPName: bank.Name, ASPSPCountry: bank.Country, HistoryDays: days,
		Decoupled: bank.Decoupled(), AuthorizationURL: authURL, ConnectionID: renew, Renewal: renew != nil, ExpiresAt: now.Add(authorizationLifetime)}
	_, err = s.DB.NewRaw(`INSERT INTO bank_authorizations (id, family_id, user_id, state_hash, aspsp_name, aspsp_country, history_days,
			decoupled, authorization_url, connection_id, renewal, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, familyID, userID, hashState(state), a.ASPSPName, a.ASPSPCountry, days,
		a.Decoupled, authURL, renew, a.Renewal, a.ExpiresAt).Exec(ctx)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func hashState(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// GetAuthorization returns the family's authorisation, for the page that waits on it. One
// the bank has not answered by its expiry carries MsgStateUnknown as its error.
func (s *Service) GetAuthorization(ctx context.Context, familyID, id uuid.UUID) (*Authorization, error) {
	a := new(Authorization)
	err := s.DB.NewRaw(authorizationQuery+" WHERE a.id = ? AND a.family_id = ?", id, familyID).Scan(ctx, a)
	if db.IsNoRows(err) {
		return nil, apperr.New(apperr.NotFound, "Authorisation not found")
	}
	if err != nil {
		return nil, err
	}
	if !a.Done() && s.now().After(a.ExpiresAt) {
		msg := MsgStateUnknown
		a.Error = &msg
	}
	return a, nil
}

// authorizationQuery reads authorisations with the names the callback shows: the household
// and who started it.
const authorizationQuery = `SELECT a.id, a.family_id, a.user_id, a.aspsp_name, a.aspsp_country, a.history_days, a.decoupled,
		a.authorization_url, a.connection_id, a.renewal, a.expires_at, a.used_at, a.error, f.name AS household,
		trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) AS starter_name, coalesce(u.email, '') AS starter_email
	FROM bank_authorizations a JOIN families f ON f.id = a.family_id LEFT JOIN users u ON u.id = a.user_id`

// Messages of the callback.
const (
	MsgStateUnknown = "This link from your bank is not one Tally is waiting for: it was used already, or is older than 30 minutes. Start the connection again from Settings › Bank connections."
	MsgBankDenied   = "Your bank did not give access, so nothing was connected. Start again when you are ready."
	MsgOtherFamily  = "This bank approval is for another household than the one you are signed in to, so nothing was connected and nothing was read from your bank."
)

// Completer is the browser that finishes an authorisation at the callback: its signed-in user
// (nil for a browser without a Tally session, such as the phone the bank's app opened), and
// where the request came from, for the audit log.
type Completer struct {
	User *models.User
	Meta auditlog.Meta
}

// refuses reports why by may not finish a: a browser signed in to another family is refused,
// since the consent would land in a household that is not its user's. The household, not the
// user who started it, is the line: its other members may approve their own bank accounts
// for it, and a browser with no session may finish after the page has named the household
// and its starter, which is what lets a phone finish.
func (by Completer) refuses(a *Authorization) error {
	if by.User != nil && by.User.FamilyID != a.FamilyID {
		return apperr.New(apperr.Forbidden, MsgOtherFamily)
	}
	return nil
}

// pending is the authorisation waiting for the state's bank answer, read with idb (and locked
// when lock), or MsgStateUnknown.
func pending(ctx context.Context, idb bun.IDB, state string, now time.Time, lock bool) (*Authorization, error) {
	q := authorizationQuery + " WHERE a.state_hash = ? AND a.used_at IS NULL AND a.expires_at > ?"
	if lock {
		q += " FOR UPDATE OF a"
	}
	var rows []Authorization
	if err := idb.NewRaw(q, hashState(state), now).Scan(ctx, &rows); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, apperr.New(apperr.Invalid, MsgStateUnknown)
	}
	return &rows[0], nil
}

// Pending returns the authorisation the bank's answer with state is for, so that the callback
// names the household that gets the access and who started it before anything is read from
// the bank. Nothing is used up: a browser by refuses is told why (with the authorisation, for
// the page), and the right person can still finish it.
func (s *Service) Pending(ctx context.Context, state string, by Completer) (*Authorization, error) {
	a, err := pending(ctx, s.DB, state, s.now(), false)
	if err != nil {
		return nil, err
	}
	return a, by.refuses(a)
}

// Complete finishes an authorisation with the bank's answer, found by its state: a new
// connection with the session's accounts, or a renewed one whose accounts keep their links
// and history. The state works once and for 30 minutes. A browser by refuses uses up nothing;
// a completion is audited with who finished it and from where.
func (s *Service) Complete(ctx context.Context, state, code, bankError string, by Completer) (*Authorization, error) {
	var a *Authorization
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var err error
		if a, err = pending(ctx, tx, state, s.now(), true); err != nil {
			return err
		}
		if err := by.refuses(a); err != nil {
			return err
		}
		return tx.NewRaw("UPDATE bank_authorizations SET used_at = now() WHERE id = ? RETURNING used_at", a.ID).Scan(ctx, &a.UsedAt)
	})
	if err != nil {
		if apperr.Is(err, apperr.Forbidden) {
			return a, err
		}
		return nil, err
	}
	fail := func(msg string, cause error) (*Authorization, error) {
		a.Error = &msg
		if _, err := s.DB.NewRaw("UPDATE bank_authorizations SET error = ? WHERE id = ?", msg, a.ID).Exec(context.WithoutCancel(ctx)); err != nil {
			return nil, err
		}
		if cause != nil {
			return a, apperr.Wrap(apperr.Unavailable, cause, msg)
		}
		return a, apperr.New(apperr.Invalid, msg)
	}
	if bankError != "" || code == "" {
		return fail(MsgBankDenied, nil)
	}
	sess, err := s.EB.CreateSession(ctx, code)
	if err != nil {
		return fail("Enable Banking did not open the session with your bank: "+userMessage(err), err)
	}
	enc, err := s.Keys.Encrypt(sess.ID, sessionIDColumn.Context())
	if err != nil {
		return nil, err
	}
	// The balances of the new session's accounts, for the page that links them. The person is
	// at the bank's side now, so these reads are not unattended ones.
	balances := map[string][]EBBalance{}
	for _, acct := range sess.Accounts {
		if b, err := s.EB.Balances(ctx, acct.UID); err == nil {
			balances[acct.UID] = b
		}
	}
	expires := sess.ValidUntil
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		c := &Connection{ID: uuid.Must(uuid.NewV7()), FamilyID: a.FamilyID, Name: a.ASPSPName, Provider: ProviderEnableBanking,
			SessionID: enc, Status: StatusGood, IncludePending: true, HistoryDays: a.HistoryDays, SyncMinute: 360, LastStats: Stats{},
			ASPSPName: a.ASPSPName, ASPSPCountry: a.ASPSPCountry, ConsentExpiresAt: expires, Protocol: 1}
		if !a.Renewal {
			maker, err := makerOf(ctx, tx, a.UserID)
			if err != nil {
				return err
			}
			c.UserID = maker
		}
		if a.Renewal {
			c.ID = *a.ConnectionID
			res, err := tx.NewRaw(`UPDATE bank_connections SET session_id = ?, status = ?, consent_expires_at = ?, consent_notice_days = NULL,
				last_error = NULL, paused_until = NULL, updated_at = now() WHERE id = ? AND family_id = ?`,
				enc, StatusGood, expires, c.ID, a.FamilyID).Exec(ctx)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return notFound() // disconnected while the bank asked
			}
		} else if _, err := tx.NewInsert().Model(c).Exec(ctx); err != nil {
			return err
		}
		if err := s.upsertSessionAccounts(ctx, tx, c, sess, balances); err != nil {
			return err
		}
		a.ConnectionID = &c.ID
		if _, err := tx.NewRaw("UPDATE bank_authorizations SET connection_id = ? WHERE id = ?", c.ID, a.ID).Exec(ctx); err != nil {
			return err
		}
		return auditConsent(ctx, tx, a, by)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// auditConsent records, in the completion's transaction, that a bank consent now reaches a
// household: who finished it (the signed-in user, or none) and from where, and who started it.
func auditConsent(ctx context.Context, tx db.Tx, a *Authorization, by Completer) error {
	data := map[string]any{"family_id": a.FamilyID.String(), "connection_id": a.ConnectionID.String(), "authorization_id": a.ID.String(),
		"bank": a.ASPSPName, "country": a.ASPSPCountry, "renewal": a.Renewal, "signed_in": by.User != nil}
	if a.UserID != nil {
		data["started_by"] = a.UserID.String()
	}
	var user *uuid.UUID
	if by.User != nil {
		user = &by.User.ID
	}
	return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventBankConsent, UserID: user, Provider: ProviderEnableBanking,
		Meta: by.Meta, Data: data})
}

// upsertSessionAccounts records a session's accounts under the connection. An account the
// connection had under an earlier session (the same identification, or IBAN) takes the new
// uid in place, keeping its link, so that a renewal keeps every account's history.
func (s *Service) upsertSessionAccounts(ctx context.Context, tx db.Tx, c *Connection, sess *EBSession, balances map[string][]EBBalance) error {
	for _, acct := range sess.Accounts {
		key := acct.Key()
		balance, day := bookedBalance(balances[acct.UID])
		if balance != nil && !models.AmountFits(*balance) {
			balance = nil // left unread here; each sync warns of it (screenAmounts)
		}
		res, err := tx.NewRaw(`UPDATE bank_accounts SET provider_account_id = ?, name = ?, currency = ?, iban = nullif(?, ''),
				balance = coalesce(?, balance), balance_date = coalesce(?, balance_date), error = NULL, updated_at = now()
			WHERE connection_id = ? AND account_key = ?`, acct.UID, acct.Name, acct.Currency, acct.IBAN, balance, day, c.ID, key).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			// The linked Tally account follows its provider id too.
			if _, err := tx.NewRaw(`UPDATE accounts a SET external_id = ? FROM bank_accounts b
				WHERE b.connection_id = ? AND b.account_key = ? AND a.id = b.account_id`, acct.UID, c.ID, key).Exec(ctx); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.NewRaw(`INSERT INTO bank_accounts (id, connection_id, family_id, provider_account_id, name, currency, balance,
				balance_date, institution, iban, account_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, nullif(?, ''), ?)`,
			uuid.Must(uuid.NewV7()), c.ID, c.FamilyID, acct.UID, acct.Name, acct.Currency, balance, day, c.ASPSPName, acct.IBAN, key).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// makerOf is whose a connection asked for by the user (nil once deleted) is (MakerOf), by
// their role now.
func makerOf(ctx context.Context, tx db.Tx, userID *uuid.UUID) (*uuid.UUID, error) {
	if userID == nil {
		return nil, nil
	}
	var role models.Role
	if err := tx.NewRaw("SELECT role FROM users WHERE id = ?", *userID).Scan(ctx, &role); err != nil {
		if db.IsNoRows(err) {
			return nil, nil
		}
		return nil, err
	}
	if maker := MakerOf(*userID, role); maker != uuid.Nil {
		return &maker, nil
	}
	return nil, nil
}

// KnownAccount is the Tally account a statement import already knows by the IBAN, or nil:
// the link page preselects it.
func (s *Service) KnownAccount(ctx context.Context, familyID uuid.UUID, iban string) (*uuid.UUID, error) {
	if iban == "" {
		return nil, nil
	}
	var ids []uuid.UUID
	err := s.DB.NewRaw("SELECT account_id FROM account_identifiers WHERE family_id = ? AND key = ?", familyID, "iban:"+iban).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// deleteSession closes an Enable Banking connection's session at the provider. It is best
// effort: the connection is gone from Tally whatever the provider answers.
func (s *Service) deleteSession(ctx context.Context, encrypted string) {
	if encrypted == "" || !s.EB.Configured() {
		return
	}
	id, _, err := s.Keys.Decrypt(encrypted, sessionIDColumn.Context())
	if err == nil {
		err = s.EB.DeleteSession(ctx, id)
	}
	if err != nil && s.Log != nil {
		s.Log.WarnContext(ctx, "the provider's session was not closed", "error", err.Error())
	}
}

// consentNotice is one mail a consent notice run sends.
type consentNotice struct {
	ConnectionID uuid.UUID `bun:"id"`
	Name         string    `bun:"name"`
	ExpiresAt    time.Time `bun:"consent_expires_at"`
	Email        string    `bun:"email"`
	Days         int       `bun:"days"`
	// Language is the admin's, else the family's: the mail's.
	Language string `bun:"language"`
}

// SendConsentNotices mails whoever manages every European connection whose consent ends
// within 7 days, and again within a day: the member whose own connection it is, or the
// family's admins for the family's (Connection.Theirs). Each notice goes once per consent. It
// returns how many mails it sent.
func (s *Service) SendConsentNotices(ctx context.Context) (int, error) {
	now := s.now()
	var notices []consentNotice
	err := s.DB.NewRaw(`
		SELECT c.id, c.name, c.consent_expires_at, u.email, d.days, coalesce(u.language, f.language) AS language
		FROM bank_connections c
		CROSS JOIN LATERAL (SELECT CASE WHEN c.consent_expires_at <= ?::timestamptz + interval '1 day' THEN 1 ELSE 7 END AS days) d
		JOIN users u ON u.family_id = c.family_id AND u.status = ? AND (u.id = c.user_id OR c.user_id IS NULL AND u.role IN (?, ?))
		JOIN families f ON f.id = c.family_id
		WHERE c.provider = ? AND c.status IN (?, ?) AND c.consent_expires_at > ? AND c.consent_expires_at <= ?::timestamptz + interval '7 days'
			AND (c.consent_notice_days IS NULL OR c.consent_notice_days > d.days)
		ORDER BY c.id, u.email`, now, models.UserActive, models.RoleAdmin, models.RoleSuperAdmin, ProviderEnableBanking, StatusGood, StatusFailing, now, now).
		Scan(ctx, &notices)
	if err != nil && !db.IsNoRows(err) {
		return 0, err
	}
	sent := 0
	done := map[uuid.UUID]int{}
	for _, n := range notices {
		link := strings.TrimSuffix(s.AppURL, "/") + "/settings/bank_connections"
		in := i18n.WithLanguage(ctx, n.Language)
		subject := i18n.T(in, "mail.consent.subject_week")
		if n.Days == 1 {
			subject = i18n.T(in, "mail.consent.subject_tomorrow")
		}
		m := mail.Message{To: n.Email, Subject: subject, Link: link,
			Body: i18n.T(in, "mail.consent.body", "Connection", n.Name, "Ends", n.ExpiresAt.UTC().Format("2006-01-02 15:04"), "Link", link)}
		if s.Mailer == nil {
			continue
		}
		if err := s.Mailer.Send(ctx, m); err != nil {
			return sent, fmt.Errorf("mail the consent notice: %w", err)
		}
		sent++
		done[n.ConnectionID] = n.Days
	}
	for id, days := range done {
		if _, err := s.DB.NewRaw("UPDATE bank_connections SET consent_notice_days = ? WHERE id = ?", days, id).Exec(ctx); err != nil {
			return sent, err
		}
	}
	return sent, nil
}
