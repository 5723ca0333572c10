package auditlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Entry is one audit event, as the page lists it and as an archived day stores it (one JSON
// object per line).
type Entry struct {
	ID        uuid.UUID  `bun:"id" json:"id"`
	EventType string     `bun:"event_type" json:"event_type"`
	UserID    *uuid.UUID `bun:"user_id" json:"user_id"`
	// UserEmail is the user's email: today's for an entry in the database, the one at the
	// time of archiving for an archived entry (it outlives the user). "" when there is no
	// user.
	UserEmail string          `bun:"user_email,nullzero" json:"user_email,omitempty"`
	Provider  string          `bun:"provider,nullzero" json:"provider,omitempty"`
	IPAddress string          `bun:"ip_address,nullzero" json:"ip_address,omitempty"`
	UserAgent string          `bun:"user_agent,nullzero" json:"user_agent,omitempty"`
	Metadata  json.RawMessage `bun:"metadata,type:jsonb" json:"metadata"`
	CreatedAt time.Time       `bun:"created_at" json:"created_at"`
	// Archived marks an entry read back from the archive.
	Archived bool `bun:"-" json:"-"`
}

// objectSuffix ends every day's key.
const objectSuffix = ".ndjson.gz"

// Key is the archive key of the UTC day of t: "2026/11/22.ndjson.gz".
func Key(t time.Time) string { return day(t).Format("2006/01/02") + objectSuffix }

// keyDay is the day a key names, or false for a key that is not a day's object.
func keyDay(key string) (time.Time, bool) {
	s, ok := strings.CutSuffix(key, objectSuffix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse("2006/01/02", s)
	return t, err == nil
}

// encode writes entries as gzip NDJSON.
func encode(entries []Entry) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decode reads a day's object: every line must be an entry with an id.
func decode(data []byte) ([]Entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	var out []Entry
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if e.ID == uuid.Nil {
			return nil, fmt.Errorf("line %d: no id", line)
		}
		e.Archived = true
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// A truncated stream fails its CRC check only once read to the end.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return nil, err
	}
	return out, zr.Close()
}

// checksum is the SHA-256 of entries' ids in order of id, so that it names the set of
// entries, whatever their order.
func checksum(entries []Entry) string {
	ids := make([]uuid.UUID, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, id := range ids {
		h.Write(id[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// merge is the union of an archived day's entries and the database's, by id (the database's
// copy wins), in time order.
func merge(archived, fresh []Entry) []Entry {
	byID := make(map[uuid.UUID]Entry, len(archived)+len(fresh))
	for _, e := range archived {
		byID[e.ID] = e
	}
	for _, e := range fresh {
		byID[e.ID] = e
	}
	out := make([]Entry, 0, len(byID))
	for _, e := range byID {
		e.Archived = false
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	return out
}
