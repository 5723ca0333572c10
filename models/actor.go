package models

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The makers of a change besides a member, as updated_via records them.
const (
	ViaMember   = "member"
	ViaRule     = "rule"
	ViaImport   = "import"
	ViaBankSync = "bank sync"
)

// Actor is who makes a change of the family's data: a member (UserID, Via ViaMember) through
// a page or the API, or the machinery instead (Via ViaRule, ...). Every transaction, account,
// rule and budget category records its last change's actor in updated_by and updated_via,
// written in the statement that makes the change.
type Actor struct {
	UserID *uuid.UUID
	Via    string
}

// MemberActor is the member id making a change through a page or the API.
func MemberActor(id uuid.UUID) Actor { return Actor{UserID: &id, Via: ViaMember} }

type actorKey struct{}

// WithActor returns ctx carrying who makes the changes of its requests. The web layer puts the
// signed-in member there once per request, so that every write below it records them without
// each function's signature naming them.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf is the actor of ctx; without one (a job, a command), nobody known: NULLs.
func ActorOf(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// ViaOrNil is updated_via as written: NULL for nobody known.
func (a Actor) ViaOrNil() *string {
	if a.Via == "" {
		return nil
	}
	return &a.Via
}

// RecordedActor is the actor of a record's updated_by and updated_via.
func RecordedActor(by *uuid.UUID, via *string) Actor {
	a := Actor{UserID: by}
	if via != nil {
		a.Via = *via
	}
	return a
}

// Known reports whether anything is known of who made the change.
func (a Actor) Known() bool { return a.UserID != nil || a.Via != "" }

// ChangedBy is who made a record's last change, as pages and the API show it.
type ChangedBy struct {
	Actor
	// Name is the member's display name; "" when they are no longer of the family.
	Name string
}

// SetActorSQL sets the who of a change, with an Actor's UserID and ViaOrNil as arguments:
// q.Set(SetActorSQL, a.UserID, a.ViaOrNil()).
const SetActorSQL = "updated_by = ?, updated_via = ?"

// MemberNames are the display names of the family's members by id (a household is few), for
// the ChangedBy of many records at once.
func MemberNames(ctx context.Context, db bun.IDB, familyID uuid.UUID) (map[uuid.UUID]string, error) {
	members, err := FamilyMembers(ctx, db, familyID)
	if err != nil {
		return nil, err
	}
	names := make(map[uuid.UUID]string, len(members))
	for i := range members {
		names[members[i].ID] = members[i].DisplayName()
	}
	return names, nil
}

// Named is a with its member's name from names (MemberNames): none for a user who is no
// longer of the family.
func (a Actor) Named(names map[uuid.UUID]string) ChangedBy {
	c := ChangedBy{Actor: a}
	if a.UserID != nil {
		c.Name = names[*a.UserID]
	}
	return c
}
