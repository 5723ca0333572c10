package handlers

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/internal/ratelimit"
	"tally/members"
	"tally/models"
	"tally/views"
)

// inviteRule bounds the invitations a family sends (and resends) an hour, whether they
// succeed: enough for a household, too few to mail strangers in bulk.
var inviteRule = ratelimit.Rule{Limit: 30, Window: time.Hour}

// memberRoutes registers Settings › Members under the family's settings (family admins only).
// Changing a role, removing someone or inviting an admin takes the admin's second factor
// again, as on Admin › Users: one stolen session must not hand the family over.
func (a *app) memberRoutes(f *echo.Group) {
	f.GET("/members", a.membersIndex)
	f.POST("/invitations", a.invitationCreate, a.limitInvitations, a.stepUp("step_up_action.invite_admin", invitesAnAdmin))
	f.POST("/invitations/:id/resend", a.invitationResend, a.limitInvitations)
	f.POST("/invitations/:id/revoke", a.invitationRevoke)
	f.POST("/members/:id/role", a.memberRole, a.stepUp("step_up_action.change_member_role", nil))
	f.POST("/members/:id/remove", a.memberRemove, a.stepUp("step_up_action.remove_member", nil))
}

// invitesAnAdmin reports whether the invitation form asks for the admin role.
func invitesAnAdmin(c echo.Context) bool { return models.Role(c.FormValue("role")) == models.RoleAdmin }

// limitInvitations counts an invitation sent against its family's inviteRule.
func (a *app) limitInvitations(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res, err := a.Limiter.Allow(c.Request().Context(), "invitations_family:"+currentUser(c).FamilyID.String(), inviteRule)
		if err != nil {
			return err
		}
		if !res.Allowed {
			return a.tooMany(c, res, "invitations")
		}
		return next(c)
	}
}

// membersPage renders the Members page with p's form and new link, after loading the family's
// members and open invitations.
func (a *app) membersPage(c echo.Context, status int, p views.Members) error {
	ctx, u := c.Request().Context(), currentUser(c)
	var err error
	if p.Members, err = models.FamilyMembers(ctx, a.DB, u.FamilyID); err != nil {
		return err
	}
	if p.Invitations, err = a.Members.Pending(ctx, u.FamilyID); err != nil {
		return err
	}
	p.Me = u
	return a.render(c, status, views.MembersPage(p))
}

func (a *app) membersIndex(c echo.Context) error {
	return a.membersPage(c, http.StatusOK, views.Members{})
}

// invitationCreate invites an address with a role: the page shows the link to copy, or says
// it was mailed.
func (a *app) invitationCreate(c echo.Context) error {
	form := formOf(c, "email", "role")
	sent, err := a.Members.Invite(c.Request().Context(), currentUser(c), form.Value("email"), models.Role(form.Value("role")), a.meta(c))
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.membersPage(c, status, views.Members{Form: form})
		}
		return err
	}
	return a.membersPage(c, http.StatusCreated, sentView(sent))
}

// invitationResend gives an open invitation a new link (the old one dies) and sends it again.
func (a *app) invitationResend(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	sent, err := a.Members.Resend(c.Request().Context(), currentUser(c), id, a.meta(c))
	if err != nil {
		return err
	}
	return a.membersPage(c, http.StatusOK, sentView(sent))
}

// sentView shows a sent invitation: its link, or the address it was mailed to.
func sentView(sent *members.Sent) views.Members {
	if sent.Mailed {
		return views.Members{Mailed: sent.Invitation.Email}
	}
	return views.Members{NewLink: sent.Link, NewEmail: sent.Invitation.Email, MailFailed: sent.MailFailed}
}

func (a *app) invitationRevoke(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	inv, err := a.Members.Revoke(c.Request().Context(), currentUser(c), id, a.meta(c))
	if err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "members.revoked", "Email", inv.Email))
	return redirect(c, "/settings/family/members")
}

// memberRole is POST /settings/family/members/:id/role.
func (a *app) memberRole(c echo.Context) error {
	return a.memberAction(c, func(admin *models.User, id uuid.UUID) (string, error) {
		m, err := a.Members.ChangeRole(c.Request().Context(), admin, id, models.Role(c.FormValue("role")), a.meta(c))
		if err != nil {
			return "", err
		}
		ctx := inLanguage(c)
		return i18n.T(ctx, "members.role_changed", "Name", m.DisplayName(), "Role", m.Role.In(ctx)), nil
	})
}

// memberRemove is POST /settings/family/members/:id/remove.
func (a *app) memberRemove(c echo.Context) error {
	return a.memberAction(c, func(admin *models.User, id uuid.UUID) (string, error) {
		m, err := a.Members.Remove(c.Request().Context(), admin, id, a.meta(c))
		if err != nil {
			return "", err
		}
		return i18n.T(inLanguage(c), "members.removed", "Name", m.DisplayName()), nil
	})
}

// memberAction runs a change of a member and comes back to the Members page with its message,
// or with the refusal (the family's last admin, a bad role).
func (a *app) memberAction(c echo.Context, do func(admin *models.User, id uuid.UUID) (string, error)) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	msg, err := do(currentUser(c), id)
	if e := apperr.As(err); e != nil && e.Code != apperr.Internal && e.Code != apperr.NotFound {
		text := e.Message
		for _, msgs := range e.Fields {
			text = msgs[0]
		}
		a.flash(c, "error", text)
		return redirect(c, "/settings/family/members")
	}
	if err != nil {
		return err
	}
	a.flash(c, "success", msg)
	return redirect(c, "/settings/family/members")
}
