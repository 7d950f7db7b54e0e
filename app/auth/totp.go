package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"image/png"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// Two-factor sign-in: time-based one-time passwords (RFC 6238: SHA-1, six digits, 30 s
// steps, as every authenticator app reads them) and single-use recovery codes.

// TOTPPeriod is the length of a time step.
const TOTPPeriod = 30 * time.Second

// RecoveryCodeCount is how many recovery codes an enrolment gives.
const RecoveryCodeCount = 10

// TOTPKey is a new secret to enrol: its base32 text (typed into an app) and its otpauth URL
// (the QR code's content).
type TOTPKey struct {
	Secret string
	URL    string
}

// NewTOTPKey makes a secret for the account (the user's email) under issuer (the tenant).
func NewTOTPKey(issuer, account string) (TOTPKey, error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account})
	if err != nil {
		return TOTPKey{}, err
	}
	return TOTPKey{Secret: k.Secret(), URL: k.URL()}, nil
}

// TOTPQRCode is the QR code of an otpauth URL as a PNG data URI, for an <img> (the
// content security policy allows data: images, and no script is needed).
func TOTPQRCode(url string, size int) (string, error) {
	k, err := otp.NewKeyFromURL(url)
	if err != nil {
		return "", err
	}
	img, err := k.Image(size, size)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// CheckTOTP checks a six-digit code against the secret at now, allowing one step of clock
// drift either way, and returns the time step it matched. A step at or before lastStep is
// refused, so a code (even one seen over a shoulder) works only once.
func CheckTOTP(code, secret string, now time.Time, lastStep int64) (step int64, ok bool) {
	code = strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, code)
	if len(code) != 6 || secret == "" {
		return 0, false
	}
	current := now.Unix() / int64(TOTPPeriod/time.Second)
	for _, s := range []int64{current - 1, current, current + 1} {
		if s <= lastStep {
			continue
		}
		want, err := totp.GenerateCode(secret, time.Unix(s*int64(TOTPPeriod/time.Second), 0))
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// recoveryAlphabet leaves out letters and digits that read alike (0/o, 1/l/i).
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// NewRecoveryCodes makes RecoveryCodeCount codes of ten characters ("xxxxx-xxxxx", about
// 49 bits each).
func NewRecoveryCodes() []string {
	out := make([]string, RecoveryCodeCount)
	b := make([]byte, 10)
	for i := range out {
		_, _ = rand.Read(b)
		var sb strings.Builder
		for j, c := range b {
			if j == 5 {
				sb.WriteByte('-')
			}
			sb.WriteByte(recoveryAlphabet[int(c)%len(recoveryAlphabet)])
		}
		out[i] = sb.String()
	}
	return out
}

// HashRecoveryCode is the stored form of a user's recovery code: typed with or without
// its dash, in either case. The user is part of the hash, so equal codes of two users
// differ; the throttle stands between a guesser and the code's 49 bits.
func HashRecoveryCode(tenantID, userID int64, code string) string {
	code = strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
	sum := sha256.Sum256([]byte(strconv.FormatInt(tenantID, 10) + ":" + strconv.FormatInt(userID, 10) + ":" + code))
	return hex.EncodeToString(sum[:])
}

// TOTPSecret is the base32 secret of an otpauth URL.
func TOTPSecret(url string) (string, error) {
	k, err := otp.NewKeyFromURL(url)
	if err != nil {
		return "", err
	}
	if k.Secret() == "" {
		return "", ErrBadToken
	}
	return k.Secret(), nil
}
