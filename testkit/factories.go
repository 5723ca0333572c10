package testkit

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/internal/db"
	"tally/internal/password"
	"tally/models"
)

// Password is the password of users made by MustCreateUser.
const Password = "correct horse battery staple"

// UserOpts describes a user for MustCreateUser.
type UserOpts struct {
	Email string
	Role  models.Role
	// FamilyID joins an existing family; zero makes a new one.
	FamilyID uuid.UUID
}

// MustCreateUser creates a user with Password, in a new family unless FamilyID is set.
func MustCreateUser(tb testing.TB, d *db.DB, o UserOpts) *models.User {
	tb.Helper()
	ctx := context.Background()
	if o.Email == "" {
		o.Email = "user-" + uuid.NewString()[:8] + "@example.com"
	}
	if o.Role == "" {
		o.Role = models.RoleAdmin
	}
	hash, err := password.Hash(Password)
	must(tb, err, "hash password")
	famID := o.FamilyID
	creator := false
	if famID == uuid.Nil {
		f, err := models.CreateFamily(ctx, d, "Family of "+o.Email, "USD", "", "UTC")
		must(tb, err, "create family")
		famID, creator = f.ID, true
	}
	u, err := models.CreateUser(ctx, d, models.NewUser{FamilyID: famID, Email: o.Email, PasswordHash: &hash, Role: o.Role, FamilyCreator: creator})
	must(tb, err, "create user %s", o.Email)
	u, err = models.UserByID(ctx, d, u.ID)
	must(tb, err, "reload user")
	return u
}

// MustSuspend suspends the user directly in the database.
func MustSuspend(tb testing.TB, d *db.DB, userID uuid.UUID) {
	tb.Helper()
	_, err := d.NewRaw("UPDATE users SET status = 'suspended', suspended_at = now() WHERE id = ?", userID).Exec(context.Background())
	must(tb, err, "suspend user")
}

// MustCreateAccount creates a manual USD account in the family whose balance now is balance,
// or not known when balance is "" (as a blank form leaves it).
func MustCreateAccount(tb testing.TB, d *db.DB, familyID uuid.UUID, name, typ, balance string) *models.Account {
	tb.Helper()
	in := models.AccountInput{Name: name, AccountableType: typ, Currency: "USD"}
	if balance != "" {
		b := decimal.RequireFromString(balance)
		in.Balance = &b
	}
	a, err := models.CreateAccount(context.Background(), d, familyID, in)
	must(tb, err, "create account %s", name)
	return a
}

// MustCreateAPIKey creates an API key for the user and returns the key.
func MustCreateAPIKey(tb testing.TB, d *db.DB, userID uuid.UUID, scope string) string {
	tb.Helper()
	_, key, err := models.CreateAPIKey(context.Background(), d, userID, "key-"+uuid.NewString()[:8], scope)
	must(tb, err, "create API key")
	return key
}

// Ptr returns a pointer to v, for the optional fields of an input.
func Ptr[T any](v T) *T { return &v }

// MustCreateSeries writes n weekly recurring series of 10.00 USD with status into the family,
// on account (none when nil), their next payment today, named "Series 1" to "Series <n>": in
// one statement, past models.MaxRecurringSeries if asked, as no writer of Tally would.
func MustCreateSeries(tb testing.TB, d *db.DB, familyID uuid.UUID, account *uuid.UUID, n int, status string) {
	tb.Helper()
	_, err := d.NewRaw(`INSERT INTO recurring_transactions (id, family_id, account_id, name, amount, currency, interval,
			expected_day_of_month, last_occurrence_date, next_expected_date, status, match_key)
		SELECT gen_random_uuid(), ?, ?, 'Series ' || i, 10, 'USD', 'weekly', extract(day FROM current_date),
			current_date - 7, current_date, ?, 'n:series ' || i
		FROM generate_series(1, ?) AS i`, familyID, account, status, n).Exec(context.Background())
	must(tb, err, "create %d series", n)
}
