// Package i18n loads the go-i18n message files from locales/, picks the language of a
// request, and translates message ids through the request's context.
package i18n

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"crm/locales"
)

// Locales are the admin languages, in the order the language switch lists them.
var Locales = []string{"en_US", "fr_FR", "es_ES", "de_DE", "pt_PT", "it_IT", "cs_CZ", "en_AU"}

// Fallback is the locale used when nothing else matches, and for missing messages.
const Fallback = "en_US"

// Bundle holds every locale's messages.
type Bundle struct {
	b       *goi18n.Bundle
	matcher language.Matcher
	tags    []language.Tag
	// localizers holds one translator per locale, made once: a go-i18n Localizer only
	// reads its bundle and tags, so every request of a locale shares it instead of parsing
	// the two language tags again (a few µs a request, docs/PERFORMANCE.md).
	localizers map[string]*Localizer
}

// Embedded is the bundle of the message files built into the binary (locales.FS), read
// once: a bundle is only read after Load, so the server, the default masters' names and
// every test server of a test binary share it instead of parsing the ten files again.
var Embedded = sync.OnceValues(func() (*Bundle, error) { return Load(locales.FS) })

// Load reads <locale>.toml for every admin locale from fsys.
func Load(fsys fs.FS) (*Bundle, error) {
	b := goi18n.NewBundle(language.MustParse(tagOf(Fallback)))
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	var tags []language.Tag
	for _, loc := range Locales {
		data, err := fs.ReadFile(fsys, loc+".toml")
		if err != nil {
			return nil, fmt.Errorf("locale %s: %w", loc, err)
		}
		if _, err := b.ParseMessageFileBytes(data, path.Join(loc, tagOf(loc)+".toml")); err != nil {
			return nil, fmt.Errorf("locale %s: %w", loc, err)
		}
		tags = append(tags, language.MustParse(tagOf(loc)))
	}
	out := &Bundle{b: b, matcher: language.NewMatcher(tags), tags: tags, localizers: map[string]*Localizer{}}
	for _, loc := range Locales {
		out.localizers[loc] = &Localizer{Locale: loc, l: goi18n.NewLocalizer(b, tagOf(loc), tagOf(Fallback))}
	}
	return out, nil
}

func tagOf(locale string) string { return strings.ReplaceAll(locale, "_", "-") }

// Supported reports whether locale (en_US form) is an admin locale.
func Supported(locale string) bool {
	for _, l := range Locales {
		if l == locale {
			return true
		}
	}
	return false
}

// Pick returns the first supported choice (en_US form), else the best match for the
// Accept-Language header, else the fallback.
func (b *Bundle) Pick(acceptLanguage string, choices ...string) string {
	for _, c := range choices {
		c = strings.ReplaceAll(c, "-", "_")
		if Supported(c) {
			return c
		}
	}
	if acceptLanguage != "" {
		prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
		if err == nil && len(prefs) > 0 {
			_, idx, conf := b.matcher.Match(prefs...)
			if conf != language.No {
				return Locales[idx]
			}
		}
	}
	return Fallback
}

// Localizer translates into one locale.
type Localizer struct {
	Locale string
	l      *goi18n.Localizer
	// plain holds the messages asked without arguments, translated once: their text is
	// the same at every request, and go-i18n looks the message up and runs its template
	// each time (every JSON answer's message: 300 ns in a loop, 1 % of a lead view's CPU in
	// the server; docs/PERFORMANCE.md "Thirty-seventh round"). Only ids the catalogue has
	// are kept, so it holds at most the catalogue.
	plain sync.Map // id → string
}

// Localizer returns the translator for a locale (en_US form), the fallback's for a locale
// that is not an admin locale. It is shared: callers only read it.
func (b *Bundle) Localizer(locale string) *Localizer {
	if l, ok := b.localizers[locale]; ok {
		return l
	}
	return b.localizers[Fallback]
}

// T translates id; args are key, value pairs for the message template.
// A missing id comes back as the id itself, so the gap is visible and a test can catch it.
func (l *Localizer) T(id string, args ...any) string {
	if len(args) == 0 {
		if s, ok := l.plain.Load(id); ok {
			return s.(string)
		}
		s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id})
		if err != nil || s == "" {
			return id
		}
		l.plain.Store(id, s)
		return s
	}
	var data map[string]any
	if len(args) > 0 {
		data = make(map[string]any, len(args)/2)
		for i := 0; i+1 < len(args); i += 2 {
			data[fmt.Sprint(args[i])] = args[i+1]
		}
	}
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data}
	if n, ok := data["Count"]; ok {
		// A message with plural forms picks one by Count; a plain one ignores it.
		cfg.PluralCount = n
		if s, err := l.l.Localize(cfg); err == nil && s != "" {
			return s
		}
		cfg.PluralCount = nil
	}
	s, err := l.l.Localize(cfg)
	if err != nil || s == "" {
		return id
	}
	return s
}

// Lang is the HTML lang attribute for the locale ("en-US").
func (l *Localizer) Lang() string { return tagOf(l.Locale) }

type ctxKey struct{}

// With puts the localizer in the context.
func With(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the context's localizer, or nil.
func From(ctx context.Context) *Localizer {
	l, _ := ctx.Value(ctxKey{}).(*Localizer)
	return l
}

// T translates id in the context's language.
func T(ctx context.Context, id string, args ...any) string {
	if l := From(ctx); l != nil {
		return l.T(id, args...)
	}
	return id
}

// Lang is the context's HTML lang attribute.
func Lang(ctx context.Context) string {
	if l := From(ctx); l != nil {
		return l.Lang()
	}
	return tagOf(Fallback)
}

// Locale is the context's locale in en_US form.
func Locale(ctx context.Context) string {
	if l := From(ctx); l != nil {
		return l.Locale
	}
	return Fallback
}

// Messages reads a locale file into message id → text (the "other" form of a plural),
// for the completeness tests.
func Messages(fsys fs.FS, locale string) (map[string]string, error) {
	data, err := fs.ReadFile(fsys, locale+".toml")
	if err != nil {
		return nil, err
	}
	raw := map[string]any{}
	if err := toml.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := map[string]string{}
	flatten("", raw, out)
	return out, nil
}

func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		switch v := v.(type) {
		case string:
			out[key] = v
		case map[string]any:
			// A table holding plural forms is one message.
			if other, ok := v["other"].(string); ok {
				out[key] = other
				continue
			}
			flatten(key, v, out)
		}
	}
}
