package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// API key scopes. read_write includes read.
const (
	ScopeRead      = "read"
	ScopeReadWrite = "read_write"
)

// apiKeyPrefix marks Tally's keys, so that secret scanners and people recognise them.
const apiKeyPrefix = "tally_"

// APIKey lets a program act for a user through the API. Only the key's SHA-256 is stored.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID         uuid.UUID  `bun:"id,pk,type:uuid"`
	UserID     uuid.UUID  `bun:"user_id,type:uuid"`
	Name       string     `bun:"name"`
	Prefix     string     `bun:"prefix"`
	KeyHash    string     `bun:"key_hash"`
	Scope      string     `bun:"scope"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	ExpiresAt  *time.Time `bun:"expires_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
}

// Active reports whether the key may be used now.
func (k *APIKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || k.ExpiresAt.After(now))
}

// ScopeCovers reports whether credentials of scope have (an API key's or an OAuth token's)
// may do what needs scope need: read_write covers both, read only read.
func ScopeCovers(have, need string) bool {
	return have == ScopeReadWrite || (have == ScopeRead && need == ScopeRead)
}

// HashSecret returns the stored form of a secret token: its SHA-256, hex.
func HashSecret(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey makes a new key for the user and returns the record and the key itself, which
// is never stored and cannot be shown again.
func CreateAPIKey(ctx context.Context, db bun.IDB, userID uuid.UUID, name, scope string) (*APIKey, string, error) {
	name = strings.TrimSpace(name)
	var v apperr.Validation
	if name == "" {
		v.Add("name", "Name can't be blank")
	}
	CheckText(&v, "name", "Name", name, MaxName)
	if scope != ScopeRead && scope != ScopeReadWrite {
		v.Add("scope", "Scope must be either 'read' or 'read_write'")
	}
	if err := v.Err(); err != nil {
		return nil, "", err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", err
	}
	key := apiKeyPrefix + hex.EncodeToString(secret)
	k := &APIKey{
		ID: newID(), UserID: userID, Name: name, Scope: scope,
		Prefix: key[:len(apiKeyPrefix)+6], KeyHash: HashSecret(key),
	}
	if _, err := db.NewInsert().Model(k).Exec(ctx); err != nil {
		if c, ok := apperr.UniqueViolation(err); ok && c == "api_keys_active_name_key" {
			v.Add("name", "Name has already been taken")
			return nil, "", v.Err()
		}
		return nil, "", err
	}
	return k, key, nil
}

// APIKeyByKey returns the key record whose hash matches key, whatever its state.
func APIKeyByKey(ctx context.Context, db bun.IDB, key string) (*APIKey, error) {
	k := new(APIKey)
	err := db.NewSelect().Model(k).Where("key_hash = ?", HashSecret(key)).Scan(ctx)
	return k, notFound(err, "API key")
}

// APIKeysForUser lists the user's keys, active first, newest first.
func APIKeysForUser(ctx context.Context, db bun.IDB, userID uuid.UUID) ([]APIKey, error) {
	var keys []APIKey
	err := db.NewSelect().Model(&keys).Where("user_id = ?", userID).
		OrderExpr("revoked_at IS NOT NULL, created_at DESC").Scan(ctx)
	return keys, err
}

// RevokeAPIKey revokes one of the user's keys. Another user's key is not found.
func RevokeAPIKey(ctx context.Context, db bun.IDB, userID, id uuid.UUID) error {
	res, err := db.NewUpdate().Model((*APIKey)(nil)).Set("revoked_at = now()").
		Where("id = ? AND user_id = ? AND revoked_at IS NULL", id, userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, "API key not found")
	}
	return nil
}

// TouchAPIKey records a use of the key, at most once a minute so that busy keys do not write
// on every request.
func TouchAPIKey(ctx context.Context, db bun.IDB, id uuid.UUID) error {
	_, err := db.NewUpdate().Model((*APIKey)(nil)).Set("last_used_at = now()").
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')", id).Exec(ctx)
	return err
}
