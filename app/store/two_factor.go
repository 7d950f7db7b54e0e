package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// Two-factor sign-in: a user's TOTP secret (on users), their single-use recovery codes
// (hashed), and the second-step challenges of the API sign-in.

// ChallengeTTL is how long a sign-in's second step waits for its code.
const ChallengeTTL = 5 * time.Minute

// ErrWrongCode refuses a second factor that is neither a current code nor an unused
// recovery code of the user.
var ErrWrongCode error = &ruleError{text: "wrong two-factor code", msgID: "twoFactor.wrongCode"}

// ErrTwoFactorRequired refuses turning two-factor sign-in off for a user whose role
// requires it.
var ErrTwoFactorRequired error = &ruleError{text: "two-factor required by the role", msgID: "twoFactor.cannotDisable"}

// ErrTwoFactorOn refuses enrolling a user who already signs in with two factors.
var ErrTwoFactorOn error = &ruleError{text: "two-factor already on", msgID: "twoFactor.alreadyOn"}

type recoveryCode struct {
	bun.BaseModel `bun:"table:recovery_codes,alias:rc"`
	Owned

	ID        int64      `bun:"id,pk,autoincrement"`
	UserID    int64      `bun:"user_id,notnull"`
	CodeHash  string     `bun:"code_hash,notnull"`
	UsedAt    *time.Time `bun:"used_at"`
	CreatedAt time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

type loginChallenge struct {
	bun.BaseModel `bun:"table:login_challenges,alias:lc"`
	Owned

	ID        int64      `bun:"id,pk,autoincrement"`
	UserID    int64      `bun:"user_id,notnull"`
	TokenHash string     `bun:"token_hash,notnull"`
	ExpiresAt time.Time  `bun:"expires_at,notnull"`
	UsedAt    *time.Time `bun:"used_at"`
	CreatedAt time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

// EnableTwoFactor turns two-factor sign-in on for the scope's user with the secret they
// enrolled, once code proves their app reads it, and returns their new recovery codes
// (shown once; only their hashes are kept).
func (s Scope) EnableTwoFactor(ctx context.Context, secret, code string) ([]string, error) {
	step, ok := auth.CheckTOTP(code, secret, time.Now(), 0)
	if !ok {
		return nil, ErrWrongCode
	}
	codes := auth.NewRecoveryCodes()
	err := s.Tx(ctx, func(tx Scope) error {
		u, err := tx.User(ctx, tx.UserID)
		if err != nil {
			return err
		}
		if u.TwoFactor() {
			return ErrTwoFactorOn
		}
		now := time.Now().UTC()
		_, err = tx.Update((*User)(nil)).Set("totp_secret = ?", secret).Set("totp_enabled_at = ?", now).
			Set("totp_last_step = ?", step).Set("updated_at = ?", now).Where("id = ?", tx.UserID).Exec(ctx)
		if err != nil {
			return err
		}
		if err := tx.writeRecoveryCodes(ctx, codes); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTwoFactorEnabled, tx.UserID, "")
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// writeRecoveryCodes replaces the scope's user's recovery codes.
func (s Scope) writeRecoveryCodes(ctx context.Context, codes []string) error {
	if _, err := s.Delete((*recoveryCode)(nil)).Where("user_id = ?", s.UserID).Exec(ctx); err != nil {
		return err
	}
	rows := make([]recoveryCode, len(codes))
	for i, c := range codes {
		rows[i] = recoveryCode{UserID: s.UserID, CodeHash: auth.HashRecoveryCode(s.TenantID, s.UserID, c)}
	}
	for i := range rows {
		if _, err := s.Insert(&rows[i]).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// RecoveryCodesLeft is how many unused recovery codes the scope's user has.
func (s Scope) RecoveryCodesLeft(ctx context.Context) (int, error) {
	n, err := s.Select((*recoveryCode)(nil)).Where("user_id = ? AND used_at IS NULL", s.UserID).Count(ctx)
	return int(n), err
}

// NewRecoveryCodes replaces the scope's user's recovery codes, once code (a current code
// or an unused recovery code) or their password proves it is them.
func (s Scope) NewRecoveryCodes(ctx context.Context, code, password string) ([]string, error) {
	codes := auth.NewRecoveryCodes()
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.proveSelf(ctx, code, password); err != nil {
			return err
		}
		if err := tx.writeRecoveryCodes(ctx, codes); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTwoFactor, tx.UserID, "recovery codes replaced")
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTwoFactor turns two-factor sign-in off for the scope's user, once code (a
// current code or an unused recovery code) or their password proves it is them.
func (s Scope) DisableTwoFactor(ctx context.Context, code, password string) error {
	return s.Tx(ctx, func(tx Scope) error {
		if err := tx.proveSelf(ctx, code, password); err != nil {
			return err
		}
		required, err := tx.Select((*Role)(nil)).Join("JOIN users AS u ON u.tenant_id = r.tenant_id AND u.role_id = r.id").
			Where("u.id = ? AND r.require_2fa", tx.UserID).Exists(ctx)
		if err != nil {
			return err
		}
		if required {
			return ErrTwoFactorRequired
		}
		_, err = tx.Update((*User)(nil)).Set("totp_secret = ''").Set("totp_enabled_at = NULL").Set("totp_last_step = 0").
			Set("updated_at = ?", time.Now().UTC()).Where("id = ?", tx.UserID).Exec(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Delete((*recoveryCode)(nil)).Where("user_id = ?", tx.UserID).Exec(ctx); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTwoFactorOff, tx.UserID, "")
	})
}

// proveSelf checks the scope's user's second factor or, without a code, their password;
// ErrNotFound when two-factor sign-in is off.
func (s Scope) proveSelf(ctx context.Context, code, password string) error {
	u, err := s.User(ctx, s.UserID)
	if err != nil {
		return err
	}
	if !u.TwoFactor() {
		return ErrNotFound
	}
	if code != "" {
		_, err := s.useSecondFactor(ctx, u, code)
		return err
	}
	if password == "" || !auth.CheckPassword(password, u.PasswordHash) {
		return validate.Errors{"password": KeyWrongPassword}
	}
	return nil
}

// Second factors, as the security log names them.
const (
	FactorTOTP     = "totp"
	FactorRecovery = "recovery code"
)

// useSecondFactor accepts a current TOTP code not used before (its step is recorded, in
// the same statement that checks it is new, so two requests cannot both use it) or an
// unused recovery code (spent). ErrWrongCode otherwise.
func (s Scope) useSecondFactor(ctx context.Context, u *User, code string) (string, error) {
	if step, ok := auth.CheckTOTP(code, u.TOTPSecret, time.Now(), u.TOTPLastStep); ok {
		res, err := s.Update((*User)(nil)).Set("totp_last_step = ?", step).
			Where("id = ? AND totp_last_step < ?", u.ID, step).Exec(ctx)
		if err := oneRowOrMore(res, err); err == ErrNotFound {
			return "", ErrWrongCode
		} else if err != nil {
			return "", err
		}
		return FactorTOTP, nil
	}
	res, err := s.Update((*recoveryCode)(nil)).Set("used_at = ?", time.Now().UTC()).
		Where("user_id = ? AND code_hash = ? AND used_at IS NULL", u.ID, auth.HashRecoveryCode(s.TenantID, u.ID, code)).Exec(ctx)
	if err := oneRowOrMore(res, err); err == ErrNotFound {
		return "", ErrWrongCode
	} else if err != nil {
		return "", err
	}
	return FactorRecovery, nil
}

// CheckSecondFactor is a sign-in's second step for a user of the tenant who passed the
// first: the code is checked and spent, and the success or failure lands in the security
// log. ErrWrongCode for a wrong, used or replayed code.
func (db *DB) CheckSecondFactor(ctx context.Context, tenantID, userID int64, code string) error {
	s := db.System(tenantID, userID)
	var factor string
	err := s.Tx(ctx, func(tx Scope) error {
		u, err := tx.User(ctx, userID)
		if err != nil {
			return err
		}
		if !u.Active || !u.TwoFactor() {
			return ErrNotFound
		}
		factor, err = tx.useSecondFactor(ctx, u, code)
		return err
	})
	if err == ErrWrongCode {
		if lerr := s.LogSecurity(ctx, SecTwoFactorFailed, userID, ""); lerr != nil {
			return lerr
		}
		return err
	} else if err != nil {
		return err
	}
	return s.LogSecurity(ctx, SecSignInTwoFactor, userID, factor)
}

// CreateLoginChallenge starts the second step of an API sign-in for a user who gave the
// right password: a token ("<tenant>.<secret>", only its hash kept) good for ChallengeTTL,
// once.
func (db *DB) CreateLoginChallenge(ctx context.Context, tenantID, userID int64) (string, error) {
	token, hash := auth.NewToken(tenantID)
	c := &loginChallenge{UserID: userID, TokenHash: hash, ExpiresAt: time.Now().UTC().Add(ChallengeTTL)}
	_, err := db.System(tenantID, userID).Insert(c).Exec(ctx)
	return token, err
}

// LoginChallengeUser is the tenant and user of a live challenge (unused, not expired);
// ErrNotFound otherwise.
func (db *DB) LoginChallengeUser(ctx context.Context, token string) (tenantID, userID int64, err error) {
	tenantID, hash, err := auth.ParseToken(token)
	if err != nil {
		return 0, 0, ErrNotFound
	}
	c := &loginChallenge{}
	err = db.System(tenantID, 0).Select(c).
		Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", hash, time.Now().UTC()).Scan(ctx)
	if err != nil {
		return 0, 0, notFound(err)
	}
	return tenantID, c.UserID, nil
}

// SpendLoginChallenge marks a live challenge used; ErrNotFound when it was spent meanwhile
// or has expired, so it signs in once.
func (db *DB) SpendLoginChallenge(ctx context.Context, token string) error {
	tenantID, hash, err := auth.ParseToken(token)
	if err != nil {
		return ErrNotFound
	}
	now := time.Now().UTC()
	res, err := db.System(tenantID, 0).Update((*loginChallenge)(nil)).Set("used_at = ?", now).
		Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", hash, now).Exec(ctx)
	return oneRowOrMore(res, err)
}
