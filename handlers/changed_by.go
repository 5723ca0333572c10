package handlers

import (
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/models"
	"tally/views"
)

// ctxMemberNames holds the family's member names, read once per request (memberNames).
const ctxMemberNames = "member_names"

// actAsUser makes the signed-in member (the API key's or token's user) the actor of every
// change the request makes: each transaction, account, rule and budget line it writes
// records them (models.WithActor).
func actAsUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u != nil {
			r := c.Request()
			c.SetRequest(r.WithContext(models.WithActor(r.Context(), models.MemberActor(u.ID))))
		}
		return next(c)
	}
}

// memberNames are the names of the family's members by id, read once per request, on first
// use: who changed a record, for every record of an answer.
func (a *app) memberNames(c echo.Context) (map[uuid.UUID]string, error) {
	if names, ok := c.Get(ctxMemberNames).(map[uuid.UUID]string); ok {
		return names, nil
	}
	names, err := models.MemberNames(c.Request().Context(), a.DB, currentUser(c).FamilyID)
	if err != nil {
		return nil, err
	}
	c.Set(ctxMemberNames, names)
	return names, nil
}

// ChangedByJSON is ChangedBy in the OpenAPI document: who made a record's last change.
type ChangedByJSON struct {
	// Via is "member", or what made the change instead: "rule", "import", "bank sync".
	Via string `json:"via"`
	// UserID and Name are the member's; null for a change not made by a member, and the name
	// null for a user no longer of the family.
	UserID *string `json:"user_id"`
	Name   *string `json:"name"`
}

// changedByJSON is who made the last change, named from names; nil when nothing is known.
func changedByJSON(a models.Actor, names map[uuid.UUID]string) *ChangedByJSON {
	if !a.Known() {
		return nil
	}
	c := a.Named(names)
	out := &ChangedByJSON{Via: c.Via, UserID: uuidString(c.UserID)}
	if c.Name != "" {
		out.Name = &c.Name
	}
	return out
}

// memberOptions are the family's members as a select's choices, by name, after first's.
func (a *app) memberOptions(c echo.Context, first string) ([]views.SelectOption, error) {
	names, err := a.memberNames(c)
	if err != nil {
		return nil, err
	}
	out := make([]views.SelectOption, 0, len(names)+1)
	for id, name := range names {
		out = append(out, views.SelectOption{Value: id.String(), Label: name})
	}
	slices.SortFunc(out, func(x, y views.SelectOption) int {
		return strings.Compare(strings.ToLower(x.Label), strings.ToLower(y.Label))
	})
	return append([]views.SelectOption{{Value: "", Label: first}}, out...), nil
}
