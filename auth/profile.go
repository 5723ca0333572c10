package auth

import (
	"context"
	"fmt"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/password"
	"tally/internal/sessions"
	"tally/models"
)

// ProfileChange is a person's change to their own profile. Changing the email needs the
// current password, as it is what they sign in with.
type ProfileChange struct {
	models.ProfileInput
	CurrentPassword string
}

// UpdateProfile saves u's name, email, locale and date format. A new email needs u's current
// password; a user who signs in only through SSO has none, and their email is their
// provider's to change.
func (s *Service) UpdateProfile(ctx context.Context, u *models.User, ch ProfileChange) error {
	if models.NormalizeEmail(ch.Email) != u.Email {
		var v apperr.Validation
		switch {
		case u.PasswordHash == nil:
			v.AddText("email", "validation.email_from_provider")
		case ch.CurrentPassword == "":
			v.AddText("current_password", "validation.current_password_for_email")
		default:
			ok, err := checkPassword(*u.PasswordHash, ch.CurrentPassword)
			if err != nil {
				return fmt.Errorf("check password: %w", err)
			}
			if !ok {
				v.AddText("current_password", "validation.current_password_wrong")
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
	}
	return models.UpdateProfile(ctx, s.DB, u.ID, ch.ProfileInput)
}

// ChangePassword replaces u's password after checking the current one, and signs out u's
// other sessions (keep is the token of the one in use). It returns how many were signed out.
func (s *Service) ChangePassword(ctx context.Context, u *models.User, current, next, confirmation, keep string) (int64, error) {
	var v apperr.Validation
	if u.PasswordHash == nil {
		v.AddText("current_password", "validation.no_tally_password")
		return 0, v.Err()
	}
	ok, err := checkPassword(*u.PasswordHash, current)
	if err != nil {
		return 0, fmt.Errorf("check password: %w", err)
	}
	if !ok {
		v.AddText("current_password", "validation.current_password_wrong")
	}
	if id, data := password.Problem(next); id != "" {
		v.AddText("password", id, data...)
	} else if next != confirmation {
		v.AddText("password_confirmation", "validation.password_confirmation")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	hash, err := password.Hash(next)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if err := models.SetPasswordHash(ctx, tx, u.ID, hash); err != nil {
			return err
		}
		n, err = sessions.RevokeUser(ctx, tx, u.ID, keep)
		return err
	})
	return n, err
}
