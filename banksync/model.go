package banksync

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
)

// Connection statuses.
const (
	StatusGood       = "good"
	StatusNeedsToken = "needs_token" // the provider refused the access URL: paste a new setup token
)

// Connection is one claimed access URL of a family.
type Connection struct {
	bun.BaseModel `bun:"table:bank_connections,alias:bc"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid"`
	FamilyID       uuid.UUID  `bun:"family_id,type:uuid"`
	Name           string     `bun:"name"`
	AccessURL      string     `bun:"access_url"` // encrypted in the table, plain in memory
	Status         string     `bun:"status"`
	IncludePending bool       `bun:"include_pending"`
	Protocol       int        `bun:"protocol"`
	HistoryDays    int        `bun:"history_days"`
	SyncMinute     int        `bun:"sync_minute"`
	LastSyncedAt   *time.Time `bun:"last_synced_at"`
	LastAttemptAt  *time.Time `bun:"last_attempt_at"`
	PausedUntil    *time.Time `bun:"paused_until"`
	LastError      *string    `bun:"last_error"`
	RequestsOn     *time.Time `bun:"requests_on,type:date"`
	RequestsToday  int        `bun:"requests_today"`
	LastStats      Stats      `bun:"last_stats,type:jsonb"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:now()"`
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

// DailyRequestBudget is how many requests a connection makes to the provider in a UTC day:
// SimpleFIN Bridge warns a token past 24 a day and may disable it.
const DailyRequestBudget = 24

// RequestsLeft is what remains of today's request budget at now.
func (c *Connection) RequestsLeft(now time.Time) int {
	if c.RequestsOn == nil || !sameDay(*c.RequestsOn, now) {
		return DailyRequestBudget
	}
	return max(0, DailyRequestBudget-c.RequestsToday)
}

func sameDay(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}
