package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/members"
	"tally/models"
	"tally/views"
)

// invitationRoutes registers the pages an invitation's link opens. The link's token, single
// use and unguessable, stands for the invitee; joining as an existing user needs that user
// signed in.
func (a *app) invitationRoutes(web *echo.Group) {
	web.GET("/invitations/accept", a.invitationShow)
	web.POST("/invitations/accept", a.invitationAccept, a.rateLimit("login", loginRule))
	web.POST("/invitations/join", a.invitationJoin, a.requireUser, a.requireEnrolment)
}

// invitationShow is the page of an invitation's link: a form to set a password and name (or
// single sign-on), or, when the address has a user, a sign-in and then a confirmation.
func (a *app) invitationShow(c echo.Context) error {
	token := c.QueryParam("token")
	inv, err := a.Members.Open(c.Request().Context(), token)
	if err != nil {
		return a.invitationRefused(c, err)
	}
	return a.renderInvitation(c, http.StatusOK, inv, token, nil)
}

// renderInvitation shows the invitation inv's page, with form's problems.
func (a *app) renderInvitation(c echo.Context, status int, inv *models.Invitation, token string, form *views.Form) error {
	ctx := c.Request().Context()
	p := views.InvitationAccept{Invitation: inv, Token: token, Form: form, Me: currentUser(c),
		PasswordAllowed: a.Auth.Policy.LocalLoginEnabled, Providers: a.ssoButtons(c)}
	_, err := models.UserByEmail(ctx, a.DB, inv.Email)
	switch {
	case err == nil:
		p.Existing = true
		if p.Me == nil {
			// After signing in, the person comes back here to confirm.
			a.Sessions.Put(ctx, sessReturnTo, c.Request().URL.RequestURI())
		} else if p.Me.Email == inv.Email {
			if p.Old, err = members.LeavesFamilyEmpty(ctx, a.DB, p.Me); err != nil {
				return err
			}
		}
	case !apperr.Is(err, apperr.NotFound):
		return err
	}
	return a.render(c, status, views.InvitationAcceptPage(p))
}

// invitationAccept is POST /invitations/accept: the invitee sets a password and joins the
// inviting family, then signs in with it.
func (a *app) invitationAccept(c echo.Context) error {
	ctx := c.Request().Context()
	token := c.FormValue("token")
	if !a.Auth.Policy.LocalLoginEnabled {
		return a.invitationRefused(c, apperr.New(apperr.Forbidden, "Password sign-in is off here: accept the invitation through single sign-on."))
	}
	form := formOf(c, "first_name", "last_name")
	u, err := a.Members.AcceptWithPassword(ctx, token, members.NewMember{FirstName: form.Value("first_name"),
		LastName: form.Value("last_name"), Password: c.FormValue("password")}, a.meta(c))
	if e := apperr.As(err); e != nil && len(e.Fields) > 0 {
		return a.invitationFormRefused(c, token, form, err)
	}
	if err != nil {
		return a.invitationRefused(c, err)
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "sign_in_flash.invitation_ready", "Email", u.Email))
	return redirect(c, "/sessions/new")
}

// invitationJoin is POST /invitations/join: the signed-in user the invitation is for moves
// into the inviting family.
func (a *app) invitationJoin(c echo.Context) error {
	ctx := c.Request().Context()
	token := c.FormValue("token")
	form := formOf(c, "delete_family")
	err := a.Members.Join(ctx, token, currentUser(c), form.Value("delete_family") != "", a.meta(c))
	if e := apperr.As(err); e != nil && len(e.Fields) > 0 {
		return a.invitationFormRefused(c, token, form, err)
	}
	if err != nil {
		return a.invitationRefused(c, err)
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "sign_in_flash.joined"))
	return redirect(c, "/")
}

// invitationFormRefused shows the invitation's page again, with the problems err names on
// its form.
func (a *app) invitationFormRefused(c echo.Context, token string, form *views.Form, err error) error {
	inv, openErr := a.Members.Open(c.Request().Context(), token)
	if openErr != nil {
		return a.invitationRefused(c, openErr)
	}
	status, _ := withError(inLanguage(c), form, err)
	return a.renderInvitation(c, status, inv, token, form)
}

// invitationRefused answers a dead link, or a refusal, with its reason on the sign-in page.
func (a *app) invitationRefused(c echo.Context, err error) error {
	e := apperr.As(err)
	if e == nil || e.Code == apperr.Internal {
		return err
	}
	a.flash(c, "error", e.Message)
	if currentUser(c) != nil {
		return redirect(c, "/")
	}
	return redirect(c, "/sessions/new")
}
