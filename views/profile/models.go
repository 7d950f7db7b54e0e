// Package profile holds the views of a user's own profile: details, password, API
// tokens, sessions and two-factor sign-in, and the forgotten-password pages.
package profile

import (
	"time"

	"crm/views/components"
)

// Page is the profile page.
type Page struct {
	Email    string
	RoleName string
	Details  Details
	Password PasswordForm
	Tokens   Tokens
	Sessions []Session
	// SignedOut is how many sessions "sign out everywhere" just ended (-1: not asked).
	TwoFactor TwoFactor
}

// Details is the form of the user's name, phone, language and time zone.
type Details struct {
	Name      string
	Phone     string
	Locale    string
	TimeZone  string
	Locales   []components.Option
	TimeZones []components.Option
	Errors    map[string]string
}

// PasswordForm is the change-password form's errors.
type PasswordForm struct {
	Errors map[string]string
}

// Tokens are the user's named API tokens, the form to make one, and the secret of the one
// just made (shown once).
type Tokens struct {
	Rows      []Token
	Name      string
	Days      string
	Lifetimes []components.Option
	Errors    map[string]string
	NewName   string
	NewSecret string
}

// Token is one named API token.
type Token struct {
	ID       int64
	Name     string
	Created  string
	LastUsed string
	Expires  string
	Expired  bool
}

// Session is one live sign-in of the user.
type Session struct {
	API      bool
	Created  string
	LastUsed string
	Device   string
	IP       string
	Current  bool
}

// TwoFactor is the two-factor part of the profile.
type TwoFactor struct {
	Enabled   bool
	Since     string
	CodesLeft int
	Required  bool
	Errors    map[string]string
}

// Enrol is the two-factor enrolment page: the QR code, the secret to type, the code form;
// or, once confirmed, the recovery codes (shown once).
type Enrol struct {
	QR       string // a PNG data URI
	Secret   string
	Error    string
	Required bool // the user's role requires it: they can do nothing else until done
	Codes    []string
	Title    string // the codes page's heading (enrolled, or codes replaced)
}

// Forgot is the forgotten-password form, or its answer.
type Forgot struct {
	Email string
	Error string
	Sent  bool
}

// Reset is the form that sets a new password through a reset link.
type Reset struct {
	Token string
	Email string
	Error string
}

// When is a time in the user's time zone (UTC when unknown), or "" for none.
func When(t *time.Time, loc *time.Location) string {
	if t == nil || t.IsZero() {
		return ""
	}
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("2006-01-02 15:04 MST")
}
