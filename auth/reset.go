package auth

import (
	"context"
	"net/url"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/mail"
	"tally/internal/password"
	"tally/internal/sessions"
	"tally/models"
)

// RequestPasswordReset mails a reset link to email if such a user exists and has a password.
// It says nothing either way, so that it cannot be used to find out who has an account.
func (s *Service) RequestPasswordReset(ctx context.Context, email string) error {
	if !s.Policy.PasswordResetEnabled() {
		return apperr.New(apperr.Forbidden, MsgPasswordResetOff)
	}
	u, err := models.UserByEmail(ctx, s.DB, email)
	if apperr.Is(err, apperr.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !u.Active() || u.PasswordHash == nil {
		return nil
	}
	token, err := models.NewToken()
	if err != nil {
		return err
	}
	if _, err := s.DB.NewRaw(
		"INSERT INTO password_resets (id, user_id, token_hash, expires_at) VALUES (gen_random_uuid(), ?, ?, ?)",
		u.ID, models.HashSecret(token), time.Now().Add(resetTokenLifetime)).Exec(ctx); err != nil {
		return err
	}
	link := s.AppURL + "/password_reset/edit?" + url.Values{"token": {token}}.Encode()
	in := i18n.WithLanguage(ctx, u.Lang()) // the mail is in the language its reader chose
	return s.Mailer.Send(ctx, mail.Message{
		To:      u.Email,
		Subject: i18n.T(in, "mail.reset.subject"),
		Body:    i18n.T(in, "mail.reset.body", "Link", link),
		Link:    link,
	})
}

// CheckResetToken reports whether token may still be used.
func (s *Service) CheckResetToken(ctx context.Context, token string) error {
	if !s.Policy.PasswordResetEnabled() {
		return apperr.New(apperr.Forbidden, MsgPasswordResetOff)
	}
	var n int
	err := s.DB.NewRaw("SELECT count(*) FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > now()",
		models.HashSecret(token)).Scan(ctx, &n)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.New(apperr.Invalid, MsgInvalidResetToken)
	}
	return nil
}

// ResetPassword sets a new password with a reset token. The token is used up, every other
// outstanding token of the user is cancelled, and so are the user's sessions.
func (s *Service) ResetPassword(ctx context.Context, token, newPassword string) (*models.User, error) {
	if !s.Policy.PasswordResetEnabled() {
		return nil, apperr.New(apperr.Forbidden, MsgPasswordResetOff)
	}
	if id, data := password.Problem(newPassword); id != "" {
		var v apperr.Validation
		v.AddText("password", id, data...)
		return nil, v.Err()
	}
	hash, err := password.Hash(newPassword)
	if err != nil {
		return nil, err
	}
	var u *models.User
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var userID uuid.UUID
		err := tx.NewRaw(`UPDATE password_resets SET used_at = now()
			WHERE token_hash = ? AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
			models.HashSecret(token)).Scan(ctx, &userID)
		if db.IsNoRows(err) {
			return apperr.New(apperr.Invalid, MsgInvalidResetToken)
		}
		if err != nil {
			return err
		}
		u, err = models.UserByID(ctx, tx, userID)
		if err != nil {
			return err
		}
		if !u.Active() {
			return apperr.New(apperr.Invalid, MsgInvalidResetToken)
		}
		if err := models.SetPasswordHash(ctx, tx, u.ID, hash); err != nil {
			return err
		}
		if _, err := tx.NewRaw("UPDATE password_resets SET used_at = now() WHERE user_id = ? AND used_at IS NULL", u.ID).Exec(ctx); err != nil {
			return err
		}
		_, err = sessions.RevokeUser(ctx, tx, u.ID, "")
		return err
	})
	return u, err
}
