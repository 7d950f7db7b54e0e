package documents_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
)

func TestLeadPageDocumentsUploadRenameDelete(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := apptest.NewLead(t, api, "Doc Lead")
		base := fmt.Sprintf("/leads/%d", id)
		if r := b.Get(base); !strings.Contains(r.Body, `data-testid="upload-form"`) || !strings.Contains(r.Body, `data-testid="documents-empty"`) {
			t.Fatalf("lead page documents section: %.500s", r.Body)
		}
		r := b.UploadFiles(base+"/documents", "contract", apptest.Upload{Name: "offer.pdf", Data: apptest.PDFBytes}, apptest.Upload{Name: "logo.png", Data: apptest.PNGBytes(t)})
		if r.Status != 303 || r.Header.Get("Location") != base+"#documents" {
			t.Fatalf("upload: %d %v %.500s", r.Status, r.Header, r.Body)
		}
		page := b.Get(base)
		size := fmt.Sprintf("%.2f KB", float64(len(apptest.PDFBytes))/1024)
		if strings.Count(page.Body, `data-testid="document"`) != 2 || !strings.Contains(page.Body, "offer.pdf") || !strings.Contains(page.Body, size) ||
			!strings.Contains(page.Body, `data-testid="document-tag">contract`) || !regexp.MustCompile(`data-testid="document-thumb"`).MatchString(page.Body) ||
			!strings.Contains(page.Body, "/v1/api/lead/download-document/") || !strings.Contains(page.Body, "?inline=1") {
			t.Fatalf("preview records: %.3000s", page.Body)
		}
		// A sixth file is refused with the reason, on the page.
		six := []apptest.Upload{}
		for i := 0; i < 6; i++ {
			six = append(six, apptest.Upload{Name: fmt.Sprintf("f%d.pdf", i), Data: apptest.PDFBytes})
		}
		if r := b.UploadFiles(base+"/documents", "", six...); r.Status != 422 || !strings.Contains(r.Body, "Upload at most 5 files") {
			t.Fatalf("six files: %d %.500s", r.Status, r.Body)
		}
		docID := regexp.MustCompile(`/leads/\d+/documents/(\d+)/edit`).FindStringSubmatch(page.Body)
		if docID == nil {
			t.Fatal("no rename link")
		}
		edit := fmt.Sprintf("%s/documents/%s/edit", base, docID[1])
		if r := b.Get(edit); r.Status != 200 {
			t.Fatalf("rename form: %d", r.Status)
		}
		if r := b.Form(edit, url.Values{"name": {"renamed.pdf"}, "tag": {"signed"}}); r.Status != 303 {
			t.Fatalf("rename: %d %.300s", r.Status, r.Body)
		}
		if !strings.Contains(b.Get(base).Body, "renamed.pdf") {
			t.Fatal("rename not shown")
		}
		del := fmt.Sprintf("%s/documents/%s/delete", base, docID[1])
		if r := b.Get(del); r.Status != 200 || !strings.Contains(r.Body, `data-testid="confirm"`) {
			t.Fatalf("delete step: %d", r.Status)
		}
		if r := b.Form(del, url.Values{}); r.Status != 303 {
			t.Fatalf("delete: %d", r.Status)
		}
		if n := strings.Count(b.Get(base).Body, `data-testid="document"`); n != 1 {
			t.Fatalf("documents after delete: %d", n)
		}
		// Another tenant gets 404 for the upload, the rename and the delete.
		other := e.Browser(e.Tenant("Other").Admin.Email)
		if r := other.UploadFiles(base+"/documents", "", apptest.Upload{Name: "x.pdf", Data: apptest.PDFBytes}); r.Status != 404 {
			t.Errorf("other tenant upload: %d", r.Status)
		}
		if r := other.Get(del); r.Status != 404 {
			t.Errorf("other tenant delete step: %d", r.Status)
		}
		// Without the permission: 403.
		viewer := e.Browser(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		if r := viewer.UploadFiles(base+"/documents", "", apptest.Upload{Name: "x.pdf", Data: apptest.PDFBytes}); r.Status != 403 {
			t.Errorf("viewer upload: %d", r.Status)
		}
	})
}

// TestLeadPageDeletesRemoveDocumentFiles: deleting leads from the admin pages, one or in
// bulk, removes their stored files as the API does.
func TestLeadPageDeletesRemoveDocumentFiles(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		page := e.Browser(f.Admin.Email)
		var ids []int64
		for _, name := range []string{"One", "Two", "Three"} {
			id := apptest.NewLead(t, api, name)
			if r := api.UploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", id), "", apptest.Upload{Name: "a.pdf", Data: apptest.PDFBytes}); r.Status != 201 {
				t.Fatalf("upload: %d %s", r.Status, r.Body)
			}
			ids = append(ids, id)
		}
		if n := countFiles(t, e); n != 3 {
			t.Fatalf("%d files stored, want 3", n)
		}
		if r := page.Form(fmt.Sprintf("/leads/%d/delete", ids[0]), nil); r.Status != http.StatusSeeOther && r.Status != 200 {
			t.Fatalf("page delete: %d", r.Status)
		}
		if n := countFiles(t, e); n != 2 {
			t.Fatalf("after the page delete %d files are left, want 2", n)
		}
		v := url.Values{"confirm": {"1"}, "ids": {fmt.Sprint(ids[1]), fmt.Sprint(ids[2])}}
		if r := page.Form("/leads/bulk/delete", v); r.Status != http.StatusSeeOther && r.Status != 200 {
			t.Fatalf("bulk delete: %d %s", r.Status, r.Body)
		}
		if n := countFiles(t, e); n != 0 {
			t.Fatalf("after the bulk delete %d files are left", n)
		}
	})
}
