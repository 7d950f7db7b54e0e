package store

import (
	"context"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/validate"
)

// Kinds of security log entries of a user's own profile.
const (
	SecPasswordChanged  = "password_changed"
	SecPasswordReset    = "password_reset"
	SecSignedOutOthers  = "signed_out_everywhere"
	SecSignInTwoFactor  = "sign_in_two_factor"
	SecTwoFactorEnabled = "two_factor_enabled"
	SecTwoFactorOff     = "two_factor_disabled"
	SecTwoFactorFailed  = "two_factor_failed"
)

// Field error keys of the profile and of two-factor sign-in.
const (
	KeyWrongPassword = "wrongPassword" // the current password is not the account's
	KeyWrongCode     = "wrongCode"     // not a valid two-factor or recovery code
)

// ProfileInput is what users may change of themselves on their profile.
type ProfileInput struct {
	Name     string `json:"name"`
	Phone    string `json:"phone"`
	Locale   string `json:"locale"`
	TimeZone string `json:"time_zone"`
}

func (in *ProfileInput) normalise() validate.Errors {
	in.Name, in.TimeZone, in.Locale = strings.TrimSpace(in.Name), strings.TrimSpace(in.TimeZone), strings.TrimSpace(in.Locale)
	in.Phone = validate.NormalisePhone(in.Phone)
	errs := validate.Errors{}
	errs.Check(validate.Required(in.Name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(in.Name), "name", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.Name, 100), "name", validate.KeyMaxLength)
	if in.Phone != "" {
		errs.Check(validate.Phone(in.Phone), "phone", validate.KeyInvalidPhone)
	}
	if in.Locale != "" && !i18n.Supported(in.Locale) {
		errs.Add("locale", validate.KeyInvalid)
	}
	if in.TimeZone != "" {
		if _, err := time.LoadLocation(in.TimeZone); err != nil || in.TimeZone == "Local" {
			errs.Add("time_zone", validate.KeyInvalid)
		}
	}
	return errs
}

// UpdateProfile changes the scope's own user's name, phone, language and time zone.
func (s Scope) UpdateProfile(ctx context.Context, in ProfileInput) (*UserRow, error) {
	if errs := in.normalise(); len(errs) > 0 {
		return nil, errs
	}
	err := s.Tx(ctx, func(tx Scope) error {
		before, err := tx.User(ctx, tx.UserID)
		if err != nil {
			return err
		}
		_, err = tx.Update((*User)(nil)).Set("name = ?", in.Name).Set("phone = ?", in.Phone).
			Set("locale = ?", in.Locale).Set("time_zone = ?", in.TimeZone).
			Set("updated_at = ?", time.Now().UTC()).Where("id = ?", tx.UserID).Exec(ctx)
		if err != nil {
			return err
		}
		was := ProfileInput{Name: before.Name, Phone: before.Phone, Locale: before.Locale, TimeZone: before.TimeZone}
		return tx.Record(ctx, "user", tx.UserID, "update", was, in)
	})
	if err != nil {
		return nil, err
	}
	return s.UserView(ctx, s.UserID)
}

// ChangePassword sets the scope's own user's password after checking the current one,
// then signs out every other session of theirs (keep names the one to spare: the
// browser session or the API token the change came from). It returns how many sessions
// ended. A wrong current password is a field error ("currentPassword": invalid).
func (s Scope) ChangePassword(ctx context.Context, current, next string, keep Keep) (int, error) {
	u, err := s.User(ctx, s.UserID)
	if err != nil {
		return 0, err
	}
	errs := validate.Errors{}
	if !auth.CheckPassword(current, u.PasswordHash) {
		errs.Add("current_password", KeyWrongPassword)
	}
	errs.Check(validate.Password(next), "password", validate.KeyInvalidPassword)
	if len(errs) > 0 {
		return 0, errs
	}
	hash, err := auth.HashPassword(next)
	if err != nil {
		return 0, err
	}
	var n int
	err = s.Tx(ctx, func(tx Scope) error {
		_, err := tx.Update((*User)(nil)).Set("password_hash = ?", hash).Set("updated_at = ?", time.Now().UTC()).
			Where("id = ?", tx.UserID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err = tx.signOutOthers(ctx, tx.UserID, keep); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecPasswordChanged, tx.UserID, "")
	})
	return n, err
}

// RequestPasswordReset issues a reset link (valid ResetTTL, single use) for the active
// account of email and returns its token and the account; "" and no error when
// there is no such account, so the caller answers the same either way.
func (db *DB) RequestPasswordReset(ctx context.Context, email string) (token string, u *User, err error) {
	login, err := db.FindLogin(ctx, email)
	if err == ErrNotFound {
		return "", nil, nil
	} else if err != nil {
		return "", nil, err
	}
	if !login.User.Active || login.User.DeletedAt != nil {
		return "", nil, nil
	}
	token, err = db.System(login.TenantID, 0).CreateUserLink(ctx, login.User.ID, LinkReset)
	return token, login.User, err
}

// ResetPassword sets a new password through a live reset link, spends it, and signs the
// user out everywhere (browser sessions and API sign-ins). ErrNotFound for an unknown,
// used or expired link.
func (db *DB) ResetPassword(ctx context.Context, token, password string) (*User, error) {
	u, err := db.UseUserLink(ctx, token, LinkReset, password)
	if err != nil {
		return nil, err
	}
	s := db.System(u.TenantID, u.ID)
	err = s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.signOutOthers(ctx, u.ID, Keep{}); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecPasswordReset, u.ID, "")
	})
	return u, err
}
