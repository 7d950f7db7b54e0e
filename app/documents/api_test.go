package documents_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crm/app/apptest"
)

func TestDocumentsUploadPreviewDownloadDelete(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		id := apptest.NewLead(t, c, "Doc Lead")
		r := c.UploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", id), "contract",
			apptest.Upload{Name: "offer.pdf", Data: apptest.PDFBytes}, apptest.Upload{Name: "logo.png", Data: apptest.PNGBytes(t)})
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
		apptest.MustJSON(t, r.Body, &env)
		if r.Status != 201 || env.Message != "Documents uploaded" || len(env.Data) != 2 || env.Data[0].Name != "offer.pdf" || env.Data[0].MediaType != "application/pdf" ||
			env.Data[0].Tag != "contract" || env.Data[0].Size != fmt.Sprintf("%.2f KB", float64(len(apptest.PDFBytes))/1024) ||
			env.Data[1].MediaType != "image/png" {
			t.Fatalf("preview records: %s", r.Body)
		}
		dl := c.Get(env.Data[0].URL)
		if dl.Status != 200 || dl.Body != string(apptest.PDFBytes) || !strings.HasPrefix(dl.Header.Get("Content-Disposition"), "attachment") ||
			dl.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("download: %d %v", dl.Status, dl.Header)
		}
		// Another tenant cannot download, list or delete it.
		other := e.APIClient(e.Tenant("Other").Admin.Email)
		for _, p := range []string{env.Data[0].URL, fmt.Sprintf("/v1/api/lead/list-document/%d", id), fmt.Sprintf("/v1/api/lead/view-document/%d", env.Data[0].ID)} {
			if r := other.Get(p); r.Status != 404 {
				t.Errorf("GET %s from another tenant: %d", p, r.Status)
			}
		}
		if r := other.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-document/%d", env.Data[0].ID), nil); r.Status != 404 {
			t.Errorf("cross-tenant delete: %d", r.Status)
		}
		r = c.Do("PUT", fmt.Sprintf("/v1/api/lead/update-document/%d", env.Data[0].ID), map[string]string{"name": "Offer v2.pdf", "tag": "signed"})
		if r.Status != 200 || r.Env().Data["name"] != "Offer v2.pdf" || r.Env().Data["tag"] != "signed" {
			t.Fatalf("rename: %d %s", r.Status, r.Body)
		}
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-document/%d", env.Data[0].ID), nil); r.Status != 200 {
			t.Fatalf("delete: %d", r.Status)
		}
		if r := c.Get(env.Data[0].URL); r.Status != 404 {
			t.Fatalf("deleted document still served: %d", r.Status)
		}
		list := c.Get(fmt.Sprintf("/v1/api/lead/list-document/%d", id)).Env()
		if list.Data["total"] != 1.0 {
			t.Fatalf("list after delete: %v", list.Data)
		}
	})
}

func TestDocumentLimitsAndContent(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		id := apptest.NewLead(t, c, "Limit Lead")
		path := fmt.Sprintf("/v1/api/lead/create-document/%d", id)
		six := make([]apptest.Upload, 6)
		for i := range six {
			six[i] = apptest.Upload{Name: fmt.Sprintf("f%d.pdf", i), Data: apptest.PDFBytes}
		}
		if r := c.UploadFiles(path, "", six...); r.Status != 422 || r.Env().Errors["files"] != "tooManyFiles" {
			t.Fatalf("six files: %d %s", r.Status, r.Body)
		}
		big := append(append([]byte{}, apptest.PDFBytes...), bytes.Repeat([]byte("x"), 2048*1024)...)
		if r := c.UploadFiles(path, "", apptest.Upload{Name: "ok.pdf", Data: apptest.PDFBytes}, apptest.Upload{Name: "big.pdf", Data: big}); r.Status != 413 || r.Env().Message != `"big.pdf" is larger than 2048 KB.` {
			t.Fatalf("big file: %d %.200s", r.Status, r.Body)
		}
		// An executable renamed to .pdf is refused by its bytes.
		if r := c.UploadFiles(path, "", apptest.Upload{Name: "invoice.pdf", Data: []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00")}); r.Status != 422 {
			t.Fatalf("fake pdf: %d %s", r.Status, r.Body)
		}
		if r := c.UploadFiles(path, "", apptest.Upload{Name: "page.html", Data: []byte("<html><script>alert(1)</script></html>")}); r.Status != 422 {
			t.Fatalf("html: %d %s", r.Status, r.Body)
		}
		// Nothing from the refused uploads was kept: no records, no files.
		if env := c.Get(fmt.Sprintf("/v1/api/lead/list-document/%d", id)).Env(); env.Data["total"] != 0.0 {
			t.Fatalf("records left: %v", env.Data)
		}
		if n := countFiles(t, e); n != 0 {
			t.Fatalf("%d files left in the store", n)
		}
	})
}

func countFiles(t *testing.T, e *apptest.Env) int {
	t.Helper()
	n := 0
	_ = filepath.Walk(e.FilesDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n++
		}
		return nil
	})
	return n
}
