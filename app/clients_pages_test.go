package app_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"crm/app/auth"
)

// clientLocation is the client page a redirect leads to, or fails the test.
func clientLocation(t *testing.T, r *response) string {
	t.Helper()
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.HasPrefix(loc, "/clients/") {
		t.Fatalf("want a redirect to a client page, got %d %q: %.300s", r.status, loc, r.body)
	}
	return loc
}

func TestClientPagesConvertFromLeadPage(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		api := e.apiClient(f.Admin.Email)
		b := e.browser(f.Admin.Email)
		id := newLead(t, api, "Convert Me")
		lead := b.get(fmt.Sprintf("/leads/%d", id))
		if lead.status != 200 || !strings.Contains(lead.body, `data-testid="lead-convert"`) {
			t.Fatalf("lead page has no convert button: %d %.500s", lead.status, lead.body)
		}
		r := b.form(fmt.Sprintf("/leads/%d/convert", id), url.Values{})
		loc := clientLocation(t, r)
		page := b.get(loc)
		if page.status != 200 || !strings.Contains(page.body, "Lead converted to a client") || !strings.Contains(page.body, "Convert Me") ||
			!strings.Contains(page.body, fmt.Sprintf(`href="/leads/%d"`, id)) || !strings.Contains(page.body, `data-testid="client-journey"`) {
			t.Fatalf("client page after convert: %d %.2000s", page.status, page.body)
		}
		// The lead page now links to its client; a second conversion lands on the same client.
		lead = b.get(fmt.Sprintf("/leads/%d", id))
		if strings.Contains(lead.body, `data-testid="lead-convert"`) || !strings.Contains(lead.body, `href="`+loc+`"`) {
			t.Fatalf("converted lead page: %.1500s", lead.body)
		}
		again := b.form(fmt.Sprintf("/leads/%d/convert", id), url.Values{})
		if clientLocation(t, again) != loc || !strings.Contains(b.get(loc).body, "already been converted") {
			t.Fatalf("second convert: %d %v", again.status, again.header)
		}
		// The list shows it; search and sort work; empty search says so.
		list := b.get("/clients?search=convert&sort=name")
		if list.status != 200 || !strings.Contains(list.body, `href="`+loc+`"`) {
			t.Fatalf("client list: %d %.1000s", list.status, list.body)
		}
		if none := b.get("/clients?search=nobody-here"); !strings.Contains(none.body, `data-testid="clients-empty"`) {
			t.Fatalf("empty search: %.800s", none.body)
		}
		// Header: the Clients entry in the navigation.
		if !strings.Contains(list.body, `href="/clients"`) {
			t.Fatal("no Clients entry in the navigation")
		}
	})
}

func TestClientPagesCreateEditDelete(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		b := e.browser(f.Admin.Email)
		if r := b.get("/clients/new"); r.status != 200 || !strings.Contains(r.body, `data-testid="client-form"`) {
			t.Fatalf("new form: %d", r.status)
		}
		bad := b.form("/clients/new", url.Values{"customer_name": {"Zed"}, "company_email": {"nope"}, "company_phone_number": {"12"}})
		if bad.status != 422 || !strings.Contains(bad.body, `data-testid="error-company_email"`) || !strings.Contains(bad.body, `value="Zed"`) {
			t.Fatalf("refused form: %d %.1500s", bad.status, bad.body)
		}
		ok := b.form("/clients/new", url.Values{"customer_name": {"Zed"}, "company_name": {"Zed Ltd"}, "company_email": {"zed@example.com"},
			"company_dial_code": {"+91"}, "company_phone_number": {"0123456789"}})
		loc := clientLocation(t, ok)
		if r := b.get(loc); !strings.Contains(r.body, "Client created successfully") || !strings.Contains(r.body, "Zed Ltd") {
			t.Fatalf("client page: %.1000s", r.body)
		}
		if r := b.get(loc + "/edit"); r.status != 200 || !strings.Contains(r.body, `value="zed@example.com"`) {
			t.Fatalf("edit form: %d", r.status)
		}
		up := b.form(loc+"/edit", url.Values{"customer_name": {"Zed Two"}, "company_name": {"Zed Ltd"}, "company_email": {"zed@example.com"},
			"company_dial_code": {"+91"}, "company_phone_number": {"0123456789"}})
		if clientLocation(t, up) != loc || !strings.Contains(b.get(loc).body, "Zed Two") {
			t.Fatal("update did not land")
		}
		// The client page takes documents too.
		if r := b.uploadFiles(loc+"/documents", "id", upload{"id.pdf", pdfBytes}); r.status != 303 {
			t.Fatalf("client upload: %d %.300s", r.status, r.body)
		}
		if r := b.get(loc); strings.Count(r.body, `data-testid="document"`) != 1 || !strings.Contains(r.body, "/v1/api/client/download-document/") {
			t.Fatalf("client documents: %.2000s", r.body)
		}
		if r := b.get(loc + "/delete"); r.status != 200 || !strings.Contains(r.body, `data-testid="confirm"`) {
			t.Fatalf("delete confirmation: %d", r.status)
		}
		if r := b.form(loc+"/delete", url.Values{}); r.status != 303 || r.header.Get("Location") != "/clients" {
			t.Fatalf("delete: %d %v", r.status, r.header)
		}
		if r := b.get(loc); r.status != 404 {
			t.Fatalf("deleted client: %d", r.status)
		}
		if r := b.get("/clients"); !strings.Contains(r.body, `data-testid="clients-empty"`) {
			t.Fatalf("empty list: %.600s", r.body)
		}
	})
}

func TestClientPagesTenantAndPermissions(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		api := e.apiClient(f.Admin.Email)
		id := newLead(t, api, "Mine")
		loc := clientLocation(t, e.browser(f.Admin.Email).form(fmt.Sprintf("/leads/%d/convert", id), url.Values{}))
		other := e.browser(e.tenant("Other").Admin.Email)
		for _, p := range []string{loc, loc + "/edit", loc + "/delete"} {
			if r := other.get(p); r.status != 404 {
				t.Errorf("other tenant GET %s: %d", p, r.status)
			}
		}
		if r := other.form(loc+"/delete", url.Values{}); r.status != 404 {
			t.Errorf("other tenant delete: %d", r.status)
		}
		if r := other.form(fmt.Sprintf("/leads/%d/convert", id), url.Values{}); r.status != 404 {
			t.Errorf("other tenant convert: %d", r.status)
		}
		leadsOnly := e.browser(e.user(f, "l@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true, Create: true, Update: true}}).Email)
		for _, p := range []string{"/clients", "/clients/new", loc} {
			if r := leadsOnly.get(p); r.status != 403 {
				t.Errorf("no client permission GET %s: %d", p, r.status)
			}
		}
		id2 := newLead(t, api, "Other Lead")
		if r := leadsOnly.form(fmt.Sprintf("/leads/%d/convert", id2), url.Values{}); r.status != 403 {
			t.Errorf("no client permission convert: %d", r.status)
		}
		if r := leadsOnly.get(fmt.Sprintf("/leads/%d", id2)); r.status != 200 || strings.Contains(r.body, `data-testid="lead-convert"`) || strings.Contains(r.body, `href="/clients"`) {
			t.Errorf("lead page without client permission offers conversion or the Clients entry")
		}
		viewer := e.browser(e.user(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: true}}).Email)
		if r := viewer.get(loc + "/edit"); r.status != 403 {
			t.Errorf("view-only edit: %d", r.status)
		}
		if r := viewer.form(loc+"/delete", url.Values{}); r.status != 403 {
			t.Errorf("view-only delete: %d", r.status)
		}
	})
}
