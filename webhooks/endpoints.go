package webhooks

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/netguard"
)

// Input is an endpoint as an admin writes it. Nil fields are left as they are on update.
type Input struct {
	URL         *string
	Description *string
	Events      *[]string
	Active      *bool
}

// maxURL bounds an endpoint's URL.
const maxURL = 2048

// maxDescription bounds an endpoint's description, in characters.
const maxDescription = 200

// Actor is who changes an endpoint, as the audit log records them.
type Actor struct {
	UserID uuid.UUID
	Meta   auditlog.Meta
}

// audit records a change to ep (auditlog.EventWebhookChanged) in the change's transaction. It
// names the URL's host only: a webhook's path often carries a token of its own.
func audit(ctx context.Context, tx bun.IDB, by Actor, action string, ep *Endpoint, changes []string) error {
	data := map[string]any{"action": action, "webhook_id": ep.ID.String()}
	if u, err := url.Parse(ep.URL); err == nil {
		data["host"] = u.Host
	}
	if changes != nil {
		data["changes"] = changes
	}
	return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventWebhookChanged, UserID: &by.UserID, Meta: by.Meta, Data: data})
}

// SecretPrefix starts every signing secret, so that one is recognised where it is pasted.
const SecretPrefix = "whsec_"

func notFound() error { return apperr.New(apperr.NotFound, "Webhook not found") }

// List returns the family's endpoints, oldest first.
func (s *Service) List(ctx context.Context, familyID uuid.UUID) ([]Endpoint, error) {
	var list []Endpoint
	err := s.DB.NewSelect().Model(&list).Where("family_id = ?", familyID).Order("created_at", "id").Scan(ctx)
	return list, err
}

// Get returns the family's endpoint id; another family's is NotFound.
func (s *Service) Get(ctx context.Context, familyID, id uuid.UUID) (*Endpoint, error) {
	return get(ctx, s.DB, familyID, id)
}

func get(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) (*Endpoint, error) {
	ep := new(Endpoint)
	if err := idb.NewSelect().Model(ep).Where("id = ? AND family_id = ?", id, familyID).Scan(ctx); err != nil {
		if db.IsNoRows(err) {
			return nil, notFound()
		}
		return nil, err
	}
	return ep, nil
}

// Create adds an endpoint to the family and returns it with its signing secret, which is
// never shown again. The URL and the events are required; an endpoint is active unless
// in.Active says otherwise.
func (s *Service) Create(ctx context.Context, familyID uuid.UUID, by Actor, in Input) (*Endpoint, string, error) {
	var v apperr.Validation
	if in.URL == nil {
		v.Add("url", "Enter the URL Tally should send events to.")
	}
	if in.Events == nil {
		v.Add("events", "Choose at least one event.")
	}
	if err := s.validate(in, &v); err != nil {
		return nil, "", err
	}
	secret, stored, err := s.newSecret()
	if err != nil {
		return nil, "", err
	}
	ep := &Endpoint{ID: uuid.Must(uuid.NewV7()), FamilyID: familyID, URL: strings.TrimSpace(*in.URL), Events: normalEvents(*in.Events),
		Secret: stored, Active: true}
	if in.Description != nil {
		ep.Description = strings.TrimSpace(*in.Description)
	}
	if in.Active != nil {
		ep.Active = *in.Active
	}
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// The family's row orders two creates racing for the last place.
		if _, err := tx.NewRaw("SELECT 1 FROM families WHERE id = ? FOR NO KEY UPDATE", familyID).Exec(ctx); err != nil {
			return err
		}
		n, err := tx.NewSelect().Model((*Endpoint)(nil)).Where("family_id = ?", familyID).Count(ctx)
		if err != nil {
			return err
		}
		if n >= MaxEndpoints {
			return apperr.Errorf(apperr.Conflict, "A family can have at most %d webhook endpoints: delete one you no longer use first.", MaxEndpoints).
				WithSlug("too_many_webhooks")
		}
		if _, err = tx.NewInsert().Model(ep).Returning("*").Exec(ctx); err != nil {
			return err
		}
		return audit(ctx, tx, by, "created", ep, nil)
	})
	if err != nil {
		return nil, "", err
	}
	return ep, secret, nil
}

// Update changes the fields in sets of the family's endpoint. Setting it active (resuming it)
// also clears a failing mark: the admin says the endpoint is fixed.
func (s *Service) Update(ctx context.Context, familyID, id uuid.UUID, by Actor, in Input) (*Endpoint, error) {
	var v apperr.Validation
	if err := s.validate(in, &v); err != nil {
		return nil, err
	}
	ep := new(Endpoint)
	var changes []string
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		q := tx.NewUpdate().Model(ep).Where("id = ? AND family_id = ?", id, familyID).Set("updated_at = now()").Returning("*")
		if in.URL != nil {
			q, changes = q.Set("url = ?", strings.TrimSpace(*in.URL)), append(changes, "url")
		}
		if in.Description != nil {
			q, changes = q.Set("description = ?", strings.TrimSpace(*in.Description)), append(changes, "description")
		}
		if in.Events != nil {
			q, changes = q.Set("events = ?", pgdialect.Array(normalEvents(*in.Events))), append(changes, "events")
		}
		if in.Active != nil {
			q, changes = q.Set("active = ?", *in.Active), append(changes, "active")
			if *in.Active {
				q = q.Set("failing_since = NULL")
			}
		}
		if err := updated(q.Exec(ctx)); err != nil {
			return err
		}
		return audit(ctx, tx, by, "updated", ep, changes)
	})
	if err != nil {
		return nil, err
	}
	return ep, nil
}

// updated is the error of an UPDATE … RETURNING of one row: NotFound when there was none.
func updated(res sql.Result, err error) error {
	if db.IsNoRows(err) {
		return notFound()
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound()
	}
	return nil
}

// Delete removes the family's endpoint with its deliveries; jobs still queued for them find
// nothing to send.
func (s *Service) Delete(ctx context.Context, familyID, id uuid.UUID, by Actor) error {
	return s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		ep := new(Endpoint)
		if err := updated(tx.NewDelete().Model(ep).Where("id = ? AND family_id = ?", id, familyID).Returning("*").Exec(ctx)); err != nil {
			return err
		}
		return audit(ctx, tx, by, "deleted", ep, nil)
	})
}

// RotateSecret gives the family's endpoint a new signing secret and returns it, once. The old
// secret stops working at once, retries of earlier events included.
func (s *Service) RotateSecret(ctx context.Context, familyID, id uuid.UUID, by Actor) (*Endpoint, string, error) {
	secret, stored, err := s.newSecret()
	if err != nil {
		return nil, "", err
	}
	ep := new(Endpoint)
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if err := updated(tx.NewUpdate().Model(ep).Where("id = ? AND family_id = ?", id, familyID).
			Set("secret = ?", stored).Set("updated_at = now()").Returning("*").Exec(ctx)); err != nil {
			return err
		}
		return audit(ctx, tx, by, "secret_rotated", ep, nil)
	})
	if err != nil {
		return nil, "", err
	}
	return ep, secret, nil
}

// newSecret makes a signing secret: whsec_ and 32 random bytes in base64url. It returns the
// secret and its encrypted form for the database.
func (s *Service) newSecret() (secret, stored string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	secret = SecretPrefix + base64.RawURLEncoding.EncodeToString(b)
	stored, err = s.Keys.Encrypt(secret, secretColumn.Context())
	return secret, stored, err
}

// secret decrypts an endpoint's stored secret.
func (s *Service) secret(stored string) (string, error) {
	plain, _, err := s.Keys.Decrypt(stored, secretColumn.Context())
	return plain, err
}

// validate adds the problems of in's fields to v and returns v's error.
func (s *Service) validate(in Input, v *apperr.Validation) error {
	if in.URL != nil {
		if msg := s.checkURL(strings.TrimSpace(*in.URL)); msg != "" {
			v.Add("url", msg)
		}
	}
	if in.Description != nil && utf8.RuneCountInString(strings.TrimSpace(*in.Description)) > maxDescription {
		v.Add("description", fmt.Sprintf("Keep the description to %d characters.", maxDescription))
	}
	if in.Events != nil {
		if len(*in.Events) == 0 {
			v.Add("events", "Choose at least one event.")
		}
		for _, e := range *in.Events {
			if !slices.Contains(EventTypes, e) {
				v.Add("events", fmt.Sprintf("%q is not an event: choose from %s.", e, strings.Join(EventTypes, ", ")))
			}
		}
	}
	return v.Err()
}

// checkURL says what is wrong with raw as an endpoint's URL, or "". It must be https, on a
// public address; with AllowInsecure a loopback address may also be used, over http too.
// A host name is not resolved here: it may change, and Control checks each connection.
func (s *Service) checkURL(raw string) string {
	const example = "Enter the full URL of your endpoint, such as https://example.com/tally/webhooks."
	if raw == "" {
		return "Enter the URL Tally should send events to."
	}
	if len(raw) > maxURL {
		return fmt.Sprintf("The URL is too long: at most %d characters.", maxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return example
	}
	if u.User != nil {
		return "A webhook URL cannot hold a user name or password: Tally signs every request instead."
	}
	host := u.Hostname()
	loopback := netguard.Loopback(host)
	switch {
	case loopback && s.AllowInsecure:
		return ""
	case loopback:
		return "The URL points to this machine, which Tally sends webhooks to only with WEBHOOKS_ALLOW_INSECURE=true (for development)."
	case netguard.Private(host):
		return "The URL points to a private or link-local address, which Tally does not send webhooks to."
	case u.Scheme != "https" && s.AllowInsecure:
		return "The URL must use https: plain http is allowed only on a loopback address."
	case u.Scheme != "https":
		return "The URL must use https."
	}
	return ""
}

// normalEvents is events without repeats, in the order of EventTypes.
func normalEvents(events []string) []string {
	out := []string{}
	for _, t := range EventTypes {
		if slices.Contains(events, t) {
			out = append(out, t)
		}
	}
	return out
}
