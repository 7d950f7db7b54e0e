package app_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type upload struct {
	name string
	data []byte
}

// uploadFiles posts files as multipart/form-data like a browser form.
func (c *client) uploadFiles(path, tag string, files ...upload) *response {
	c.e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if tag != "" {
		_ = mw.WriteField("tag", tag)
	}
	for _, f := range files {
		w, _ := mw.CreateFormFile("files", f.name)
		_, _ = w.Write(f.data)
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", c.e.srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.send(req)
}

var pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n")

func pngBytes(t *testing.T) []byte {
	t.Helper()
	url := pngDataURL(t, 4)
	b, _ := base64Decode(strings.TrimPrefix(url, "data:image/png;base64,"))
	return b
}

func TestDocumentsUploadPreviewDownloadDelete(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		id := newLead(t, c, "Doc Lead")
		r := c.uploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", id), "contract",
			upload{"offer.pdf", pdfBytes}, upload{"logo.png", pngBytes(t)})
		var env struct {
			Message string `json:"message"`
			Data    []struct {
				ID        int64  `json:"id"`
				MediaType string `json:"media_type"`
				Tag       string `json:"tag"`
				Name      string `json:"name"`
				Size      string `json:"size"`
				URL       string `json:"url"`
			} `json:"data"`
		}
		mustJSON(t, r.body, &env)
		if r.status != 201 || env.Message != "Documents uploaded" || len(env.Data) != 2 || env.Data[0].Name != "offer.pdf" || env.Data[0].MediaType != "application/pdf" ||
			env.Data[0].Tag != "contract" || env.Data[0].Size != fmt.Sprintf("%.2f KB", float64(len(pdfBytes))/1024) ||
			env.Data[1].MediaType != "image/png" {
			t.Fatalf("preview records: %s", r.body)
		}
		dl := c.get(env.Data[0].URL)
		if dl.status != 200 || dl.body != string(pdfBytes) || !strings.HasPrefix(dl.header.Get("Content-Disposition"), "attachment") ||
			dl.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("download: %d %v", dl.status, dl.header)
		}
		// Another tenant cannot download, list or delete it.
		other := e.apiClient(e.tenant("Other").Admin.Email)
		for _, p := range []string{env.Data[0].URL, fmt.Sprintf("/v1/api/lead/list-document/%d", id), fmt.Sprintf("/v1/api/lead/view-document/%d", env.Data[0].ID)} {
			if r := other.get(p); r.status != 404 {
				t.Errorf("GET %s from another tenant: %d", p, r.status)
			}
		}
		if r := other.do("DELETE", fmt.Sprintf("/v1/api/lead/delete-document/%d", env.Data[0].ID), nil); r.status != 404 {
			t.Errorf("cross-tenant delete: %d", r.status)
		}
		r = c.do("PUT", fmt.Sprintf("/v1/api/lead/update-document/%d", env.Data[0].ID), map[string]string{"name": "Offer v2.pdf", "tag": "signed"})
		if r.status != 200 || r.env().Data["name"] != "Offer v2.pdf" || r.env().Data["tag"] != "signed" {
			t.Fatalf("rename: %d %s", r.status, r.body)
		}
		if r := c.do("DELETE", fmt.Sprintf("/v1/api/lead/delete-document/%d", env.Data[0].ID), nil); r.status != 200 {
			t.Fatalf("delete: %d", r.status)
		}
		if r := c.get(env.Data[0].URL); r.status != 404 {
			t.Fatalf("deleted document still served: %d", r.status)
		}
		list := c.get(fmt.Sprintf("/v1/api/lead/list-document/%d", id)).env()
		if list.Data["total"] != 1.0 {
			t.Fatalf("list after delete: %v", list.Data)
		}
	})
}

func TestDocumentLimitsAndContent(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		id := newLead(t, c, "Limit Lead")
		path := fmt.Sprintf("/v1/api/lead/create-document/%d", id)
		six := make([]upload, 6)
		for i := range six {
			six[i] = upload{fmt.Sprintf("f%d.pdf", i), pdfBytes}
		}
		if r := c.uploadFiles(path, "", six...); r.status != 422 || r.env().Errors["files"] != "tooManyFiles" {
			t.Fatalf("six files: %d %s", r.status, r.body)
		}
		big := append(append([]byte{}, pdfBytes...), bytes.Repeat([]byte("x"), 2048*1024)...)
		if r := c.uploadFiles(path, "", upload{"ok.pdf", pdfBytes}, upload{"big.pdf", big}); r.status != 413 || r.env().Message != `"big.pdf" is larger than 2048 KB.` {
			t.Fatalf("big file: %d %.200s", r.status, r.body)
		}
		// An executable renamed to .pdf is refused by its bytes.
		if r := c.uploadFiles(path, "", upload{"invoice.pdf", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00")}); r.status != 422 {
			t.Fatalf("fake pdf: %d %s", r.status, r.body)
		}
		if r := c.uploadFiles(path, "", upload{"page.html", []byte("<html><script>alert(1)</script></html>")}); r.status != 422 {
			t.Fatalf("html: %d %s", r.status, r.body)
		}
		// Nothing from the refused uploads was kept: no records, no files.
		if env := c.get(fmt.Sprintf("/v1/api/lead/list-document/%d", id)).env(); env.Data["total"] != 0.0 {
			t.Fatalf("records left: %v", env.Data)
		}
		if n := countFiles(t, e); n != 0 {
			t.Fatalf("%d files left in the store", n)
		}
	})
}

func countFiles(t *testing.T, e *testEnv) int {
	t.Helper()
	n := 0
	_ = filepath.Walk(e.filesDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestLeadPageDeletesRemoveDocumentFiles: deleting leads from the admin pages, one or in
// bulk, removes their stored files as the API does.
func TestLeadPageDeletesRemoveDocumentFiles(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		api := e.apiClient(f.Admin.Email)
		page := e.browser(f.Admin.Email)
		var ids []int64
		for _, name := range []string{"One", "Two", "Three"} {
			id := newLead(t, api, name)
			if r := api.uploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", id), "", upload{"a.pdf", pdfBytes}); r.status != 201 {
				t.Fatalf("upload: %d %s", r.status, r.body)
			}
			ids = append(ids, id)
		}
		if n := countFiles(t, e); n != 3 {
			t.Fatalf("%d files stored, want 3", n)
		}
		if r := page.form(fmt.Sprintf("/leads/%d/delete", ids[0]), nil); r.status != http.StatusSeeOther && r.status != 200 {
			t.Fatalf("page delete: %d", r.status)
		}
		if n := countFiles(t, e); n != 2 {
			t.Fatalf("after the page delete %d files are left, want 2", n)
		}
		v := url.Values{"confirm": {"1"}, "ids": {fmt.Sprint(ids[1]), fmt.Sprint(ids[2])}}
		if r := page.form("/leads/bulk/delete", v); r.status != http.StatusSeeOther && r.status != 200 {
			t.Fatalf("bulk delete: %d %s", r.status, r.body)
		}
		if n := countFiles(t, e); n != 0 {
			t.Fatalf("after the bulk delete %d files are left", n)
		}
	})
}
