package validate

import "testing"

func TestValidators(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		fn   func(string) bool
		in   string
		want bool
	}{
		{"password ok", Password, "Secret1!x", true},
		{"password no upper", Password, "secret1!x", false},
		{"password no lower", Password, "SECRET1!X", false},
		{"password no digit", Password, "Secret!!x", false},
		{"password no special", Password, "Secret12x", false},
		{"password short", Password, "Se1!", false},
		{"email ok", Email, "ana@example.com", true},
		{"email no at", Email, "ana.example.com", false},
		{"email no domain dot", Email, "ana@example", false},
		{"email display name", Email, "Ana <ana@example.com>", false},
		{"phone 10", Phone, "0123456789", true},
		{"phone 15", Phone, "012345678901234", true},
		{"phone 9", Phone, "012345678", false},
		{"phone 16", Phone, "0123456789012345", false},
		{"phone letters", Phone, "01234abcde", false},
		{"mobile 10", MobilePhone, "0123456789", true},
		{"mobile 11", MobilePhone, "01234567890", false},
		{"no html plain", NoHTML, "Acme & Sons <3", true},
		{"no html tag", NoHTML, "Acme <b>bold</b>", false},
		{"no html script", NoHTML, "<script>alert(1)</script>", false},
		{"date iso", Date, "2026-11-22", true},
		{"date spec", Date, "22/11/2026", true},
		{"date bad", Date, "31/02/2026", false},
		{"required blank", Required, "   ", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.fn(c.in); got != c.want {
				t.Fatalf("%s(%q) = %v, want %v", c.name, c.in, got, c.want)
			}
		})
	}
}

func TestNormalisePhone(t *testing.T) {
	for in, want := range map[string]string{"(202) 555-0147": "2025550147", "+1 202.555.0147": "12025550147",
		" 030/123 4567 ": "0301234567", "202-555-01x7": "20255501x7", "12+34": "12+34", "": ""} {
		if got := NormalisePhone(in); got != want {
			t.Errorf("NormalisePhone(%q) = %q, want %q", in, got, want)
		}
	}
	if !Phone(NormalisePhone("(202) 555-0147")) || Phone(NormalisePhone("(202) 555-01")) {
		t.Error("normalised numbers are not checked by their digits")
	}
}

func TestErrorsKeepFirstKey(t *testing.T) {
	t.Parallel()
	e := Errors{}
	e.Check(false, "email", KeyRequired)
	e.Check(false, "email", KeyInvalidEmail)
	if e["email"] != KeyRequired {
		t.Fatalf("got %q", e["email"])
	}
	if (Errors{}).Err() != nil {
		t.Fatal("empty errors must be nil")
	}
}

// A one-line refusal names the same field every time: the preferred one, else the first
// in alphabetical order (a map's order is random).
func TestErrorsFirstIsDeterministic(t *testing.T) {
	t.Parallel()
	e := Errors{"zeta": KeyRequired, "alpha": KeyInvalidEmail, "mid": KeyInvalidPhone}
	for range 50 {
		if got := e.First(); got != KeyInvalidEmail {
			t.Fatalf("First() = %q, want the alphabetically first field's key", got)
		}
	}
	if got := e.First("nope", "zeta"); got != KeyRequired {
		t.Fatalf("First(prefer) = %q", got)
	}
	if got := (Errors{}).First(); got != "" {
		t.Fatalf("empty First() = %q", got)
	}
}

// BenchmarkEmail: an update by import checks three addresses a row (docs/PERFORMANCE.md,
// "Twenty-sixth round").
func BenchmarkEmail(b *testing.B) {
	for b.Loop() {
		if !Email("ana.o.brien+crm@mail.example.com") {
			b.Fatal("refused")
		}
	}
}
