package leads_test

import (
	"regexp"
	"strings"
	"testing"

	"crm/app/apptest"
)

// The date ranges of the lead list and the dashboard are picker fields: the native date
// inputs (the same names, ids and errors as before), inside the picker island's element,
// which waits for the user before its bundle loads. No page names the bundle in a script
// tag of its own, the reminder pages included: the shell's script tag carries its address
// for the on-demand loader (islands/lib/lazy.ts).
func TestDateRangePickers(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		islands := regexp.MustCompile(`<script src="/static/build/admin-[^"]+\.js" defer data-islands="{&#34;picker&#34;:&#34;/static/build/picker-[^"&]+\.js&#34;}"></script>`)
		pickerScript := regexp.MustCompile(`<script src="/static/build/picker-`)
		host := func(r *apptest.Response, testid string) string {
			t.Helper()
			for _, m := range regexp.MustCompile(`<div class="picker-slot"[^>]*>`).FindAllString(r.Body, -1) {
				if strings.Contains(m, `data-island="picker"`) && strings.Contains(m, `data-load="intent"`) &&
					strings.Contains(m, `&#34;testid&#34;:&#34;`+testid+`&#34;`) && strings.Contains(m, `&#34;mode&#34;:&#34;range&#34;`) {
					return m
				}
			}
			t.Fatalf("no range picker %s: %.4000s", testid, r.Body)
			return ""
		}

		leads := c.Get("/leads?from=2026-01-02&to=2026-01-31").WantStatus(200)
		props := host(leads, "created-range")
		leads.Has(`<input type="date" value="2026-01-02" id="f-from" name="from">`, `<input type="date" value="2026-01-31" id="f-to" name="to">`,
			`<label for="f-from">Created from`, `<label for="f-to">Created to`)
		for _, want := range []string{`&#34;label&#34;:&#34;Created between&#34;`, `&#34;name&#34;:&#34;from&#34;`, `&#34;nameTo&#34;:&#34;to&#34;`,
			`&#34;value&#34;:&#34;2026-01-02&#34;`, `&#34;valueTo&#34;:&#34;2026-01-31&#34;`, `&#34;locale&#34;:&#34;en_US&#34;`, `&#34;set&#34;:&#34;Set&#34;`} {
			if !strings.Contains(props, want) {
				t.Errorf("lead list picker props lack %s: %s", want, props)
			}
		}
		if !islands.MatchString(leads.Body) || pickerScript.MatchString(leads.Body) {
			t.Fatalf("lead list: the shell script should name the picker bundle, and no script tag load it: %.3000s", leads.Body)
		}
		// An invalid day stays at its native field, and the island gets the message.
		bad := c.Get("/leads?to=2026-02-30")
		bad.WantInlineError("f-to", "Enter a valid date.")
		if !strings.Contains(host(bad, "created-range"), `&#34;errorId&#34;:&#34;f-to-error&#34;`) {
			t.Fatalf("the island does not carry the error of the to field: %.3000s", bad.Body)
		}

		home := c.Get("/home?period=custom&from=2025-03-01&to=2025-03-31").WantStatus(200)
		props = host(home, "dash-range")
		home.Has(`<input type="date" value="2025-03-01" id="dash-from" name="from">`, `<input type="date" value="2025-03-31" id="dash-to" name="to">`,
			`data-autosubmit data-autosubmit-set="dash-preset=custom"`, `id="dash-dates-hint"`)
		for _, want := range []string{`&#34;label&#34;:&#34;Custom range&#34;`, `&#34;describedBy&#34;:&#34;dash-dates-hint&#34;`,
			`&#34;required&#34;:true`} {
			if !strings.Contains(props, want) {
				t.Errorf("dashboard picker props lack %s: %s", want, props)
			}
		}
		if strings.Contains(home.Body, `required`) && regexp.MustCompile(`<input type="date"[^>]*required`).MatchString(home.Body) {
			t.Error("the dashboard's native dates must stay optional (the presets do not use them)")
		}
		if !islands.MatchString(home.Body) || pickerScript.MatchString(home.Body) {
			t.Fatalf("home: the shell script should name the picker bundle, and no script tag load it: %.3000s", home.Body)
		}
		// The reminder pages' fields load the same way, at once (no data-load).
		notes := c.Get("/notifications").WantStatus(200).Has(`data-island="picker"`, `&#34;testid&#34;:&#34;due-range&#34;`).Lacks(`data-load="intent"`)
		if !islands.MatchString(notes.Body) || pickerScript.MatchString(notes.Body) {
			t.Fatalf("notifications: the shell script should name the picker bundle, and no script tag load it: %.3000s", notes.Body)
		}

		// The results fragment brings the picker back out of band, on the period shown.
		frag := c.Get("/home?period=custom&from=2025-03-01&to=2025-03-15", "HX-Request", "true", "HX-Target", "dashboard-results").WantStatus(200)
		frag.Has(`id="dash-dates" class="dash-dates" hx-swap-oob="true"`, `data-island="picker"`, `value="2025-03-15" id="dash-to"`).Lacks("<html")
	})
}
