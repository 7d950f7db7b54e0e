package app_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/jobs"
)

func TestLeadPageDocumentsUploadRenameDelete(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := newLead(t, api, "Doc Lead")
		base := fmt.Sprintf("/leads/%d", id)
		if r := b.Get(base); !strings.Contains(r.Body, `data-testid="upload-form"`) || !strings.Contains(r.Body, `data-testid="documents-empty"`) {
			t.Fatalf("lead page documents section: %.500s", r.Body)
		}
		r := b.UploadFiles(base+"/documents", "contract", apptest.Upload{Name: "offer.pdf", Data: pdfBytes}, apptest.Upload{Name: "logo.png", Data: pngBytes(t)})
		if r.Status != 303 || r.Header.Get("Location") != base+"#documents" {
			t.Fatalf("upload: %d %v %.500s", r.Status, r.Header, r.Body)
		}
		page := b.Get(base)
		size := fmt.Sprintf("%.2f KB", float64(len(pdfBytes))/1024)
		if strings.Count(page.Body, `data-testid="document"`) != 2 || !strings.Contains(page.Body, "offer.pdf") || !strings.Contains(page.Body, size) ||
			!strings.Contains(page.Body, `data-testid="document-tag">contract`) || !regexp.MustCompile(`data-testid="document-thumb"`).MatchString(page.Body) ||
			!strings.Contains(page.Body, "/v1/api/lead/download-document/") || !strings.Contains(page.Body, "?inline=1") {
			t.Fatalf("preview records: %.3000s", page.Body)
		}
		// A sixth file is refused with the reason, on the page.
		six := []apptest.Upload{}
		for i := 0; i < 6; i++ {
			six = append(six, apptest.Upload{Name: fmt.Sprintf("f%d.pdf", i), Data: pdfBytes})
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
		if r := other.UploadFiles(base+"/documents", "", apptest.Upload{Name: "x.pdf", Data: pdfBytes}); r.Status != 404 {
			t.Errorf("other tenant upload: %d", r.Status)
		}
		if r := other.Get(del); r.Status != 404 {
			t.Errorf("other tenant delete step: %d", r.Status)
		}
		// Without the permission: 403.
		viewer := e.Browser(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}}).Email)
		if r := viewer.UploadFiles(base+"/documents", "", apptest.Upload{Name: "x.pdf", Data: pdfBytes}); r.Status != 403 {
			t.Errorf("viewer upload: %d", r.Status)
		}
	})
}

func TestLeadPageRemindersAndNotifications(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := newLead(t, api, "Remind Lead")
		base := fmt.Sprintf("/leads/%d", id)
		page := b.Get(base)
		if !strings.Contains(page.Body, `data-island="picker"`) || !strings.Contains(page.Body, `type="datetime-local"`) || !strings.Contains(page.Body, "/static/build/picker-") {
			t.Fatalf("reminder form has no picker: %.3000s", page.Body)
		}
		if !strings.Contains(page.Body, `data-testid="notifications-count">0<`) {
			t.Fatal("header count is not 0")
		}
		// Refused: no title, a bad date.
		if r := b.Form(base+"/reminders", url.Values{"due_at": {"31/31/2020"}}); r.Status != 422 ||
			!strings.Contains(r.Body, `data-testid="error-title"`) || !strings.Contains(r.Body, `data-testid="error-due_at"`) {
			t.Fatalf("refused reminder: %d %.1500s", r.Status, r.Body)
		}
		past := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02T15:04")
		r := b.Form(base+"/reminders", url.Values{"title": {"Call back"}, "note": {"About the offer"}, "due_at": {past},
			"assignee_id": {fmt.Sprint(f.Admin.ID)}})
		if r.Status != 303 {
			t.Fatalf("create reminder: %d %.1000s", r.Status, r.Body)
		}
		page = b.Get(base)
		if !strings.Contains(page.Body, "Call back") || !strings.Contains(page.Body, `data-testid="reminder-overdue"`) {
			t.Fatalf("reminder list: %.3000s", page.Body)
		}
		if _, err := jobs.FireReminders(context.Background(), e.DB, time.Now()); err != nil {
			t.Fatal(err)
		}
		page = b.Get(base)
		if !strings.Contains(page.Body, `data-testid="notifications-count">1<`) || !strings.Contains(page.Body, "notif-overdue") {
			t.Fatalf("header after firing: %.800s", page.Body)
		}
		n := b.Get("/notifications")
		if n.Status != 200 || !strings.Contains(n.Body, "Call back") || !strings.Contains(n.Body, `data-island="picker"`) {
			t.Fatalf("notifications page: %d %.2000s", n.Status, n.Body)
		}
		day := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02")
		if r := b.Get("/notifications?from=" + day + "&to=" + day); !strings.Contains(r.Body, "Call back") {
			t.Fatal("range filter dropped the reminder")
		}
		if r := b.Get("/notifications?from=2001-01-01&to=2001-01-31"); strings.Contains(r.Body, "Call back") {
			t.Fatal("range filter kept a reminder outside it")
		}
		rid := regexp.MustCompile(`/reminders/(\d+)/edit`).FindStringSubmatch(page.Body)
		if rid == nil {
			t.Fatal("no edit link")
		}
		other := e.Browser(e.Tenant("Other").Admin.Email)
		if r := other.Get("/reminders/" + rid[1] + "/edit"); r.Status != 404 {
			t.Errorf("other tenant edit: %d", r.Status)
		}
		if r := other.Form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {past}}); r.Status != 404 {
			t.Errorf("other tenant create: %d", r.Status)
		}
		if r := b.Get("/reminders/" + rid[1] + "/edit"); r.Status != 200 || !strings.Contains(r.Body, `value="`+past+`"`) {
			t.Fatalf("edit form: %d", r.Status)
		}
		if r := b.Form("/reminders/"+rid[1]+"/done", url.Values{}); r.Status != 303 {
			t.Fatalf("done: %d", r.Status)
		}
		if r := b.Get(base); !strings.Contains(r.Body, `data-testid="notifications-count">0<`) {
			t.Fatal("done reminder still counted")
		}
		if r := b.Form("/reminders/"+rid[1]+"/delete", url.Values{}); r.Status != 303 {
			t.Fatalf("delete: %d", r.Status)
		}
		viewer := e.Browser(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}}).Email)
		if r := viewer.Form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {past}}); r.Status != 403 {
			t.Errorf("viewer create: %d", r.Status)
		}
	})
}
