package sso

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"time"

	"tally/internal/db"
)

// Flows keeps sign-ins under way in PostgreSQL, so that any instance can finish what another
// started, and each flow can be used once. A flow's binding is a random value kept in the
// browser's session when the flow starts: the callback must come from that session.
type Flows struct {
	DB *db.DB
}

// Save stores a started flow.
func (s *Flows) Save(ctx context.Context, f Flow, binding string) error {
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = s.DB.NewRaw("INSERT INTO sso_flows (state, flow, binding, expires_at) VALUES (?, ?, ?, ?)",
		f.State, string(raw), binding, f.StartedAt.Add(FlowLifetime)).Exec(ctx)
	return err
}

// Take removes and returns the flow with state. An unknown, used or expired state is a
// Failure: the callback was not started here, or not just now.
func (s *Flows) Take(ctx context.Context, state string) (Flow, string, error) {
	var row struct {
		Flow    string `bun:"flow"`
		Binding string `bun:"binding"`
	}
	err := s.DB.NewRaw("DELETE FROM sso_flows WHERE state = ? AND expires_at > now() AND result IS NULL RETURNING flow::text, binding",
		state).Scan(ctx, &row)
	if db.IsNoRows(err) || state == "" {
		return Flow{}, "", fail(ReasonInvalidState, msgTryAgain, fmt.Errorf("no sign-in under way with this state"))
	}
	if err != nil {
		return Flow{}, "", err
	}
	var f Flow
	if err := json.Unmarshal([]byte(row.Flow), &f); err != nil {
		return Flow{}, "", err
	}
	return f, row.Binding, nil
}

// Parked is a SAML identity waiting for its browser's next request.
type Parked struct {
	Flow     Flow      `json:"flow"`
	Identity *Identity `json:"identity"`
}

// Park keeps a verified identity under token until the same browser session claims it.
func (s *Flows) Park(ctx context.Context, token string, p Parked, binding string, now time.Time) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = s.DB.NewRaw("INSERT INTO sso_flows (state, flow, binding, result, expires_at) VALUES (?, ?, ?, ?, ?)",
		"parked:"+token, string(raw), binding, string(raw), now.Add(2*time.Minute)).Exec(ctx)
	return err
}

// Claim removes and returns a parked identity.
func (s *Flows) Claim(ctx context.Context, token string) (Parked, string, error) {
	var row struct {
		Result  string `bun:"result"`
		Binding string `bun:"binding"`
	}
	err := s.DB.NewRaw("DELETE FROM sso_flows WHERE state = ? AND expires_at > now() AND result IS NOT NULL RETURNING result::text, binding",
		"parked:"+token).Scan(ctx, &row)
	if db.IsNoRows(err) || token == "" {
		return Parked{}, "", fail(ReasonInvalidState, msgTryAgain, fmt.Errorf("no parked sign-in with this token"))
	}
	if err != nil {
		return Parked{}, "", err
	}
	var p Parked
	err = json.Unmarshal([]byte(row.Result), &p)
	return p, row.Binding, err
}

// SameBinding compares a flow's binding with the session's, in constant time.
func SameBinding(flow, session string) bool {
	return session != "" && subtle.ConstantTimeCompare([]byte(flow), []byte(session)) == 1
}

// Assertions is the SAML replay cache in PostgreSQL.
type Assertions struct {
	DB *db.DB
}

func (a *Assertions) Use(ctx context.Context, id string, expires time.Time) (bool, error) {
	res, err := a.DB.NewRaw("INSERT INTO sso_saml_assertions (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", id, expires).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Prune removes expired flows and assertion ids.
func Prune(ctx context.Context, d *db.DB) error {
	for _, q := range []string{"DELETE FROM sso_flows WHERE expires_at < now()", "DELETE FROM sso_saml_assertions WHERE expires_at < now()"} {
		if _, err := d.NewRaw(q).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
