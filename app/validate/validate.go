// Package validate holds the spec's reusable validators and the field → error-key map
// that every form and JSON call reports.
package validate

import (
	"maps"
	"net/mail"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Error keys of the spec (section 5) and of the generic form rules.
const (
	KeyRequired        = "required"
	KeyInvalidPassword = "invalidPassword"
	KeyInvalidEmail    = "invalidEmail"
	KeyInvalidDate     = "invalidDate"
	KeyInvalidPhone    = "invalidPhone"
	KeyHTMLNotAllowed  = "htmlNotAllowed"
	KeyCheckbox        = "matCheckboxRequired"
	KeyMaxLength       = "maxlength"
	KeyMinLength       = "minlength"
	KeyTaken           = "taken"
	KeyInvalid         = "invalid"
)

// Errors maps a field name to the key of its first failed rule. An empty map is no error.
type Errors map[string]string

// Error lists the failing fields, for logs.
func (e Errors) Error() string {
	fields := make([]string, 0, len(e))
	for f, k := range e {
		fields = append(fields, f+": "+k)
	}
	sort.Strings(fields)
	return "validation failed: " + strings.Join(fields, ", ")
}

// Add records key for field unless the field already failed an earlier rule.
func (e Errors) Add(field, key string) {
	if _, ok := e[field]; !ok {
		e[field] = key
	}
}

// Check records key for field when ok is false.
func (e Errors) Check(ok bool, field, key string) {
	if !ok {
		e.Add(field, key)
	}
}

// First is the error key a one-line refusal shows: the first of prefer that failed, else
// that of the field first in alphabetical order, so the same input always gets the same
// message ("" when nothing failed).
func (e Errors) First(prefer ...string) string {
	for _, f := range prefer {
		if key, ok := e[f]; ok {
			return key
		}
	}
	fields := slices.Sorted(maps.Keys(e))
	if len(fields) == 0 {
		return ""
	}
	return e[fields[0]]
}

// Err returns e as an error, or nil when nothing failed.
func (e Errors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

var (
	passwordSpecial = "@$!%*?&"
	phoneRE         = regexp.MustCompile(`^[0-9]{10,15}$`)
	mobilePhoneRE   = regexp.MustCompile(`^[0-9]{10}$`)
	tagRE           = regexp.MustCompile(`<\s*/?\s*[a-zA-Z!][^>]*>`)
)

// Password: a lowercase letter, an uppercase letter, a digit and one of @$!%*?&, at least 8 long.
func Password(s string) bool {
	var lower, upper, digit, special bool
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		case strings.ContainsRune(passwordSpecial, r):
			special = true
		}
	}
	return lower && upper && digit && special && len([]rune(s)) >= 8
}

// Email: the standard address format, one address without a display name.
func Email(s string) bool {
	// Clean one-line text first: the pattern's \s does not cover every control character
	// (U+0080 got through, found by FuzzValidators), and net/mail accepts them.
	if !Text(s, false) || !emailShape(s) {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// emailShape is the pattern ^[^\s@]+@[^\s@]+\.[^\s@]+$ (one @, no white space, a dot
// inside the domain) written out: the regular expression was most of an import's
// validation, three addresses a row in an update (docs/PERFORMANCE.md, "Twenty-sixth
// round"). FuzzValidators holds the two equal.
func emailShape(s string) bool {
	if strings.ContainsAny(s, " \t\n\f\r") {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && !strings.Contains(domain, "@") && len(domain) >= 3 &&
		strings.Contains(domain[1:len(domain)-1], ".")
}

// NormalisePhone takes away the formatting people type in a phone number — spaces, dashes,
// dots, slashes, parentheses and a leading + — so "(202) 555-0147" is stored as "2025550147". Any other
// character is kept, for Phone to refuse. Forms, the API and imports all store through it.
func NormalisePhone(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "+")
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\u00a0', '\t', '-', '.', '(', ')', '/':
			return -1
		}
		return r
	}, s)
}

// Phone (admin): 10 to 15 digits only (after NormalisePhone).
func Phone(s string) bool { return phoneRE.MatchString(s) }

// MobilePhone (mobile lead form): exactly 10 digits.
func MobilePhone(s string) bool { return mobilePhoneRE.MatchString(s) }

// NoHTML: the text holds no HTML tag.
func NoHTML(s string) bool { return !tagRE.MatchString(s) }

// Date: parseable as an ISO date, an RFC 3339 time, or the spec's dd/MM/yyyy.
func Date(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02", "02/01/2006", "2006-01-02T15:04"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// Checked: a checkbox that must be ticked.
func Checked(b bool) bool { return b }

// Required: not blank once trimmed.
func Required(s string) bool { return strings.TrimSpace(s) != "" }

// MaxLen: at most n characters.
func MaxLen(s string, n int) bool { return len(s) <= n || utf8.RuneCountInString(s) <= n }

// KeyInvalidCharacters refuses text holding a control character (NUL and its kind) or
// bytes that are not UTF-8: neither database stores them, and no person types them.
const KeyInvalidCharacters = "invalidCharacters"

// Text: valid UTF-8 without control characters (C0, DEL, C1). A multi-line field (a
// text area) may also hold tabs and line breaks.
func Text(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		i += size
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			if multiline && (r == '\t' || r == '\n' || r == '\r') {
				continue
			}
			return false
		}
	}
	return true
}
