package banksync

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/models"
)

// Connection statuses.
const (
	StatusGood       = "good"
	StatusNeedsToken = "needs_token" // the provider refused the access URL: paste a new setup token
	// StatusNeedsRenewal is an Enable Banking connection whose consent ended or was revoked:
	// a new authorisation at the same bank renews it.
	StatusNeedsRenewal = "needs_renewal"
	// StatusFailing is a connection whose last sync failed (its last_error says why): the
	// next sync tries again, and one that succeeds makes it good.
	StatusFailing = "failing"
)

// Providers.
const (
	ProviderSimpleFIN     = "simplefin"
	ProviderEnableBanking = "enable_banking"
)

// Connection is one claimed access URL of a family.
type Connection struct {
	bun.BaseModel `bun:"table:bank_connections,alias:bc"`

	ID        uuid.UUID `bun:"id,pk,type:uuid"`
	FamilyID  uuid.UUID `bun:"family_id,type:uuid"`
	Name      string    `bun:"name"`
	Provider  string    `bun:"provider"`
	AccessURL string    `bun:"access_url,nullzero"` // SimpleFIN's; encrypted in the table, plain in memory
	SessionID string    `bun:"session_id,nullzero"` // Enable Banking's; encrypted in the table, plain in memory
	// ASPSPName and ASPSPCountry name an Enable Banking connection's bank.
	ASPSPName        string     `bun:"aspsp_name,nullzero"`
	ASPSPCountry     string     `bun:"aspsp_country,nullzero"`
	ConsentExpiresAt *time.Time `bun:"consent_expires_at"`
	// ConsentNoticeDays is the last consent notice mailed (7 or 1 days before its end).
	ConsentNoticeDays *int       `bun:"consent_notice_days"`
	Status            string     `bun:"status"`
	IncludePending    bool       `bun:"include_pending"`
	Protocol          int        `bun:"protocol"`
	HistoryDays       int        `bun:"history_days"`
	SyncMinute        int        `bun:"sync_minute"`
	LastSyncedAt      *time.Time `bun:"last_synced_at"`
	LastAttemptAt     *time.Time `bun:"last_attempt_at"`
	PausedUntil       *time.Time `bun:"paused_until"`
	LastError         *string    `bun:"last_error"`
	RequestsOn        *time.Time `bun:"requests_on,type:date"`
	RequestsToday     int        `bun:"requests_today"`
	LastStats         Stats      `bun:"last_stats,type:jsonb"`
	CreatedAt         time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt         time.Time  `bun:"updated_at,nullzero,default:now()"`
	// UserID is the member who made the connection, when it is theirs (Theirs): the accounts
	// it brings are private to them until they share them. Nil for the family's connections:
	// those a family admin makes (admins manage the family's bank access, and a member is
	// told to ask one of them), and those made before connections had makers.
	UserID *uuid.UUID `bun:"user_id,type:uuid"`
}

// MakerOf is whose a connection made by user (of role) is: the member's own, or the family's
// (uuid.Nil) when a family admin makes it.
func MakerOf(userID uuid.UUID, role models.Role) uuid.UUID {
	if role == models.RoleAdmin {
		return uuid.Nil
	}
	return userID
}

// Theirs reports whether the connection is u's to see, sync, relink, renew and remove: their
// own, whatever their role, or, for a family admin, the family's (which admins manage).
// Another member's is not found, for admins too: it is their bank access, and its accounts
// are private to them. A member or viewer sees only their own.
func (c *Connection) Theirs(u *models.User) bool {
	if c.UserID != nil {
		return *c.UserID == u.ID
	}
	return u.IsAdmin()
}

// BankAccount is one of the provider's accounts under a connection.
type BankAccount struct {
	bun.BaseModel `bun:"table:bank_accounts,alias:ba"`

	ID                uuid.UUID        `bun:"id,pk,type:uuid"`
	ConnectionID      uuid.UUID        `bun:"connection_id,type:uuid"`
	FamilyID          uuid.UUID        `bun:"family_id,type:uuid"`
	ProviderAccountID string           `bun:"provider_account_id"`
	Name              string           `bun:"name"`
	Currency          string           `bun:"currency"`
	Balance           *decimal.Decimal `bun:"balance,type:numeric"`
	AvailableBalance  *decimal.Decimal `bun:"available_balance,type:numeric"`
	BalanceDate       *time.Time       `bun:"balance_date"`
	Institution       string           `bun:"institution"`
	IBAN              string           `bun:"iban,nullzero"`
	AccountKey        string           `bun:"account_key,nullzero"`
	AccountID         *uuid.UUID       `bun:"account_id,type:uuid"`
	Skipped           bool             `bun:"skipped"`
	Error             *string          `bun:"error"`
	CreatedAt         time.Time        `bun:"created_at,nullzero,default:now()"`
	UpdatedAt         time.Time        `bun:"updated_at,nullzero,default:now()"`
}

// Stats says what a sync did, for the page.
type Stats struct {
	Requests      int `json:"requests"`
	Accounts      int `json:"accounts"`
	Created       int `json:"created"`
	Updated       int `json:"updated"`
	PendingPosted int `json:"pending_posted"`
	Removed       int `json:"removed"`
	Errors        int `json:"errors"`
	// Skipped counts what the provider sent that Tally cannot keep (an amount too large to
	// store), left out so that the rest syncs; Warnings say what each was, the first
	// maxWarnings of them.
	Skipped  int      `json:"skipped"`
	Warnings []string `json:"warnings,omitempty"`

	// written are the transactions this sync created or changed, for the family's rules.
	written []uuid.UUID
}

// upserts is what an INSERT … ON CONFLICT DO UPDATE … RETURNING id, (xmax = 0) AS inserted
// returns: a row per record written, new or changed.
type upserts []struct {
	ID       uuid.UUID `bun:"id"`
	Inserted bool      `bun:"inserted"`
}

// add counts written rows as created or updated.
func (s *Stats) add(written upserts) {
	for _, w := range written {
		if w.Inserted {
			s.Created++
		} else {
			s.Updated++
		}
	}
}

// maxWarnings bounds the warnings a sync keeps, however much the provider sends.
const maxWarnings = 20

// skip counts something the provider sent that the sync leaves out, with why, once however
// many of the sync's answers repeat it.
func (s *Stats) skip(warning string) {
	if slices.Contains(s.Warnings, warning) {
		return
	}
	s.Skipped++
	if len(s.Warnings) < maxWarnings {
		s.Warnings = append(s.Warnings, warning)
	}
}

// DailyRequestBudget is how many requests a connection makes to the provider in a UTC day:
// SimpleFIN Bridge warns a token past 24 a day and may disable it.
const DailyRequestBudget = 24

// DailyReadLimit is how many unattended reads of an account PSD2 lets a provider make in a
// day. An Enable Banking sync reads every linked account once (its balances and all its
// transaction pages), so it counts one against each.
const DailyReadLimit = 4

// Budget is the connection's daily budget: requests for SimpleFIN, reads for Enable Banking.
func (c *Connection) Budget() int {
	if c.Provider == ProviderEnableBanking {
		return DailyReadLimit
	}
	return DailyRequestBudget
}

// RequestsLeft is what remains of today's budget at now.
func (c *Connection) RequestsLeft(now time.Time) int {
	if c.RequestsOn == nil || !sameDay(*c.RequestsOn, now) {
		return c.Budget()
	}
	return max(0, c.Budget()-c.RequestsToday)
}

// UsedToday is how much of today's budget is spent at now.
func (c *Connection) UsedToday(now time.Time) int {
	return c.Budget() - c.RequestsLeft(now)
}

// What a connection's consent at the bank is (Enable Banking's; SimpleFIN has none).
const (
	ConsentActive  = "active"
	ConsentExpired = "expired" // its end date has passed
	// ConsentEnded is a consent the bank no longer honours before its end date: withdrawn,
	// or ended at the bank. Its end date says nothing true any more.
	ConsentEnded = "ended"
)

// ConsentState is the state of the connection's consent at now, "" without one: a connection
// that needs renewal never shows its old end date as if the consent still ran until then.
func (c *Connection) ConsentState(now time.Time) string {
	switch {
	case c.ConsentExpiresAt == nil:
		return ""
	case !c.ConsentExpiresAt.After(now):
		return ConsentExpired
	case c.Status == StatusNeedsRenewal:
		return ConsentEnded
	}
	return ConsentActive
}

// Source is what the connection's entries and accounts carry as their source.
func (c *Connection) Source() string {
	if c.Provider == ProviderEnableBanking {
		return SourceEnableBanking
	}
	return Source
}

func sameDay(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}
