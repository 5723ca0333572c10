package handlers

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/banksync"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/mail"
	"tally/internal/sessions"
	"tally/models"
	"tally/sso"
	"tally/views"
)

const adminUsersPerPage = 25

// adminUserRoutes registers the users' pages. Every change that grants a role or decides who
// may sign in (and removing someone's second factor, which opens their account to a password
// alone) takes the admin's own second factor again: one stolen session must not make lasting
// super admins, nor lock the others out.
func (a *app) adminUserRoutes(g *echo.Group) {
	g.GET("/users", a.usersIndex)
	g.GET("/users/:id", a.userShow)
	g.POST("/users/:id/role", a.userRole, a.stepUp("step_up_action.change_user_role", nil))
	g.POST("/users/:id/suspend", a.userSuspend, a.stepUp("step_up_action.suspend_user", nil))
	g.POST("/users/:id/reactivate", a.userReactivate, a.stepUp("step_up_action.reactivate_user", nil))
	// Without the typed email, the request only asks for it (userDelete).
	g.POST("/users/:id/delete", a.userDelete, a.stepUp("step_up_action.delete_user", func(c echo.Context) bool { return c.FormValue("confirm") != "" }))
	g.POST("/users/:id/sync_roles", a.userSyncRoles, a.stepUp("step_up_action.sync_user_role", nil))
	g.POST("/users/:id/reset_mfa", a.userResetMFA, a.stepUp("step_up_action.reset_user_mfa", nil))
}

// usersIndex is GET /admin/users: every user of the instance, filtered by role, provider
// and status (kept in the URL), paged. An htmx request from the filters gets the table only.
func (a *app) usersIndex(c echo.Context) error {
	ctx := c.Request().Context()
	f := models.UserFilter{Role: c.QueryParam("role"), Provider: c.QueryParam("provider"), Status: c.QueryParam("status"),
		SecondFactor: c.QueryParam("second_factor"), Page: pageNumber(c), PerPage: adminUsersPerPage}
	if !models.ValidSecondFactor(f.SecondFactor) {
		f.SecondFactor = ""
	}
	if !models.Role(f.Role).Valid() {
		f.Role = ""
	}
	if f.Status != models.UserActive && f.Status != models.UserSuspended {
		f.Status = ""
	}
	users, total, err := models.ListUsers(ctx, a.DB, f)
	if err != nil {
		return err
	}
	providers, err := models.ProviderNames(ctx, a.DB)
	if err != nil {
		return err
	}
	l := views.UserList{Users: users, Role: f.Role, Provider: f.Provider, Status: f.Status, SecondFactor: f.SecondFactor, Providers: providers, Me: currentUser(c).ID}
	link := func(p int) string {
		q := url.Values{}
		for k, v := range map[string]string{"role": f.Role, "provider": f.Provider, "status": f.Status, "second_factor": f.SecondFactor} {
			if v != "" {
				q.Set(k, v)
			}
		}
		q.Set("page", strconv.Itoa(p))
		return "/admin/users?" + q.Encode()
	}
	if f.Page > 1 {
		l.PrevURL = link(f.Page - 1)
	}
	if f.Page*adminUsersPerPage < total {
		l.NextURL = link(f.Page + 1)
	}
	if isFragment(c, "users") {
		return a.render(c, http.StatusOK, views.UsersTable(l))
	}
	return a.render(c, http.StatusOK, views.UsersPage(l))
}

// targetUser loads the user of :id.
func (a *app) targetUser(c echo.Context) (*models.User, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return nil, apperr.New(apperr.NotFound, "User not found")
	}
	return models.UserByID(c.Request().Context(), a.DB, id)
}

// userShow is GET /admin/users/:id: roles, sign-in methods, connected accounts and the
// authentication history.
func (a *app) userShow(c echo.Context) error {
	ctx := c.Request().Context()
	u, err := a.targetUser(c)
	if err != nil {
		return err
	}
	ids, err := models.UserIdentities(ctx, a.DB, u.ID)
	if err != nil {
		return err
	}
	history, err := models.AuthHistory(ctx, a.DB, u.ID, 50)
	if err != nil {
		return err
	}
	st, err := a.MFA.StatusOf(ctx, u.ID)
	if err != nil {
		return err
	}
	private, err := privateAccountsLeft(ctx, a.DB, u)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.UserPage(views.UserView{User: u, Identities: ids, History: history, Me: currentUser(c).ID,
		TOTP: st.TOTP, TOTPSince: st.TOTPSince, Passkeys: st.Passkeys, PrivateAccounts: private}))
}

// privateAccountsLeft counts the accounts u keeps private in a family that outlives their
// deletion (none when they are its last member: it goes with them).
func privateAccountsLeft(ctx context.Context, idb bun.IDB, u *models.User) (int, error) {
	if last, err := models.LastOfFamily(ctx, idb, u); err != nil || last {
		return 0, err
	}
	return models.PrivateAccountsOf(ctx, idb, u.FamilyID, u.ID)
}

// refuseSelf stops an admin from acting on their own account; id says, in the catalogues,
// which action they cannot take.
func refuseSelf(c echo.Context, u *models.User, id string) error {
	if currentUser(c).ID == u.ID {
		return apperr.New(apperr.Conflict, i18n.T(inLanguage(c), id))
	}
	return nil
}

// refuseLastSuperAdmin stops the instance's only active super admin from being demoted,
// suspended or deleted.
func refuseLastSuperAdmin(c echo.Context, ctx context.Context, tx db.Tx, u *models.User) error {
	last, err := models.LastActiveSuperAdmin(ctx, tx, u)
	if err != nil || !last {
		return err
	}
	return apperr.New(apperr.Conflict, i18n.T(inLanguage(c), "admin_users.last_super_admin"))
}

// userAction runs a change to a user and its audit event in one transaction, then shows the
// user's page with a message, or the refusal.
func (a *app) userAction(c echo.Context, what string, do func(ctx context.Context, tx db.Tx, u *models.User) (string, error)) error {
	ctx := c.Request().Context()
	u, err := a.targetUser(c)
	if err != nil {
		return err
	}
	var msg string
	err = a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		msg, err = do(ctx, tx, u)
		return err
	})
	if e := apperr.As(err); e != nil && e.Code != apperr.Internal {
		a.flash(c, "error", e.Message)
		return redirect(c, "/admin/users/"+u.ID.String())
	}
	if err != nil {
		return err
	}
	a.flash(c, "success", msg)
	if what == "delete" {
		return redirect(c, "/admin/users")
	}
	return redirect(c, "/admin/users/"+u.ID.String())
}

func (a *app) adminEvent(c echo.Context, kind string, target *models.User, data map[string]any) auditlog.Event {
	actor := currentUser(c)
	if data == nil {
		data = map[string]any{}
	}
	data["actor_user_id"] = actor.ID.String()
	return auditlog.Event{Type: kind, UserID: &target.ID, Meta: a.meta(c), Data: data}
}

// userRole is POST /admin/users/:id/role.
func (a *app) userRole(c echo.Context) error {
	role := models.Role(c.FormValue("role"))
	in := inLanguage(c)
	return a.userAction(c, "role", func(ctx context.Context, tx db.Tx, u *models.User) (string, error) {
		if !role.Valid() {
			return "", apperr.New(apperr.Invalid, i18n.T(in, "admin_users.choose_role"))
		}
		if role == u.Role {
			return i18n.T(in, "admin_users.role_unchanged", "Email", u.Email, "Role", role.In(in)), nil
		}
		if role.Rank() < u.Role.Rank() {
			if err := refuseSelf(c, u, "admin_users.self_demote"); err != nil {
				return "", err
			}
			if err := refuseLastSuperAdmin(c, ctx, tx, u); err != nil {
				return "", err
			}
		}
		if err := models.SetRole(ctx, tx, u.ID, role, "local"); err != nil {
			return "", err
		}
		e := a.adminEvent(c, auditlog.EventRoleChanged, u, map[string]any{"from": u.Role, "to": role, "by": "admin"})
		return i18n.T(in, "admin_users.role_changed", "Email", u.Email, "Role", role.In(in)), auditlog.Record(ctx, tx, e)
	})
}

// userSuspend is POST /admin/users/:id/suspend: the user's sessions end at once, and their
// password, SSO and API keys are refused until reactivation.
func (a *app) userSuspend(c echo.Context) error {
	return a.userAction(c, "suspend", func(ctx context.Context, tx db.Tx, u *models.User) (string, error) {
		if err := refuseSelf(c, u, "admin_users.self_suspend"); err != nil {
			return "", err
		}
		if err := refuseLastSuperAdmin(c, ctx, tx, u); err != nil {
			return "", err
		}
		if err := models.SetSuspended(ctx, tx, u.ID, true); err != nil {
			return "", err
		}
		n, err := sessions.RevokeUser(ctx, tx, u.ID, "")
		if err != nil {
			return "", err
		}
		e := a.adminEvent(c, auditlog.EventUserSuspended, u, map[string]any{"sessions_revoked": n})
		return i18n.T(inLanguage(c), "admin_users.suspended_flash", "Email", u.Email), auditlog.Record(ctx, tx, e)
	})
}

// userReactivate is POST /admin/users/:id/reactivate.
func (a *app) userReactivate(c echo.Context) error {
	return a.userAction(c, "reactivate", func(ctx context.Context, tx db.Tx, u *models.User) (string, error) {
		if u.Active() {
			return i18n.T(inLanguage(c), "admin_users.already_active", "Email", u.Email), nil
		}
		if err := models.SetSuspended(ctx, tx, u.ID, false); err != nil {
			return "", err
		}
		return i18n.T(inLanguage(c), "admin_users.reactivated", "Email", u.Email), auditlog.Record(ctx, tx, a.adminEvent(c, auditlog.EventUserReactivated, u, nil))
	})
}

// userDelete is POST /admin/users/:id/delete: the email must be typed to confirm. The user's
// sessions, connected accounts and API keys go with them; a family they were the last member
// of goes too, with all its data, and otherwise the accounts they kept private become its
// shared accounts (models.ShareWhenLeaving).
func (a *app) userDelete(c echo.Context) error {
	if c.FormValue("confirm") == "" {
		// Without JavaScript the dialog never opened: ask on a page of its own.
		u, err := a.targetUser(c)
		if err != nil {
			return err
		}
		private, err := privateAccountsLeft(c.Request().Context(), a.DB, u)
		if err != nil {
			return err
		}
		return a.render(c, http.StatusOK, views.UserDeletePage(u, private))
	}
	// Set when the deletion's last step has passed; the banks' sessions are ended once the
	// deletion has committed.
	var departure *banksync.Departure
	err := a.userAction(c, "delete", func(ctx context.Context, tx db.Tx, u *models.User) (string, error) {
		if err := refuseSelf(c, u, "admin_users.self_delete"); err != nil {
			return "", err
		}
		if subtle.ConstantTimeCompare([]byte(c.FormValue("confirm")), []byte(u.Email)) != 1 {
			return "", apperr.New(apperr.Invalid, i18n.T(inLanguage(c), "admin_users.confirm_mismatch"))
		}
		if err := refuseLastSuperAdmin(c, ctx, tx, u); err != nil {
			return "", err
		}
		last, err := models.LastOfFamily(ctx, tx, u)
		if err != nil {
			return "", err
		}
		shared, left := 0, &banksync.Departure{}
		if !last {
			// What they kept private becomes their family's, rather than nobody's; the bank
			// connections they made go with them (banksync.Service.Leave).
			if left, err = a.Bank.Leave(ctx, tx, u.FamilyID, u.ID); err != nil {
				return "", err
			}
			if shared, err = models.ShareWhenLeaving(ctx, tx, u.FamilyID, u.ID); err != nil {
				return "", err
			}
		}
		e := a.adminEvent(c, auditlog.EventUserDeleted, u, map[string]any{"target_user_id": u.ID.String(), "family_deleted": last,
			"private_accounts_shared": shared, "bank_connections_disconnected": left.Disconnected})
		e.UserID = nil // the row is about to go; the ids stay in the metadata
		if err := auditlog.Record(ctx, tx, e); err != nil {
			return "", err
		}
		if _, err := sessions.RevokeUser(ctx, tx, u.ID, ""); err != nil {
			return "", err
		}
		if err := models.DeleteUser(ctx, tx, u, last); err != nil {
			return "", err
		}
		departure = left
		return i18n.T(inLanguage(c), "admin_users.deleted", "Email", u.Email), nil
	})
	if err == nil && departure != nil {
		departure.End(c.Request().Context())
	}
	return err
}

// userSyncRoles is POST /admin/users/:id/sync_roles: the role the group mappings give the
// groups of the user's last sign-in through each provider, within the same floors as at
// sign-in.
func (a *app) userSyncRoles(c echo.Context) error {
	in := inLanguage(c)
	return a.userAction(c, "sync", func(ctx context.Context, tx db.Tx, u *models.User) (string, error) {
		ids, err := models.UserIdentities(ctx, tx, u.ID)
		if err != nil {
			return "", err
		}
		all, err := a.SSO.Registry.All(ctx)
		if err != nil {
			return "", err
		}
		var target models.Role
		for _, id := range ids {
			p := providerNamed(all, id.Provider)
			if p == nil {
				continue
			}
			if role, ok := sso.MappedRole(p, id.Groups); ok && role.Rank() > target.Rank() {
				target = role
			}
		}
		if target == "" {
			return i18n.T(in, "admin_users.sync_nothing", "Email", u.Email), nil
		}
		target = sso.WithFloors(u, target)
		if target == u.Role {
			return i18n.T(in, "admin_users.sync_unchanged", "Email", u.Email, "Role", target.In(in)), nil
		}
		if err := models.SetRole(ctx, tx, u.ID, target, "sso"); err != nil {
			return "", err
		}
		e := a.adminEvent(c, auditlog.EventRoleChanged, u, map[string]any{"from": u.Role, "to": target, "by": "sync"})
		return i18n.T(in, "admin_users.sync_changed", "Email", u.Email, "Role", target.In(in)), auditlog.Record(ctx, tx, e)
	})
}

// userResetMFA is POST /admin/users/:id/reset_mfa: a super admin removes a user's second
// factor (a lost phone, no recovery codes left), with a reason, and the user is told by mail.
// The secret is never shown to anyone.
func (a *app) userResetMFA(c echo.Context) error {
	reason := strings.TrimSpace(c.FormValue("reason"))
	var target *models.User
	in := inLanguage(c)
	err := a.userAction(c, "reset_mfa", func(ctx context.Context, tx db.Tx, u *models.User) (string, error) {
		if err := refuseSelf(c, u, "admin_users.self_reset_mfa"); err != nil {
			return "", err
		}
		if reason == "" {
			return "", apperr.New(apperr.Invalid, i18n.T(in, "admin_users.reset_reason_missing"))
		}
		st, err := a.MFA.StatusOf(ctx, u.ID)
		if err != nil {
			return "", err
		}
		if !st.Any() {
			return i18n.T(in, "admin_users.reset_nothing", "Email", u.Email), nil
		}
		if err := a.MFA.ResetAll(ctx, tx, u.ID); err != nil {
			return "", err
		}
		target = u
		e := a.adminEvent(c, auditlog.EventMFADisabled, u, map[string]any{"by": "admin", "reason": reason})
		return i18n.T(in, "admin_users.reset_done", "Email", u.Email), auditlog.Record(ctx, tx, e)
	})
	if err == nil && target != nil {
		link := a.Config.AppURL + "/settings/security"
		told := i18n.WithLanguage(c.Request().Context(), target.Lang()) // the mail is in the language its reader chose
		if merr := a.Auth.Mailer.Send(c.Request().Context(), mail.Message{To: target.Email,
			Subject: i18n.T(told, "mail.mfa_reset.subject"),
			Body:    i18n.T(told, "mail.mfa_reset.body", "Admin", currentUser(c).Email, "Reason", reason, "Link", link),
			Link:    link}); merr != nil {
			a.Log.ErrorContext(c.Request().Context(), "mail about a second-factor reset", "error", merr.Error(), "user_id", target.ID)
		}
	}
	return err
}
