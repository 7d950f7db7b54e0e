package validate

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// emailPattern is what emailShape checks, as the regular expression it replaced.
var emailPattern = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)

// FuzzValidators: the spec's validators take any text without a panic, and agree with one
// another: clean one-line text is clean multi-line text; clean text is UTF-8 without NUL;
// a mobile phone is a phone; a valid email has no control character or space, and its shape is the pattern's.
func FuzzValidators(f *testing.F) {
	for _, s := range []string{"ann@example.com", "a\x00b@example.com", "Secret1!x", "0123456789", "012345678901234567",
		"<b>x</b>", "a < b > c", "2026-02-30", "31/12/2026", "2026-01-02T10:00:00Z", "line\nbreak", "tab\t", "\x85", "\xff", "   ",
		"a@b.c", "a@.bc", "a@bc.", "@b.c", "a@b@c.d", "a @b.c", "a@b.\u00e9", "a\f@b.c", "a@b..c", "a@b.c\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		one, multi := Text(s, false), Text(s, true)
		if one && !multi {
			t.Fatalf("%q clean on one line but not on several", s)
		}
		if multi && (!utf8.ValidString(s) || strings.ContainsRune(s, 0)) {
			t.Fatalf("%q clean but not storable", s)
		}
		if one && strings.ContainsAny(s, "\t\n\r") {
			t.Fatalf("%q clean on one line with a line break", s)
		}
		if MobilePhone(s) && !Phone(s) {
			t.Fatalf("%q a mobile phone but not a phone", s)
		}
		if emailShape(s) != emailPattern.MatchString(s) {
			t.Fatalf("%q: the address's shape %v, the pattern %v", s, emailShape(s), emailPattern.MatchString(s))
		}
		if Email(s) && (!one || strings.ContainsAny(s, " ")) {
			t.Fatalf("%q a valid email with control characters or spaces", s)
		}
		if Required(s) != (strings.TrimSpace(s) != "") {
			t.Fatalf("%q: Required disagrees with trimming", s)
		}
		_, _ = Password(s), Date(s)
		_ = NoHTML(s)
		if MaxLen(s, 0) != (s == "") {
			t.Fatalf("%q: MaxLen 0", s)
		}
	})
}
