package i18n_test

import (
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"crm/app/i18n"
	"crm/locales"
)

// TestEveryLocaleHasEveryMessage fails when a message id of en_US is missing from any
// admin locale, or a locale has an id en_US does not know.
func TestEveryLocaleHasEveryMessage(t *testing.T) {
	t.Parallel()
	base, err := i18n.Messages(locales.FS, i18n.Fallback)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range i18n.Locales {
		ids, err := i18n.Messages(locales.FS, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		var missing, extra []string
		for id := range base {
			if _, ok := ids[id]; !ok {
				missing = append(missing, id)
			}
		}
		for id := range ids {
			if _, ok := base[id]; !ok {
				extra = append(extra, id)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing) > 0 {
			t.Errorf("%s is missing %d messages: %v", loc, len(missing), missing)
		}
		if len(extra) > 0 {
			t.Errorf("%s has messages en_US lacks: %v", loc, extra)
		}
	}
}

var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

// TestTranslationsKeepPlaceholders checks every translation uses the same template fields
// as en_US, so no translated message loses (or invents) a value.
func TestTranslationsKeepPlaceholders(t *testing.T) {
	t.Parallel()
	base, err := i18n.Messages(locales.FS, i18n.Fallback)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range i18n.Locales {
		msgs, err := i18n.Messages(locales.FS, loc)
		if err != nil {
			t.Fatal(err)
		}
		for id, text := range msgs {
			if got, want := fields(text), fields(base[id]); got != want {
				t.Errorf("%s %s: placeholders %q, want %q", loc, id, got, want)
			}
		}
	}
}

func fields(s string) string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestPickOrder(t *testing.T) {
	t.Parallel()
	b, err := i18n.Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		accept  string
		choices []string
		want    string
	}{
		{"de-DE", []string{"it_IT", "fr_FR"}, "it_IT"},
		{"de-DE", []string{"", "fr_FR"}, "fr_FR"},
		{"de-DE,de;q=0.9", []string{"", ""}, "de_DE"},
		{"en-AU", nil, "en_AU"},
		{"ja", nil, "en_US"},
		{"", []string{"fr-FR"}, "fr_FR"},
	}
	for _, c := range cases {
		if got := b.Pick(c.accept, c.choices...); got != c.want {
			t.Errorf("Pick(%q, %v) = %q, want %q", c.accept, c.choices, got, c.want)
		}
	}
}

// TestCountsUsePluralForms: a message showing a {{.Count}} is a table of plural forms with
// every form an integer count reaches in its language (Czech: one, few, other; the others:
// one, other), so no page says "1 rows" or "5 dokumenty".
func TestCountsUsePluralForms(t *testing.T) {
	t.Parallel()
	// Labels that put the number after a colon, with no noun to agree with it.
	labels := map[string]bool{"remindersPage.headerLabel": true}
	for _, loc := range i18n.Locales {
		data, err := fs.ReadFile(locales.FS, loc+".toml")
		if err != nil {
			t.Fatal(err)
		}
		raw := map[string]any{}
		if err := toml.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		need := []string{"one", "other"}
		if loc == "cs_CZ" {
			need = []string{"one", "few", "other"}
		}
		var walk func(prefix string, m map[string]any)
		walk = func(prefix string, m map[string]any) {
			for k, v := range m {
				id := strings.TrimPrefix(prefix+"."+k, ".")
				switch v := v.(type) {
				case string:
					if strings.Contains(v, "{{.Count}}") && !labels[id] {
						t.Errorf("%s: %s shows a count without plural forms: %q", loc, id, v)
					}
				case map[string]any:
					if _, plural := v["other"]; !plural {
						walk(id, v)
						continue
					}
					for _, form := range need {
						if _, ok := v[form].(string); !ok {
							t.Errorf("%s: %s lacks its %q form", loc, id, form)
						}
					}
				}
			}
		}
		walk("", raw)
	}
}

// TestLocalizersAreMadeOncePerLocale: every request of a locale gets the one translator
// made at Load, which translates into that locale and is safe to share between requests;
// a locale that is not an admin locale gets the fallback's.
func TestLocalizersAreMadeOncePerLocale(t *testing.T) {
	t.Parallel()
	b, err := i18n.Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range i18n.Locales {
		l := b.Localizer(loc)
		if l.Locale != loc || b.Localizer(loc) != l {
			t.Errorf("Localizer(%q): locale %q, or a new translator on the second call", loc, l.Locale)
		}
	}
	if l := b.Localizer("ja_JP"); l != b.Localizer(i18n.Fallback) {
		t.Errorf("Localizer(ja_JP) = %q, want the fallback's translator", l.Locale)
	}
	want := map[string]string{"fr_FR": "Accueil", "de_DE": "Startseite", "en_US": "Home"}
	done := make(chan string, 64)
	for range 8 {
		for loc := range want {
			go func() { done <- loc + "=" + b.Localizer(loc).T("nav.home") }()
		}
	}
	for range 8 * len(want) {
		got := <-done
		loc, text, _ := strings.Cut(got, "=")
		if want[loc] != text {
			t.Errorf("%s translated nav.home as %q, want %q", loc, text, want[loc])
		}
	}
}

// TestPlainMessagesAreTranslatedOnce: a message asked without arguments is translated once
// and kept by its locale's translator; asked again it is the same text, a message with
// arguments still gets them, and an id the catalogue lacks still comes back as itself.
func TestPlainMessagesAreTranslatedOnce(t *testing.T) {
	t.Parallel()
	b, err := i18n.Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	fr, en := b.Localizer("fr_FR"), b.Localizer("en_US")
	for range 2 {
		if got := fr.T("nav.home"); got != "Accueil" {
			t.Errorf("fr_FR nav.home = %q", got)
		}
		if got := en.T("nav.home"); got != "Home" {
			t.Errorf("en_US nav.home = %q", got)
		}
		if got := en.T("no.such.message"); got != "no.such.message" {
			t.Errorf("a missing id = %q, want the id", got)
		}
	}
	plain := en.T("home.welcome")
	if got := en.T("home.welcome", "Name", "Ana"); got != "Welcome, Ana" || got == plain {
		t.Errorf("home.welcome with a name = %q (plain: %q)", got, plain)
	}
}

// BenchmarkPlainMessage is the message every JSON answer carries ("ok").
func BenchmarkPlainMessage(b *testing.B) {
	bundle, err := i18n.Load(locales.FS)
	if err != nil {
		b.Fatal(err)
	}
	l := bundle.Localizer("fr_FR")
	for b.Loop() {
		if l.T("ok") == "" {
			b.Fatal("no message")
		}
	}
}
