package session_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
)

var (
	firstPageRE = regexp.MustCompile(`(?s)<script id="m-first-page" type="application/json">(.*?)</script>`)
	cardEmailRE = regexp.MustCompile(`<p class="m-card-email" data-testid="lead-email">([^<]*)</p>`)
	cardIDRE    = regexp.MustCompile(`<span class="m-card-id" data-testid="lead-id">([^<]*)</span>`)
	creatorRE   = regexp.MustCompile(`<p class="m-card-creator" data-testid="lead-creator">([^<]*)</p>`)
)

// shellFirstPage is the data block of the list's shell: the messages and the first page.
type shellFirstPage struct {
	Messages map[string]string `json:"messages"`
	List     map[string]any    `json:"list"`
}

func readShellFirstPage(t *testing.T, body string) *shellFirstPage {
	t.Helper()
	m := firstPageRE.FindStringSubmatch(body)
	if m == nil {
		return nil
	}
	var d shellFirstPage
	apptest.MustJSON(t, m[1], &d)
	return &d
}

func unescaped(ms [][]string) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// The list's shell carries the caller's first 20 leads, drawn as the island draws them and
// handed to it as the list call answers them, so the list paints before the script runs.
func TestMobileListRenderedInShell(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex := e.Tenant("Acme"), e.Tenant("Globex")
		for i := 1; i <= 23; i++ {
			apptest.AddLead(t, e, acme, 0, fmt.Sprintf("Shell Lead %02d", i))
		}
		apptest.AddLead(t, e, globex, 0, "Globex Secret")
		c := e.Browser(acme.Admin.Email)

		r := c.Get("/m/leads-mobile")
		if r.Status != http.StatusOK {
			t.Fatalf("GET /m/leads-mobile = %d", r.Status)
		}
		assertStrictPage(t, r.Body)
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
			t.Errorf("the page with the leads has Cache-Control %q, want private", cc)
		}
		api := c.Get("/v1/api/lead/list-customer-lead?page=1&limit=20", "Accept", "application/json")
		if api.Status != http.StatusOK {
			t.Fatalf("list call = %d", api.Status)
		}
		var answer struct {
			Data map[string]any `json:"data"`
		}
		apptest.MustJSON(t, api.Body, &answer)
		leads := answer.Data["result"].([]any)
		if len(leads) != 20 {
			t.Fatalf("list call gave %d leads, want 20", len(leads))
		}

		// The island's data: the same first page as the list call, and the messages file.
		d := readShellFirstPage(t, r.Body)
		if d == nil {
			t.Fatalf("no data block in the list's shell")
		}
		if !reflect.DeepEqual(d.List, answer.Data) {
			t.Errorf("data block's page differs from the list call's:\n%v\n%v", d.List, answer.Data)
		}
		if en := readMobileLocale(t, "en"); !reflect.DeepEqual(d.Messages, en) {
			t.Errorf("data block's messages are not en.json's")
		}
		if !strings.Contains(r.Body, `&#34;firstPage&#34;:&#34;m-first-page&#34;`) {
			t.Errorf("the island's props do not name the data block")
		}

		// The cards: the first page's leads in its order, with the card's strings in English.
		var wantEmails, wantIDs, wantCreators []string
		for _, l := range leads {
			l := l.(map[string]any)
			wantEmails = append(wantEmails, l["company_email"].(string))
			wantIDs = append(wantIDs, fmt.Sprintf("Lead ID: %.0f", l["id"].(float64)))
			wantCreators = append(wantCreators, "Created by "+l["created_user_name"].(string))
		}
		if got := unescaped(cardEmailRE.FindAllStringSubmatch(r.Body, -1)); !reflect.DeepEqual(got, wantEmails) {
			t.Errorf("card emails = %v, want %v", got, wantEmails)
		}
		if got := unescaped(cardIDRE.FindAllStringSubmatch(r.Body, -1)); !reflect.DeepEqual(got, wantIDs) {
			t.Errorf("card ids = %v, want %v", got, wantIDs)
		}
		if got := unescaped(creatorRE.FindAllStringSubmatch(r.Body, -1)); !reflect.DeepEqual(got, wantCreators) {
			t.Errorf("card creators = %v, want %v", got, wantCreators)
		}
		r.Has(`data-testid="lead-list"`, `data-testid="menu-button"`, `data-testid="sort-button"`, `data-testid="filter-button"`,
			`placeholder="Search"`, `data-testid="leads-won"`, `<h1 class="m-title" tabindex="-1" data-screen-title="true">Leads</h1>`).
			Lacks("Globex Secret", "globexsecret", `data-testid="list-empty"`, `class="m-boot" role="status"`, "/v1/api/lead/list-customer-lead")

		// The shell the service worker keeps: no lead, no data block, revalidated by its ETag.
		bare := c.Get("/m/leads-mobile?offline=1")
		if bare.Status != http.StatusOK {
			t.Fatalf("offline copy = %d", bare.Status)
		}
		bare.Has(`class="m-boot" role="status"`).Lacks(`data-testid="lead-card"`, "m-first-page", "example.com", "Shell Lead")
		etag := bare.Header.Get("ETag")
		if etag == "" {
			t.Fatal("offline copy has no ETag")
		}
		if again := c.Get("/m/leads-mobile?offline=1", "If-None-Match", etag); again.Status != http.StatusNotModified {
			t.Errorf("offline copy revalidated = %d, want 304", again.Status)
		}
		// The add-lead steps carry no lead either.
		c.Get("/m/add-lead").Lacks(`data-testid="lead-card"`, "m-first-page", "Shell Lead")

		// In the user's language.
		c.Form("/language", url.Values{"locale": {"de_DE"}, "back": {"/m/leads-mobile"}})
		de := readMobileLocale(t, "de")
		r = c.Get("/m/leads-mobile")
		r.Has(`<html lang="de">`, html.EscapeString(de["search.placeholder"]), de["card.createdBy"]+" ")
		if got := unescaped(cardIDRE.FindAllStringSubmatch(r.Body, 1)); len(got) != 1 || !strings.HasPrefix(got[0], de["card.leadId"]+": ") {
			t.Errorf("German card id = %v", got)
		}
		if d := readShellFirstPage(t, r.Body); d == nil || !reflect.DeepEqual(d.Messages, de) {
			t.Error("German shell's data block lacks de.json")
		}
	})
}

// Whose leads the shell shows is the list call's business: the caller's record scope,
// never another tenant's, and no shell at all without the leads view.
func TestMobileListShellFollowsScope(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.Tenant("Acme")
		apptest.AddLead(t, e, acme, 0, "Admin Owned")
		own := e.User(acme, "own@example.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn}})
		apptest.AddLead(t, e, acme, own.ID, "Own Made")
		e.User(acme, "clients@example.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll}})

		r := e.Browser("own@example.test").Get("/m/leads-mobile")
		r.WantStatus(http.StatusOK).Has("ownmade@example.com").Lacks("adminowned@example.com", "Admin Owned")
		if d := readShellFirstPage(t, r.Body); d == nil || len(d.List["result"].([]any)) != 1 {
			t.Errorf("own-scope user's data block: %+v", d)
		}

		no := e.Browser("clients@example.test").Get("/m/leads-mobile")
		no.WantStatus(http.StatusForbidden).Lacks("adminowned@example.com", "ownmade@example.com", "m-first-page")

		// A tenant with no lead: the empty state, as the island shows it.
		empty := e.Tenant("Empty")
		r = e.Browser(empty.Admin.Email).Get("/m/leads-mobile")
		r.WantStatus(http.StatusOK).Has(`data-testid="list-empty"`, "No leads found", `data-testid="lead-list"`).Lacks(`data-testid="lead-card"`)
	})
}
