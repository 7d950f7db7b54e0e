package app_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"crm/app/auth"
	"crm/app/jobs"
)

func TestLeadPageDocumentsUploadRenameDelete(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		api := e.apiClient(f.Admin.Email)
		b := e.browser(f.Admin.Email)
		id := newLead(t, api, "Doc Lead")
		base := fmt.Sprintf("/leads/%d", id)
		if r := b.get(base); !strings.Contains(r.body, `data-testid="upload-form"`) || !strings.Contains(r.body, `data-testid="documents-empty"`) {
			t.Fatalf("lead page documents section: %.500s", r.body)
		}
		r := b.uploadFiles(base+"/documents", "contract", upload{"offer.pdf", pdfBytes}, upload{"logo.png", pngBytes(t)})
		if r.status != 303 || r.header.Get("Location") != base+"#documents" {
			t.Fatalf("upload: %d %v %.500s", r.status, r.header, r.body)
		}
		page := b.get(base)
		size := fmt.Sprintf("%.2f KB", float64(len(pdfBytes))/1024)
		if strings.Count(page.body, `data-testid="document"`) != 2 || !strings.Contains(page.body, "offer.pdf") || !strings.Contains(page.body, size) ||
			!strings.Contains(page.body, `data-testid="document-tag">contract`) || !regexp.MustCompile(`data-testid="document-thumb"`).MatchString(page.body) ||
			!strings.Contains(page.body, "/v1/api/lead/download-document/") || !strings.Contains(page.body, "?inline=1") {
			t.Fatalf("preview records: %.3000s", page.body)
		}
		// A sixth file is refused with the reason, on the page.
		six := []upload{}
		for i := 0; i < 6; i++ {
			six = append(six, upload{fmt.Sprintf("f%d.pdf", i), pdfBytes})
		}
		if r := b.uploadFiles(base+"/documents", "", six...); r.status != 422 || !strings.Contains(r.body, "Upload at most 5 files") {
			t.Fatalf("six files: %d %.500s", r.status, r.body)
		}
		docID := regexp.MustCompile(`/leads/\d+/documents/(\d+)/edit`).FindStringSubmatch(page.body)
		if docID == nil {
			t.Fatal("no rename link")
		}
		edit := fmt.Sprintf("%s/documents/%s/edit", base, docID[1])
		if r := b.get(edit); r.status != 200 {
			t.Fatalf("rename form: %d", r.status)
		}
		if r := b.form(edit, url.Values{"name": {"renamed.pdf"}, "tag": {"signed"}}); r.status != 303 {
			t.Fatalf("rename: %d %.300s", r.status, r.body)
		}
		if !strings.Contains(b.get(base).body, "renamed.pdf") {
			t.Fatal("rename not shown")
		}
		del := fmt.Sprintf("%s/documents/%s/delete", base, docID[1])
		if r := b.get(del); r.status != 200 || !strings.Contains(r.body, `data-testid="confirm"`) {
			t.Fatalf("delete step: %d", r.status)
		}
		if r := b.form(del, url.Values{}); r.status != 303 {
			t.Fatalf("delete: %d", r.status)
		}
		if n := strings.Count(b.get(base).body, `data-testid="document"`); n != 1 {
			t.Fatalf("documents after delete: %d", n)
		}
		// Another tenant gets 404 for the upload, the rename and the delete.
		other := e.browser(e.tenant("Other").Admin.Email)
		if r := other.uploadFiles(base+"/documents", "", upload{"x.pdf", pdfBytes}); r.status != 404 {
			t.Errorf("other tenant upload: %d", r.status)
		}
		if r := other.get(del); r.status != 404 {
			t.Errorf("other tenant delete step: %d", r.status)
		}
		// Without the permission: 403.
		viewer := e.browser(e.user(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}}).Email)
		if r := viewer.uploadFiles(base+"/documents", "", upload{"x.pdf", pdfBytes}); r.status != 403 {
			t.Errorf("viewer upload: %d", r.status)
		}
	})
}

func TestLeadPageRemindersAndNotifications(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		api := e.apiClient(f.Admin.Email)
		b := e.browser(f.Admin.Email)
		id := newLead(t, api, "Remind Lead")
		base := fmt.Sprintf("/leads/%d", id)
		page := b.get(base)
		if !strings.Contains(page.body, `data-island="picker"`) || !strings.Contains(page.body, `type="datetime-local"`) || !strings.Contains(page.body, "/static/build/picker-") {
			t.Fatalf("reminder form has no picker: %.3000s", page.body)
		}
		if !strings.Contains(page.body, `data-testid="notifications-count">0<`) {
			t.Fatal("header count is not 0")
		}
		// Refused: no title, a bad date.
		if r := b.form(base+"/reminders", url.Values{"due_at": {"31/31/2020"}}); r.status != 422 ||
			!strings.Contains(r.body, `data-testid="error-title"`) || !strings.Contains(r.body, `data-testid="error-due_at"`) {
			t.Fatalf("refused reminder: %d %.1500s", r.status, r.body)
		}
		past := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02T15:04")
		r := b.form(base+"/reminders", url.Values{"title": {"Call back"}, "note": {"About the offer"}, "due_at": {past},
			"assignee_id": {fmt.Sprint(f.Admin.ID)}})
		if r.status != 303 {
			t.Fatalf("create reminder: %d %.1000s", r.status, r.body)
		}
		page = b.get(base)
		if !strings.Contains(page.body, "Call back") || !strings.Contains(page.body, `data-testid="reminder-overdue"`) {
			t.Fatalf("reminder list: %.3000s", page.body)
		}
		if _, err := jobs.FireReminders(context.Background(), e.db, time.Now()); err != nil {
			t.Fatal(err)
		}
		page = b.get(base)
		if !strings.Contains(page.body, `data-testid="notifications-count">1<`) || !strings.Contains(page.body, "notif-overdue") {
			t.Fatalf("header after firing: %.800s", page.body)
		}
		n := b.get("/notifications")
		if n.status != 200 || !strings.Contains(n.body, "Call back") || !strings.Contains(n.body, `data-island="picker"`) {
			t.Fatalf("notifications page: %d %.2000s", n.status, n.body)
		}
		day := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02")
		if r := b.get("/notifications?from=" + day + "&to=" + day); !strings.Contains(r.body, "Call back") {
			t.Fatal("range filter dropped the reminder")
		}
		if r := b.get("/notifications?from=2001-01-01&to=2001-01-31"); strings.Contains(r.body, "Call back") {
			t.Fatal("range filter kept a reminder outside it")
		}
		rid := regexp.MustCompile(`/reminders/(\d+)/edit`).FindStringSubmatch(page.body)
		if rid == nil {
			t.Fatal("no edit link")
		}
		other := e.browser(e.tenant("Other").Admin.Email)
		if r := other.get("/reminders/" + rid[1] + "/edit"); r.status != 404 {
			t.Errorf("other tenant edit: %d", r.status)
		}
		if r := other.form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {past}}); r.status != 404 {
			t.Errorf("other tenant create: %d", r.status)
		}
		if r := b.get("/reminders/" + rid[1] + "/edit"); r.status != 200 || !strings.Contains(r.body, `value="`+past+`"`) {
			t.Fatalf("edit form: %d", r.status)
		}
		if r := b.form("/reminders/"+rid[1]+"/done", url.Values{}); r.status != 303 {
			t.Fatalf("done: %d", r.status)
		}
		if r := b.get(base); !strings.Contains(r.body, `data-testid="notifications-count">0<`) {
			t.Fatal("done reminder still counted")
		}
		if r := b.form("/reminders/"+rid[1]+"/delete", url.Values{}); r.status != 303 {
			t.Fatalf("delete: %d", r.status)
		}
		viewer := e.browser(e.user(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}}).Email)
		if r := viewer.form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {past}}); r.status != 403 {
			t.Errorf("viewer create: %d", r.status)
		}
	})
}
