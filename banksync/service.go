package banksync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/internal/secrets"
	"tally/merchants"
	"tally/models"
	"tally/rules"
	"tally/transfers"
)

// Service connects families to their provider and keeps their accounts synced.
type Service struct {
	DB     *db.DB
	Keys   *secrets.Keys
	Client *Client
	Log    *slog.Logger
	Now    func() time.Time
	// Events hears of syncs that end (bank_sync.completed, bank_sync.failed); nil tells
	// nobody.
	Events models.Notifier
	// EB is the Enable Banking client; nil (or not Configured) leaves European banks out.
	EB *EBClient
	// AppURL is Tally's public URL: the bank sends people back to its callback, and the
	// consent notices link to the bank connections page.
	AppURL string
	// Mailer sends the consent notices to the family's admins.
	Mailer mail.Mailer
}

// accessURLColumn holds each connection's access URL, encrypted.
var accessURLColumn = secrets.Column{Table: "bank_connections", Key: "id", Name: "access_url"}

// sessionIDColumn holds each Enable Banking connection's session id, encrypted.
var sessionIDColumn = secrets.Column{Table: "bank_connections", Key: "id", Name: "session_id"}

// EncryptedColumns are this package's encrypted columns.
var EncryptedColumns = []secrets.Column{accessURLColumn, sessionIDColumn}

const (
	// Source marks the entries and accounts SimpleFIN writes.
	Source = "simplefin"
	// SourceEnableBanking marks the entries and accounts Enable Banking writes.
	SourceEnableBanking = "enable_banking"
	// window is the most one /accounts request spans.
	window = 60 * 24 * time.Hour
	// overlap is how far back a later sync reaches before the last one, for late postings.
	overlap = 7 * 24 * time.Hour
	// pendingMatchDays is how long a pending transaction may wait for its posted twin.
	pendingMatchDays = 8
)

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// syncedBy records a sync as the maker of a change of a transaction it had added before.
const syncedBy = "updated_by = NULL, updated_via = '" + models.ViaBankSync + "'"

// Messages for the user.
const (
	MsgTokenRefused    = "This setup token was already used, has expired, or may be compromised. Create a new one at your provider; if you did not use this one yourself, disable it there."
	MsgNeedsToken      = "The provider no longer accepts this connection. Paste a new setup token to reconnect: your linked accounts stay as they are."
	MsgPaymentRequired = "The provider says your subscription there needs payment. Renew it at the provider; Tally tries again at the next sync."
	MsgAccountGone     = "The provider no longer reports this account. If your bank replaced it, link the new one and disconnect or skip this one."
	MsgOverBudget      = "Today's requests to the provider are used up (SimpleFIN allows 24 a day per connection). The next sync runs tomorrow."
	MsgOverReadLimit   = "Today's reads are used up: European rules (PSD2) let Tally read an account 4 times a day without you. The next sync runs tomorrow."
	MsgNeedsRenewal    = "Your bank's consent has ended or was withdrawn. Renew it at your bank: your linked accounts and their history stay as they are."
	// MsgAccountNotCovered names the account (%q) the bank answered 404 for.
	MsgAccountNotCovered = "Your bank no longer gives Tally the account %q: it was closed, or your consent no longer covers it. Renew the consent at your bank, including the account if it still exists; your linked accounts and their history stay as they are. Tally does not read the bank again until then."
)

// Connect claims a setup token and reads the provider's accounts (balances only), so that
// the family can link them. The claim happens once: the connection is stored even when the
// first read fails, and that read is tried again at the next sync. The connection is
// userID's (Connection.UserID); uuid.Nil makes it the family's.
func (s *Service) Connect(ctx context.Context, familyID, userID uuid.UUID, token string) (*Connection, error) {
	access, err := s.claim(ctx, token)
	if err != nil {
		return nil, err
	}
	enc, err := s.Keys.Encrypt(access, accessURLColumn.Context())
	if err != nil {
		return nil, err
	}
	c := &Connection{ID: uuid.Must(uuid.NewV7()), FamilyID: familyID, Name: "SimpleFIN connection", Status: StatusGood, Provider: ProviderSimpleFIN,
		HistoryDays: 90, SyncMinute: 360, LastStats: Stats{}, Protocol: protocolOf(ctx, s.Client, access)}
	if userID != uuid.Nil {
		c.UserID = &userID
	}
	set, readErr := s.Client.Accounts(ctx, access, Query{Version2: c.Protocol == 2, BalancesOnly: true})
	if set != nil {
		screenAmounts([]*AccountSet{set}, &c.LastStats)
	}
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		row := *c
		row.AccessURL = enc
		now := s.now()
		row.RequestsOn, row.RequestsToday = &now, 1 // the balances read
		if readErr != nil {
			msg := userMessage(readErr)
			row.LastError = &msg
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		if set != nil {
			return s.upsertAccounts(ctx, tx, c, set)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.AccessURL = access
	return c, nil
}

// claim exchanges a setup token for an access URL, with the errors the form shows.
func (s *Service) claim(ctx context.Context, token string) (string, error) {
	access, err := s.Client.Claim(ctx, token)
	switch {
	case errors.Is(err, ErrTokenRefused):
		return "", apperr.New(apperr.Invalid, MsgTokenRefused).WithFields(map[string][]string{"setup_token": {MsgTokenRefused}})
	case err != nil && isUserError(err):
		return "", apperr.New(apperr.Invalid, err.Error()).WithFields(map[string][]string{"setup_token": {err.Error()}})
	case err != nil:
		return "", apperr.Wrap(apperr.Unavailable, err, "The provider could not be reached to claim the token. Try again in a moment.")
	}
	return access, nil
}

// protocolOf is 2 when the provider's /info lists it, else 1, which every provider speaks.
func protocolOf(ctx context.Context, client *Client, access string) int {
	versions, err := client.Info(ctx, access)
	if err == nil && slices.ContainsFunc(versions, func(v string) bool { return v == "2" || strings.HasPrefix(v, "2.") }) {
		return 2
	}
	return 1
}

// isUserError reports whether a claim failed on what the user pasted (the token itself).
func isUserError(err error) bool {
	var ue interface{ Unwrap() error }
	return !errors.As(err, &ue) && !strings.HasPrefix(err.Error(), "claim at")
}

// upsertAccounts records the provider's accounts and their balances, and their errors.
func (s *Service) upsertAccounts(ctx context.Context, tx db.Tx, c *Connection, set *AccountSet) error {
	errs := map[string]string{}
	for _, e := range set.Errors {
		if e.AccountID != "" {
			errs[e.AccountID] = e.Message
		}
	}
	for _, a := range set.Accounts {
		var msg *string
		if m, ok := errs[a.ID]; ok {
			msg = &m
		}
		_, err := tx.NewRaw(`INSERT INTO bank_accounts (id, connection_id, family_id, provider_account_id, name, currency, balance,
				available_balance, balance_date, institution, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (connection_id, provider_account_id) DO UPDATE SET name = excluded.name, currency = excluded.currency,
				balance = excluded.balance, available_balance = excluded.available_balance, balance_date = excluded.balance_date,
				institution = excluded.institution, error = excluded.error, updated_at = now()
			WHERE (bank_accounts.name, bank_accounts.currency, bank_accounts.balance, bank_accounts.available_balance,
					bank_accounts.balance_date, bank_accounts.institution, bank_accounts.error)
				IS DISTINCT FROM (excluded.name, excluded.currency, excluded.balance, excluded.available_balance,
					excluded.balance_date, excluded.institution, excluded.error)`,
			uuid.Must(uuid.NewV7()), c.ID, c.FamilyID, a.ID, a.Name, a.Currency, a.Balance, a.Available, a.BalanceDate,
			a.Institution, msg).Exec(ctx)
		if err != nil {
			return err
		}
	}
	// Errors for accounts the set leaves out (their data failed) are recorded on them too.
	for id, m := range errs {
		if _, err := tx.NewRaw("UPDATE bank_accounts SET error = ? WHERE connection_id = ? AND provider_account_id = ? AND error IS DISTINCT FROM ?",
			m, c.ID, id, m).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// userMessage is what a failed provider call says to the user.
func userMessage(err error) string {
	var rl *RateLimitedError
	var gone *AccountNotCoveredError
	switch {
	case errors.Is(err, ErrAccessRevoked):
		return MsgNeedsToken
	case errors.Is(err, ErrSessionExpired):
		return MsgNeedsRenewal
	case errors.As(err, &gone):
		return fmt.Sprintf(MsgAccountNotCovered, gone.Name)
	case errors.Is(err, ErrOverReadLimit):
		return MsgOverReadLimit
	case errors.As(err, &rl):
		return "The provider asked Tally to slow down: syncing resumes tomorrow."
	case errors.Is(err, ErrOverBudget):
		return MsgOverBudget
	case errors.Is(err, ErrPaymentRequired):
		return MsgPaymentRequired
	}
	return "The provider could not be reached: " + err.Error() + ". Tally will try again at the next sync."
}

// Suggest proposes a Tally account type for a provider account, from its name and balances
// (the protocol has no type).
func Suggest(a *BankAccount) (typ, subtype string) {
	n := strings.ToLower(a.Name + " " + a.Institution)
	has := func(words ...string) bool {
		for _, w := range words {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(n) {
				return true
			}
		}
		return false
	}
	switch {
	case has("bitcoin", "btc", "ethereum", "eth", "crypto"):
		return "Crypto", ""
	case has("401k", "ira", "roth", "brokerage", "retirement", "403b", "investment"):
		return "Investment", "brokerage"
	case has("loan", "mortgage", "heloc", "line of credit"):
		return "Loan", ""
	case has("credit", "card", "visa", "mastercard", "amex", "american express", "discover"):
		return "CreditCard", "credit_card"
	case a.Balance != nil && a.Balance.IsNegative() && a.AvailableBalance != nil && a.AvailableBalance.IsPositive():
		return "CreditCard", "credit_card"
	case has("savings", "money market", "high-yield"):
		return "Depository", "savings"
	}
	return "Depository", "checking"
}

// tallyBalance turns a provider balance into the Tally account's: what a liability owes is
// positive (a card's negative balance is debt; a loan's principal is owed whatever its sign).
func tallyBalance(accountType string, provider decimal.Decimal) decimal.Decimal {
	switch accountType {
	case "Loan":
		return provider.Abs()
	case "CreditCard", "OtherLiability":
		return provider.Neg()
	}
	return provider
}

// Choice links one provider account.
type Choice struct {
	BankAccountID uuid.UUID
	// Action is "new" (create a Tally account of Type), "existing" (AccountID) or "skip".
	Action    string
	Type      string
	Subtype   string
	AccountID uuid.UUID
}

// Link applies the family's choices for the connection's accounts.
func (s *Service) Link(ctx context.Context, familyID, connID uuid.UUID, choices []Choice) error {
	return s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		c := new(Connection)
		if err := tx.NewSelect().Model(c).Column("id", "provider", "user_id").Where("id = ? AND family_id = ?", connID, familyID).Scan(ctx); err != nil {
			if db.IsNoRows(err) {
				return notFound()
			}
			return err
		}
		for _, ch := range choices {
			ba := new(BankAccount)
			if err := tx.NewSelect().Model(ba).Where("id = ? AND connection_id = ? AND family_id = ?", ch.BankAccountID, connID, familyID).
				For("UPDATE").Scan(ctx); err != nil {
				if db.IsNoRows(err) {
					return apperr.New(apperr.NotFound, "Bank account not found")
				}
				return err
			}
			switch ch.Action {
			case "skip":
				if _, err := tx.NewRaw("UPDATE bank_accounts SET skipped = true, account_id = NULL, updated_at = now() WHERE id = ?", ba.ID).Exec(ctx); err != nil {
					return err
				}
			case "existing":
				acct, err := models.AccountByID(ctx, tx, models.FamilyViewer(familyID), ch.AccountID)
				if err != nil {
					return err
				}
				if err := s.link(ctx, tx, c, ba, acct.ID, acct.AccountableType); err != nil {
					return err
				}
			case "new":
				// No balance of its own: link sets the provider's, which the account's history
				// walks back from, and each sync records it as a checkpoint.
				acct, err := models.CreateAccount(ctx, tx, familyID, models.AccountInput{Name: ba.Name, AccountableType: ch.Type,
					Subtype: ch.Subtype, Currency: ba.Currency})
				if err != nil {
					return err
				}
				if err := keepPrivate(ctx, tx, c, acct.ID); err != nil {
					return err
				}
				if err := s.link(ctx, tx, c, ba, acct.ID, ch.Type); err != nil {
					return err
				}
			default:
				return apperr.Errorf(apperr.Invalid, "Choose what to do with %s: a new account, an existing one, or skip it.", ba.Name)
			}
		}
		return nil
	})
}

// keepPrivate makes the account a member's connection brings private to them, until they
// share it; a family's connection brings shared accounts, as ever.
func keepPrivate(ctx context.Context, tx db.Tx, c *Connection, accountID uuid.UUID) error {
	if c.UserID == nil {
		return nil
	}
	_, err := tx.NewRaw("UPDATE accounts SET owner_id = ?, private = true WHERE id = ?", *c.UserID, accountID).Exec(ctx)
	return err
}

// link points the provider account at a Tally account, whose balance the provider keeps
// from now on.
func (s *Service) link(ctx context.Context, tx db.Tx, c *Connection, ba *BankAccount, accountID uuid.UUID, accountType string) error {
	if _, err := tx.NewRaw("UPDATE bank_accounts SET account_id = ?, skipped = false, updated_at = now() WHERE id = ?", accountID, ba.ID).Exec(ctx); err != nil {
		if c, ok := apperr.UniqueViolation(err); ok && c == "bank_accounts_account_id_key" {
			return apperr.New(apperr.Invalid, "That Tally account is already linked to another bank account.")
		}
		return err
	}
	q := "UPDATE accounts SET source = ?, external_id = ?, updated_at = now()"
	args := []any{c.Source(), ba.ProviderAccountID}
	if ba.Balance != nil {
		q += ", balance = ?, cash_balance = ?"
		b := tallyBalance(accountType, *ba.Balance)
		args = append(args, b, b)
	}
	_, err := tx.NewRaw(q+" WHERE id = ?", append(args, accountID)...).Exec(ctx)
	return err
}

// windows splits from..to into spans of at most 60 days, oldest first.
func windows(from, to time.Time) [][2]time.Time {
	var out [][2]time.Time
	for start := from; start.Before(to); start = start.Add(window) {
		end := start.Add(window)
		if end.After(to) {
			end = to
		}
		out = append(out, [2]time.Time{start, end})
	}
	return out
}

// Sync reads the connection's linked accounts from the provider and brings their balances and
// transactions up to date, in one transaction: a failure leaves everything as it was, and the
// next sync does it all. The first sync reaches back HistoryDays; later ones overlap the last.
func (s *Service) Sync(ctx context.Context, connID uuid.UUID) (*Stats, error) {
	c, accounts, err := s.load(ctx, connID)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	if c.Status == StatusNeedsToken || c.Status == StatusNeedsRenewal || (c.PausedUntil != nil && c.PausedUntil.After(now)) {
		return &Stats{}, nil
	}
	from := now.Add(-time.Duration(c.HistoryDays) * 24 * time.Hour)
	if c.LastSyncedAt != nil {
		from = c.LastSyncedAt.Add(-overlap)
	}
	var ids []string
	for _, ba := range accounts {
		if ba.AccountID != nil {
			ids = append(ids, ba.ProviderAccountID)
		}
	}
	stats := &Stats{Accounts: len(ids)}
	// Every read happens before anything is written: a failure half way writes nothing.
	var sets []*AccountSet
	var discovery *AccountSet
	var callErr error
	if c.Provider == ProviderEnableBanking {
		sets, err = s.readEnableBanking(ctx, c, accounts, from, now, stats)
	} else {
		sets, discovery, err = s.readSimpleFIN(ctx, c, ids, from, now, stats)
	}
	if errors.Is(err, ErrOverBudget) || errors.Is(err, ErrOverReadLimit) {
		return stats, s.failed(ctx, c, now, stats, err)
	}
	callErr = err
	screenAmounts(sets, stats)
	used := stats.Requests
	if c.Provider == ProviderEnableBanking {
		used = min(1, stats.Requests) // one read of each account, however many pages
	}
	if err := s.countRequests(ctx, c.ID, now, used); err != nil {
		return stats, err
	}
	if callErr != nil {
		return stats, s.failed(ctx, c, now, stats, callErr)
	}
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// The connection's lock orders this sync with a disconnect (see Delete).
		var locked []uuid.UUID
		if err := tx.NewRaw("SELECT id FROM bank_connections WHERE id = ? FOR NO KEY UPDATE", c.ID).Scan(ctx, &locked); err != nil {
			return err
		}
		if len(locked) == 0 {
			return ErrConnectionGone
		}
		general := attributeErrors(sets, ids)
		msgs := map[string]bool{} // each window repeats the same errors
		for _, set := range sets {
			if err := s.upsertAccounts(ctx, tx, c, set); err != nil {
				return err
			}
			for _, e := range set.Errors {
				msgs[e.Message] = true
			}
		}
		stats.Errors = len(msgs)
		if discovery != nil && len(discovery.Errors) == 0 {
			if err := flagGone(ctx, tx, accounts, discovery); err != nil {
				return err
			}
		}
		var linked []uuid.UUID
		for _, ba := range accounts {
			if ba.AccountID != nil {
				linked = append(linked, *ba.AccountID)
			}
		}
		differed, err := s.differing(ctx, tx, c.FamilyID, linked)
		if err != nil {
			return err
		}
		for _, ba := range accounts {
			if ba.AccountID == nil {
				continue
			}
			if err := s.syncAccount(ctx, tx, c.Source(), ba, sets, from, now, stats); err != nil {
				return fmt.Errorf("sync %s: %w", ba.Name, err)
			}
		}
		// What the bank sent new or changed gets the merchant its text names, then the family's
		// rules run over it (a rule's merchant wins), in this transaction.
		if err := merchants.Assign(ctx, tx, c.FamilyID, stats.written); err != nil {
			return err
		}
		if _, err := (rules.Runner{Log: s.Log}).Run(ctx, tx, c.FamilyID, rules.Scope{EntryIDs: stats.written}); err != nil {
			return err
		}
		// Then the bank's new transactions are matched with their other sides, from any source.
		if _, err := transfers.Match(ctx, tx, c.FamilyID, transfers.Scope{EntryIDs: stats.written}); err != nil {
			return err
		}
		// A sync that succeeds ends a failing spell (Sync does not run in the other statuses).
		status := c.Status
		if status == StatusFailing {
			status = StatusGood
		}
		_, err = tx.NewRaw(`UPDATE bank_connections SET status = ?, last_synced_at = ?, last_attempt_at = ?, last_error = ?, last_stats = ?,
			paused_until = NULL, updated_at = now() WHERE id = ?`, status, now, now, general, stats, c.ID).Exec(ctx)
		if err != nil {
			return err
		}
		if err := s.notify(ctx, tx, c, EventCompleted, status, stats, nil); err != nil {
			return err
		}
		return s.notifyDifferences(ctx, tx, c.FamilyID, linked, differed)
	})
	if err != nil && !retried(err) && !errors.Is(err, ErrConnectionGone) {
		if nerr := s.recordFailure(ctx, c, now, stats, StatusFailing, nil, msgWriteFailed, true); nerr != nil {
			return stats, errors.Join(err, nerr)
		}
	}
	return stats, err
}

// readSimpleFIN reads the linked accounts (ids) from from to now, in windows of at most 60
// days, or only the balances when none is linked. discovery is the whole account list, read
// when a linked account is missing from the answers.
func (s *Service) readSimpleFIN(ctx context.Context, c *Connection, ids []string, from, now time.Time, stats *Stats) (sets []*AccountSet, discovery *AccountSet, err error) {
	// end-date is exclusive and the provider's clock may be ahead: reach a day past now.
	spans := windows(from, now.Add(24*time.Hour))
	planned := 1
	if len(ids) > 0 {
		planned = len(spans)
	}
	if left := c.RequestsLeft(now); planned > left {
		return nil, nil, ErrOverBudget
	}
	if len(ids) == 0 {
		set, err := s.Client.Accounts(ctx, c.AccessURL, Query{Version2: c.Protocol == 2, BalancesOnly: true})
		stats.Requests++
		if set != nil {
			sets = append(sets, set)
		}
		return sets, nil, err
	}
	for _, w := range spans {
		start, end := w[0], w[1]
		set, err := s.Client.Accounts(ctx, c.AccessURL, Query{Version2: c.Protocol == 2, Start: &start, End: &end, Pending: c.IncludePending, Accounts: ids})
		stats.Requests++
		if err != nil {
			return sets, nil, err
		}
		sets = append(sets, set)
	}
	// A linked account missing from the answers was dropped, re-issued under a new id, or
	// failed: one look at the whole account list tells which, and finds a new id to link.
	if missing(ids, sets) && c.RequestsLeft(now) > planned {
		discovery, err = s.Client.Accounts(ctx, c.AccessURL, Query{Version2: c.Protocol == 2, BalancesOnly: true})
		stats.Requests++
		if discovery != nil {
			sets = append(sets, discovery)
		}
	}
	return sets, discovery, err
}

// retried reports whether a sync that ended with err runs again at once (the worker stopped,
// or the database went away), so that it is not a failure yet.
func retried(err error) bool {
	return errors.Is(err, context.Canceled) || db.Unreachable(err)
}

// ErrConnectionGone is a sync whose connection was disconnected while it read the provider.
var ErrConnectionGone = errors.New("the bank connection was disconnected during the sync")

// ErrOverBudget is a sync that would take the connection past its daily request budget.
var ErrOverBudget = fmt.Errorf("today's %d requests to the provider are used up", DailyRequestBudget)

// countRequests adds a sync's requests to the connection's count for the day. The requests
// were made whatever happens next, so this is not part of the sync's transaction.
func (s *Service) countRequests(ctx context.Context, connID uuid.UUID, now time.Time, n int) error {
	_, err := s.DB.NewRaw(`UPDATE bank_connections SET requests_today = ? + CASE WHEN requests_on = ?::date THEN requests_today ELSE 0 END,
		requests_on = ?::date WHERE id = ?`, n, now, now, connID).Exec(context.WithoutCancel(ctx))
	return err
}

// attributeErrors gives an error that names no account (v1's are plain strings; v2's may name
// only the connection) to each account asked for that the same answer leaves out, which is
// the account it failed; and returns those errors' messages for the connection, or nil.
func attributeErrors(sets []*AccountSet, ids []string) *string {
	var general []string
	for _, set := range sets {
		for _, e := range set.Errors {
			if e.AccountID != "" {
				continue
			}
			if !slices.Contains(general, e.Message) {
				general = append(general, e.Message)
			}
			for _, id := range ids {
				if !slices.ContainsFunc(set.Accounts, func(a Account) bool { return a.ID == id }) {
					set.Errors = append(set.Errors, ProviderError{Code: e.Code, Message: e.Message, ConnID: e.ConnID, AccountID: id})
				}
			}
		}
	}
	if len(general) == 0 {
		return nil
	}
	msg := strings.Join(general, " ")
	return &msg
}

// missing reports whether an account asked for is in none of the answers.
func missing(ids []string, sets []*AccountSet) bool {
	got := map[string]bool{}
	for _, set := range sets {
		for _, a := range set.Accounts {
			got[a.ID] = true
		}
	}
	for _, id := range ids {
		if !got[id] {
			return true
		}
	}
	return false
}

// flagGone marks the linked accounts that the full account list, answered without errors,
// leaves out: the provider dropped them or gave them new ids (the new ones wait on the page
// to be linked). Their entries stay.
func flagGone(ctx context.Context, tx db.Tx, accounts []BankAccount, all *AccountSet) error {
	for _, ba := range accounts {
		if ba.AccountID == nil || slices.ContainsFunc(all.Accounts, func(a Account) bool { return a.ID == ba.ProviderAccountID }) {
			continue
		}
		if _, err := tx.NewRaw("UPDATE bank_accounts SET error = ?, updated_at = now() WHERE id = ? AND error IS DISTINCT FROM ?",
			MsgAccountGone, ba.ID, MsgAccountGone).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// failed records a sync that could not read the provider: a 403 needs a new token, an ended
// consent or an account the bank no longer serves a renewal, a 429 waits for tomorrow, anything else is tried again at the next sync.
// A sync that runs again at once (retried) keeps the connection's status.
func (s *Service) failed(ctx context.Context, c *Connection, now time.Time, stats *Stats, err error) error {
	status, paused := StatusFailing, (*time.Time)(nil)
	var rl *RateLimitedError
	var gone *AccountNotCoveredError
	switch {
	case retried(err):
		status = c.Status
	case errors.Is(err, ErrAccessRevoked):
		status = StatusNeedsToken
	case errors.Is(err, ErrSessionExpired), errors.As(err, &gone):
		status = StatusNeedsRenewal
	case errors.As(err, &rl):
		t := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
		paused = &t
	}
	if dbErr := s.recordFailure(ctx, c, now, stats, status, paused, userMessage(err), !retried(err)); dbErr != nil {
		return dbErr
	}
	return err
}

// recordFailure shows a failed sync on the connection, its status and why (msg), and tells
// whoever listens (bank_sync.failed) when final, that is unless the sync runs again at once.
func (s *Service) recordFailure(ctx context.Context, c *Connection, now time.Time, stats *Stats, status string, paused *time.Time, msg string, final bool) error {
	return s.DB.InTx(context.WithoutCancel(ctx), func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw(`UPDATE bank_connections SET status = ?, paused_until = ?, last_error = ?, last_attempt_at = ?,
			last_stats = ?, updated_at = now() WHERE id = ?`, status, paused, msg, now, stats, c.ID).Exec(ctx); err != nil {
			return err
		}
		if !final {
			return nil
		}
		return s.notify(ctx, tx, c, EventFailed, status, stats, &msg)
	})
}

func (s *Service) load(ctx context.Context, connID uuid.UUID) (*Connection, []BankAccount, error) {
	c := new(Connection)
	if err := s.DB.NewSelect().Model(c).Where("id = ?", connID).Scan(ctx); err != nil {
		return nil, nil, err
	}
	if err := s.decryptCredentials(c); err != nil {
		return nil, nil, err
	}
	var accounts []BankAccount
	err := s.DB.NewSelect().Model(&accounts).Where("connection_id = ?", connID).Order("name").Scan(ctx)
	return c, accounts, err
}

// existing is an entry the provider wrote before.
type existing struct {
	ID         uuid.UUID       `bun:"id"`
	ExternalID string          `bun:"external_id"`
	Date       time.Time       `bun:"date"`
	Amount     decimal.Decimal `bun:"amount"`
	Name       string          `bun:"name"`
	Notes      string          `bun:"notes"`
	Pending    bool            `bun:"pending"`
}

// syncAccount writes one linked account's balance and transactions from the sets read.
func (s *Service) syncAccount(ctx context.Context, tx db.Tx, source string, ba BankAccount, sets []*AccountSet, from, now time.Time, stats *Stats) error {
	acct, err := models.AccountByID(ctx, tx, models.FamilyViewer(ba.FamilyID), *ba.AccountID)
	if err != nil {
		return err
	}
	seen := map[string]Transaction{}
	var latest *Account
	for _, set := range sets {
		for i := range set.Accounts {
			a := &set.Accounts[i]
			if a.ID != ba.ProviderAccountID {
				continue
			}
			latest = a
			for _, t := range a.Transactions {
				if prev, ok := seen[t.ID]; !ok || (prev.Pending && !t.Pending) {
					seen[t.ID] = t
				}
			}
		}
	}
	if latest == nil {
		return nil // the provider sent nothing for it (an error entry says why)
	}
	if latest.Balance != nil {
		b := tallyBalance(acct.AccountableType, *latest.Balance)
		res, err := tx.NewRaw("UPDATE accounts SET balance = ?, cash_balance = ?, updated_at = now() WHERE id = ? AND (balance, cash_balance) IS DISTINCT FROM (?::numeric, ?::numeric)",
			b, b, acct.ID, b, b).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			stats.Updated++
		}
		// Each day's reported balance stays as a checkpoint, set against the walk back from
		// today's: a transaction the provider never sent shows as a difference there.
		day := now
		if latest.BalanceDate != nil {
			day = *latest.BalanceDate
		}
		if err := models.StateBalance(ctx, tx, acct, day.UTC().Truncate(24*time.Hour), b, source, "Balance reported by the bank"); err != nil {
			return err
		}
	}
	if len(latest.Holdings) > 0 {
		if err := syncHoldings(ctx, tx, acct, latest, now, stats); err != nil {
			return err
		}
	}
	// What the provider wrote in this span before, to match pending to posted, rotated ids,
	// and pending transactions the bank dropped.
	var old []existing
	// Their names are the bank's text, whatever a rule or a person renamed.
	if err := tx.NewRaw(`SELECT id, external_id, date, amount, coalesce(original_name, name) AS name, notes, pending FROM entries
		WHERE account_id = ? AND source = ? AND kind = 'transaction' AND date >= ?`, acct.ID, source, from.AddDate(0, 0, -pendingMatchDays)).
		Scan(ctx, &old); err != nil {
		return err
	}
	byExt := map[string]*existing{}
	for i := range old {
		byExt[old[i].ExternalID] = &old[i]
	}
	claimed := map[uuid.UUID]bool{}
	type row struct {
		id      uuid.UUID
		ext     string
		date    time.Time
		amount  decimal.Decimal
		name    string
		notes   string
		pending bool
	}
	var rows []row
	for _, t := range seen {
		// A liability books a transaction on the day it happened; a pending one has only that.
		date := t.Posted
		if t.TransactedAt != nil && (date == nil || acct.Type().Liability) {
			date = t.TransactedAt
		}
		d := time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, time.UTC)
		r := row{id: uuid.Must(uuid.NewV7()), ext: t.ID, date: d, amount: t.Amount.Neg(), name: entryName(t), notes: t.Memo, pending: t.Pending}
		if e, ok := byExt[t.ID]; ok {
			r.id = e.ID
			if e.Pending && !t.Pending {
				r.date = e.Date // a posted pending transaction keeps the date it happened
			}
			if e.Date.Equal(r.date) && e.Amount.Equal(r.amount) && e.Name == r.name && e.Notes == r.notes && e.Pending == r.pending {
				continue // unchanged: not even sent
			}
		} else if !t.Pending {
			// A posted transaction new by id: the pending one it settles (same amount, at most
			// 8 days before), or the same transaction under a rotated id.
			if e := match(old, claimed, seen, r.amount, r.date, r.name); e != nil {
				claimed[e.ID] = true
				if _, err := tx.NewRaw("UPDATE entries SET external_id = ?, pending = false, updated_at = now(), "+syncedBy+" WHERE id = ?", t.ID, e.ID).Exec(ctx); err != nil {
					return err
				}
				if e.Pending {
					stats.PendingPosted++
					r.date = e.Date
				}
				r.id = e.ID
				byExt[t.ID] = e
			}
		}
		rows = append(rows, r)
	}
	if len(rows) > 0 {
		ids := make([]uuid.UUID, len(rows))
		exts, names, notes := make([]string, len(rows)), make([]string, len(rows)), make([]string, len(rows))
		dates := make([]time.Time, len(rows))
		amounts := make([]decimal.Decimal, len(rows))
		pend := make([]bool, len(rows))
		for i, r := range rows {
			ids[i], exts[i], dates[i], amounts[i], names[i], notes[i], pend[i] = r.id, r.ext, r.date, r.amount, r.name, r.notes, r.pending
		}
		var written upserts
		err := tx.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes, pending, external_id, source)
			SELECT x.id, ?, ?, 'transaction', x.date, x.amount, ?, x.name, x.notes, x.pending, x.ext, ?
			FROM unnest(?::uuid[], ?::text[], ?::date[], ?::numeric[], ?::text[], ?::text[], ?::boolean[]) AS x(id, ext, date, amount, name, notes, pending)
			ON CONFLICT (account_id, source, external_id) WHERE external_id IS NOT NULL AND source IS NOT NULL
			DO UPDATE SET amount = excluded.amount, date = excluded.date, pending = excluded.pending, updated_at = now(), `+syncedBy+`,
				-- The bank's name is compared with the bank's: a rule's clean-up (original_name
				-- keeps what it replaced) or a hand edit is not a change. A name or notes a person
				-- set stay, the bank's new text beside the name.
				name = CASE WHEN 'name' = ANY (entries.locked_fields) THEN entries.name ELSE excluded.name END,
				original_name = CASE WHEN 'name' = ANY (entries.locked_fields) THEN excluded.name END,
				notes = CASE WHEN 'notes' = ANY (entries.locked_fields) THEN entries.notes ELSE excluded.notes END
			WHERE (entries.amount, entries.date, coalesce(entries.original_name, entries.name), entries.pending,
					CASE WHEN 'notes' = ANY (entries.locked_fields) THEN excluded.notes ELSE entries.notes END)
				IS DISTINCT FROM (excluded.amount, excluded.date, excluded.name, excluded.pending, excluded.notes)
			RETURNING id, (xmax = 0) AS inserted`,
			acct.FamilyID, acct.ID, acct.Currency, source, pgdialect.Array(ids), pgdialect.Array(exts), pgdialect.Array(dates),
			pgdialect.Array(amounts), pgdialect.Array(names), pgdialect.Array(notes), pgdialect.Array(pend)).Scan(ctx, &written)
		if err != nil && !db.IsNoRows(err) {
			return err
		}
		stats.add(written)
		for _, w := range written {
			stats.written = append(stats.written, w.ID)
		}
	}
	// A pending transaction the provider no longer reports was dropped by the bank.
	var gone []uuid.UUID
	for _, e := range old {
		if _, ok := seen[e.ExternalID]; !ok && e.Pending && !claimed[e.ID] && !e.Date.Before(from) {
			gone = append(gone, e.ID)
		}
	}
	if len(gone) > 0 {
		res, err := tx.NewRaw("DELETE FROM entries WHERE id IN (?)", bun.In(gone)).Exec(ctx)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		stats.Removed += int(n)
	}
	return nil
}

// match finds the entry a posted transaction new by id stands for: a pending one of the same
// amount dated at most 8 days before, else a posted one with the same date, amount and name
// whose id the provider no longer sends (a rotated id).
func match(old []existing, claimed map[uuid.UUID]bool, seen map[string]Transaction, amount decimal.Decimal, date time.Time, name string) *existing {
	var best *existing
	for i := range old {
		e := &old[i]
		if claimed[e.ID] || !e.Amount.Equal(amount) {
			continue
		}
		if e.Pending && !e.Date.After(date) && date.Sub(e.Date) <= pendingMatchDays*24*time.Hour {
			if best == nil || e.Date.After(best.Date) {
				best = e
			}
		}
	}
	if best != nil {
		return best
	}
	for i := range old {
		e := &old[i]
		if _, stillSent := seen[e.ExternalID]; !claimed[e.ID] && !e.Pending && !stillSent && e.Amount.Equal(amount) && e.Date.Equal(date) && e.Name == name {
			return e
		}
	}
	return nil
}

// entryName is the name a transaction is shown with: payee and description, or whichever the
// provider gives, as far as a name goes.
func entryName(t Transaction) string {
	switch {
	case t.Payee != "" && t.Description != "" && !strings.EqualFold(t.Payee, t.Description):
		name, _ := models.Clip(t.Payee+" - "+t.Description, models.MaxName)
		return name
	case t.Payee != "":
		return t.Payee
	case t.Description != "":
		return t.Description
	case t.Memo != "":
		return t.Memo
	}
	return "Unknown transaction"
}
