package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/members"
	"tally/models"
)

// InvitationJSON is Invitation in the OpenAPI document. AcceptURL is the one-time link, in the
// answer that made it only, and only when it was not mailed.
type InvitationJSON struct {
	ID         string  `json:"id"`
	Email      string  `json:"email"`
	Role       string  `json:"role"`
	Status     string  `json:"status"`
	ExpiresAt  apiTime `json:"expires_at"`
	CreatedAt  apiTime `json:"created_at"`
	Mailed     *bool   `json:"mailed,omitempty"`
	AcceptURL  string  `json:"accept_url,omitempty"`
	MailFailed bool    `json:"mail_failed,omitempty"`
}

func invitationJSON(inv *models.Invitation) InvitationJSON {
	return InvitationJSON{ID: inv.ID.String(), Email: inv.Email, Role: string(inv.Role), Status: inv.Status,
		ExpiresAt: apiTime(inv.ExpiresAt), CreatedAt: apiTime(inv.CreatedAt)}
}

func sentJSON(sent *members.Sent) InvitationJSON {
	out := invitationJSON(sent.Invitation)
	out.Mailed = &sent.Mailed
	if !sent.Mailed {
		out.AcceptURL, out.MailFailed = sent.Link, sent.MailFailed
	}
	return out
}

// requireAPIMembersAdmin lets only the family's admins manage who belongs to it.
var requireAPIMembersAdmin = adminsOnly(apperr.Forbidden, "Only an admin of the family can manage its invitations")

// apiInvitations is GET /api/v1/invitations: the family's open invitations.
func (a *app) apiInvitations(c echo.Context) error {
	list, err := a.Members.Pending(c.Request().Context(), currentUser(c).FamilyID)
	if err != nil {
		return err
	}
	out := make([]InvitationJSON, len(list))
	for i := range list {
		out[i] = invitationJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiInvitationCreate is POST /api/v1/invitations: {email, role}.
func (a *app) apiInvitationCreate(c echo.Context) error {
	var req struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	}
	if err := decodeStrict(c, &req, "an invitation"); err != nil {
		return err
	}
	sent, err := a.Members.Invite(c.Request().Context(), currentUser(c), req.Email, models.Role(req.Role), a.meta(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": sentJSON(sent)})
}

// apiInvitationResend is POST /api/v1/invitations/{id}/resend: a new link, the old one dead.
func (a *app) apiInvitationResend(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	sent, err := a.Members.Resend(c.Request().Context(), currentUser(c), id, a.meta(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": sentJSON(sent)})
}

// apiInvitationDelete is DELETE /api/v1/invitations/{id}: the invitation is revoked.
func (a *app) apiInvitationDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if _, err := a.Members.Revoke(c.Request().Context(), currentUser(c), id, a.meta(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
