package clients_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
)

// clientLocation is the client page a redirect leads to, or fails the test.
func clientLocation(t *testing.T, r *apptest.Response) string {
	t.Helper()
	loc := r.Header.Get("Location")
	if r.Status != 303 || !strings.HasPrefix(loc, "/clients/") {
		t.Fatalf("want a redirect to a client page, got %d %q: %.300s", r.Status, loc, r.Body)
	}
	return loc
}

func TestClientPagesConvertFromLeadPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := apptest.NewLead(t, api, "Convert Me")
		lead := b.Get(fmt.Sprintf("/leads/%d", id))
		if lead.Status != 200 || !strings.Contains(lead.Body, `data-testid="lead-convert"`) {
			t.Fatalf("lead page has no convert button: %d %.500s", lead.Status, lead.Body)
		}
		r := b.Form(fmt.Sprintf("/leads/%d/convert", id), url.Values{})
		loc := clientLocation(t, r)
		page := b.Get(loc)
		if page.Status != 200 || !strings.Contains(page.Body, "Lead converted to a client") || !strings.Contains(page.Body, "Convert Me") ||
			!strings.Contains(page.Body, fmt.Sprintf(`href="/leads/%d"`, id)) || !strings.Contains(page.Body, `data-testid="client-journey"`) {
			t.Fatalf("client page after convert: %d %.2000s", page.Status, page.Body)
		}
		// The lead page now links to its client; a second conversion lands on the same client.
		lead = b.Get(fmt.Sprintf("/leads/%d", id))
		if strings.Contains(lead.Body, `data-testid="lead-convert"`) || !strings.Contains(lead.Body, `href="`+loc+`"`) {
			t.Fatalf("converted lead page: %.1500s", lead.Body)
		}
		again := b.Form(fmt.Sprintf("/leads/%d/convert", id), url.Values{})
		if clientLocation(t, again) != loc || !strings.Contains(b.Get(loc).Body, "already been converted") {
			t.Fatalf("second convert: %d %v", again.Status, again.Header)
		}
		// The list shows it; search and sort work; empty search says so.
		list := b.Get("/clients?search=convert&sort=name")
		if list.Status != 200 || !strings.Contains(list.Body, `href="`+loc+`"`) {
			t.Fatalf("client list: %d %.1000s", list.Status, list.Body)
		}
		if none := b.Get("/clients?search=nobody-here"); !strings.Contains(none.Body, `data-testid="clients-empty"`) {
			t.Fatalf("empty search: %.800s", none.Body)
		}
		// Header: the Clients entry in the navigation.
		if !strings.Contains(list.Body, `href="/clients"`) {
			t.Fatal("no Clients entry in the navigation")
		}
	})
}

func TestClientPagesCreateEditDelete(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b := e.Browser(f.Admin.Email)
		if r := b.Get("/clients/new"); r.Status != 200 || !strings.Contains(r.Body, `data-testid="client-form"`) {
			t.Fatalf("new form: %d", r.Status)
		}
		bad := b.Form("/clients/new", url.Values{"customer_name": {"Zed"}, "company_email": {"nope"}, "company_phone_number": {"12"}})
		if bad.Status != 422 || !strings.Contains(bad.Body, `data-testid="error-company_email"`) || !strings.Contains(bad.Body, `value="Zed"`) {
			t.Fatalf("refused form: %d %.1500s", bad.Status, bad.Body)
		}
		ok := b.Form("/clients/new", url.Values{"customer_name": {"Zed"}, "company_name": {"Zed Ltd"}, "company_email": {"zed@example.com"},
			"company_dial_code": {"+91"}, "company_phone_number": {"0123456789"}})
		loc := clientLocation(t, ok)
		if r := b.Get(loc); !strings.Contains(r.Body, "Client created successfully") || !strings.Contains(r.Body, "Zed Ltd") {
			t.Fatalf("client page: %.1000s", r.Body)
		}
		if r := b.Get(loc + "/edit"); r.Status != 200 || !strings.Contains(r.Body, `value="zed@example.com"`) {
			t.Fatalf("edit form: %d", r.Status)
		}
		up := b.Form(loc+"/edit", url.Values{"customer_name": {"Zed Two"}, "company_name": {"Zed Ltd"}, "company_email": {"zed@example.com"},
			"company_dial_code": {"+91"}, "company_phone_number": {"0123456789"}})
		if clientLocation(t, up) != loc || !strings.Contains(b.Get(loc).Body, "Zed Two") {
			t.Fatal("update did not land")
		}
		// The client page takes documents too.
		if r := b.UploadFiles(loc+"/documents", "id", apptest.Upload{Name: "id.pdf", Data: apptest.PDFBytes}); r.Status != 303 {
			t.Fatalf("client upload: %d %.300s", r.Status, r.Body)
		}
		if r := b.Get(loc); strings.Count(r.Body, `data-testid="document"`) != 1 || !strings.Contains(r.Body, "/v1/api/client/download-document/") {
			t.Fatalf("client documents: %.2000s", r.Body)
		}
		if r := b.Get(loc + "/delete"); r.Status != 200 || !strings.Contains(r.Body, `data-testid="confirm"`) {
			t.Fatalf("delete confirmation: %d", r.Status)
		}
		if r := b.Form(loc+"/delete", url.Values{}); r.Status != 303 || r.Header.Get("Location") != "/clients" {
			t.Fatalf("delete: %d %v", r.Status, r.Header)
		}
		if r := b.Get(loc); r.Status != 404 {
			t.Fatalf("deleted client: %d", r.Status)
		}
		if r := b.Get("/clients"); !strings.Contains(r.Body, `data-testid="clients-empty"`) {
			t.Fatalf("empty list: %.600s", r.Body)
		}
	})
}

func TestClientPagesTenantAndPermissions(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		id := apptest.NewLead(t, api, "Mine")
		loc := clientLocation(t, e.Browser(f.Admin.Email).Form(fmt.Sprintf("/leads/%d/convert", id), url.Values{}))
		other := e.Browser(e.Tenant("Other").Admin.Email)
		for _, p := range []string{loc, loc + "/edit", loc + "/delete"} {
			if r := other.Get(p); r.Status != 404 {
				t.Errorf("other tenant GET %s: %d", p, r.Status)
			}
		}
		if r := other.Form(loc+"/delete", url.Values{}); r.Status != 404 {
			t.Errorf("other tenant delete: %d", r.Status)
		}
		if r := other.Form(fmt.Sprintf("/leads/%d/convert", id), url.Values{}); r.Status != 404 {
			t.Errorf("other tenant convert: %d", r.Status)
		}
		leadsOnly := e.Browser(e.User(f, "l@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Create: auth.ScopeAll, Update: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}}).Email)
		for _, p := range []string{"/clients", "/clients/new", loc} {
			if r := leadsOnly.Get(p); r.Status != 403 {
				t.Errorf("no client permission GET %s: %d", p, r.Status)
			}
		}
		id2 := apptest.NewLead(t, api, "Other Lead")
		if r := leadsOnly.Form(fmt.Sprintf("/leads/%d/convert", id2), url.Values{}); r.Status != 403 {
			t.Errorf("no client permission convert: %d", r.Status)
		}
		if r := leadsOnly.Get(fmt.Sprintf("/leads/%d", id2)); r.Status != 200 || strings.Contains(r.Body, `data-testid="lead-convert"`) || strings.Contains(r.Body, `href="/clients"`) {
			t.Errorf("lead page without client permission offers conversion or the Clients entry")
		}
		viewer := e.Browser(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		if r := viewer.Get(loc + "/edit"); r.Status != 403 {
			t.Errorf("view-only edit: %d", r.Status)
		}
		if r := viewer.Form(loc+"/delete", url.Values{}); r.Status != 403 {
			t.Errorf("view-only delete: %d", r.Status)
		}
	})
}
