package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/validate"
)

// NewUser is what it takes to add a staff member.
type NewUser struct {
	Email    string
	Name     string
	Phone    string
	Password string
	Role     string
	Locale   string
	Title    string  // a personal title of the tenant's title master ("" for none)
	TimeZone string  // an IANA time zone name ("" for the tenant's)
	TeamIDs  []int64 // the teams the user joins
	// Invite leaves the password unset: the user sets it through an invitation link.
	Invite bool
}

func (n *NewUser) normalise() validate.Errors {
	n.Email = strings.ToLower(strings.TrimSpace(n.Email))
	n.Name, n.Title, n.TimeZone = strings.TrimSpace(n.Name), strings.TrimSpace(n.Title), strings.TrimSpace(n.TimeZone)
	n.Phone = validate.NormalisePhone(n.Phone)
	if n.Name == "" {
		n.Name, _, _ = strings.Cut(n.Email, "@")
	}
	errs := validate.Errors{}
	errs.Check(validate.Required(n.Email), "email", validate.KeyRequired)
	errs.Check(validate.Email(n.Email), "email", validate.KeyInvalidEmail)
	if !n.Invite {
		errs.Check(validate.Password(n.Password), "password", validate.KeyInvalidPassword)
	}
	errs.Check(validate.NoHTML(n.Name), "name", validate.KeyHTMLNotAllowed)
	if n.Phone != "" {
		errs.Check(validate.Phone(n.Phone), "phone", validate.KeyInvalidPhone)
	}
	checkProfile(errs, n.Locale, n.TimeZone)
	return errs
}

// CheckNewUser is the field errors CreateUser would refuse n with, before looking at the
// database (the role, the email's use, the title).
func CheckNewUser(n NewUser) validate.Errors { return n.normalise() }

// CreateUser adds a user with the named role. The email must be unused across all tenants,
// since it is the sign-in name.
func (s Scope) CreateUser(ctx context.Context, n NewUser) (*User, error) {
	if errs := n.normalise(); len(errs) > 0 {
		return nil, errs
	}
	hash := "" // no password matches an empty hash: an invitee signs in once they set one
	if !n.Invite {
		var err error
		if hash, err = auth.HashPassword(n.Password); err != nil {
			return nil, err
		}
	}
	var u *User
	err := s.Tx(ctx, func(tx Scope) error {
		role, err := tx.RoleByName(ctx, n.Role)
		if errors.Is(err, ErrNotFound) {
			return validate.Errors{"role": validate.KeyInvalid}
		} else if err != nil {
			return err
		}
		taken, err := tx.idb.NewSelect().Model((*userDirectory)(nil)).Where("email = ?", n.Email).Exists(ctx)
		if err != nil {
			return err
		}
		if taken {
			return validate.Errors{"email": validate.KeyTaken}
		}
		if err := tx.checkTitle(ctx, n.Title); err != nil {
			return err
		}
		u = &User{Email: n.Email, Name: n.Name, Title: n.Title, Phone: n.Phone, PasswordHash: hash, RoleID: role.ID, Locale: n.Locale,
			TimeZone: n.TimeZone, Active: true}
		if _, err := tx.Insert(u).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		if err := tx.setUserTeams(ctx, u.ID, n.TeamIDs); err != nil {
			return err
		}
		dir := &userDirectory{Email: n.Email, TenantID: tx.TenantID, UserID: u.ID}
		if _, err := tx.idb.NewInsert().Model(dir).Exec(ctx); err != nil {
			if isUniqueViolation(err) {
				return validate.Errors{"email": validate.KeyTaken}
			}
			return err
		}
		if err := tx.LogSecurity(ctx, SecUserCreated, u.ID, ""); err != nil {
			return err
		}
		return tx.Record(ctx, "user", u.ID, "create", nil, u)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// User loads one user of the tenant.
func (s Scope) User(ctx context.Context, id int64) (*User, error) {
	u := &User{}
	err := s.Select(u).Where("id = ?", id).Scan(ctx)
	return u, notFound(err)
}

// SetUserLocale saves a user's language choice ("" to follow the tenant's default).
func (s Scope) SetUserLocale(ctx context.Context, userID int64, locale string) error {
	return s.Tx(ctx, func(tx Scope) error {
		before, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		res, err := tx.Update((*User)(nil)).Set("locale = ?", locale).Set("updated_at = ?", time.Now().UTC()).
			Where("id = ?", userID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return tx.Record(ctx, "user", userID, "update", map[string]string{"locale": before.Locale}, map[string]string{"locale": locale})
	})
}

// Login is what sign-in needs to check a password: the account and its tenant.
type Login struct {
	TenantID int64
	User     *User
}

// FindLogin looks a sign-in email up across tenants; ErrNotFound if there is no such account.
func (db *DB) FindLogin(ctx context.Context, email string) (*Login, error) {
	dir := &userDirectory{}
	err := db.bun.NewSelect().Model(dir).Where("email = ?", strings.ToLower(strings.TrimSpace(email))).Scan(ctx)
	if err != nil {
		return nil, notFound(err)
	}
	u, err := db.System(dir.TenantID, 0).User(ctx, dir.UserID)
	if err != nil {
		return nil, err
	}
	return &Login{TenantID: dir.TenantID, User: u}, nil
}

// isUniqueViolation recognises a unique-key failure on either engine.
func isUniqueViolation(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "SQLSTATE 23505")
}

// Users lists the tenant's active users by name.
func (s Scope) Users(ctx context.Context) ([]User, error) {
	out := []User{}
	err := s.Select(&out).Where("active").OrderExpr("name, id").Scan(ctx)
	return out, err
}
