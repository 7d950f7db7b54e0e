package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"crm/app/leads"
	"crm/app/store"
)

// The reference server answers page 1 and each lead view with the rows of the statements
// the store sends for them, read over its own connection: as JSON (gzipped when asked) or
// as "{}"; it starts from its spec as `crmbench reference-serve` does and stops when its
// context ends.
func TestReferenceServerAnswersWithTheRecordedStatementsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := "sqlite:" + filepath.Join(t.TempDir(), "reference.db")
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tenant, _, err := db.SeedDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scope, err := callerScope(ctx, db, tenant.ID, store.DemoAdminEmail)
	if err != nil {
		t.Fatal(err)
	}
	q, _, _ := leads.Query(nil)
	q.Page = 1
	page, err := scope.ListLeads(ctx, q)
	if err != nil || len(page.Rows) < 2 {
		t.Fatalf("page 1: %d leads, %v", len(page.Rows), err)
	}
	first, second := page.Rows[0], page.Rows[1]

	// As the bench starts it: the spec on its input, its address on its output.
	spec, _ := json.Marshal(referenceSpec{Engine: "sqlite", DBURL: dbURL, AppURL: dbURL, Tenant: tenant.ID,
		Email: store.DemoAdminEmail, IDs: []int64{second.ID, first.ID}, Mode: keepCompiled})
	runCtx, stop := context.WithCancel(ctx)
	out, w := io.Pipe()
	ended := make(chan error, 1)
	go func() { ended <- runReference(runCtx, strings.NewReader(string(spec)), w) }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "reference at ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()

	get := func(path string, gz bool) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip") // set by hand: the transport then leaves the body as it came
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body := io.Reader(res.Body)
		if res.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b)
	}
	type answer struct {
		Data [][][]any `json:"data"` // each statement's rows
	}

	res, body := get("/json/list", true)
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("list: %s, encoding %q: %s", res.Status, res.Header.Get("Content-Encoding"), body)
	}
	var list answer
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	// The ids of page 1, then its leads' rows (any order), then their names and the counts.
	if len(list.Data) != 4 || len(list.Data[0]) != len(page.Rows)+1 && len(list.Data[0]) != len(page.Rows) {
		t.Fatalf("list: %d statements, the first with %d rows, want 4 and the page's %d (+1)", len(list.Data), len(list.Data[0]), len(page.Rows))
	}
	if len(list.Data[1]) != len(page.Rows) || !strings.Contains(body, first.CustomerName) {
		t.Errorf("list: %d lead rows, want %d with %q", len(list.Data[1]), len(page.Rows), first.CustomerName)
	}

	// View k is the k-th id of the spec.
	for k, want := range []store.LeadView{second, first} {
		path := "/json/view/" + strconv.Itoa(k)
		res, body := get(path, false)
		var view answer
		if err := json.Unmarshal([]byte(body), &view); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %s %v: %s", path, res.Status, err, body)
		}
		if len(view.Data) != 1 || len(view.Data[0]) != 1 || !strings.Contains(body, want.CustomerName) {
			t.Errorf("%s: %s, want one row of %q", path, body, want.CustomerName)
		}
	}
	if res, body := get("/none/view/1", true); res.StatusCode != 200 || body != "{}" || res.Header.Get("Content-Encoding") != "" {
		t.Errorf("/none/view/1: %s %q %q", res.Status, body, res.Header.Get("Content-Encoding"))
	}
	for _, path := range []string{"/json/view/2", "/other/list"} {
		if res, _ := get(path, false); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %s, want 404", path, res.Status)
		}
	}

	stop()
	if err := <-ended; err != nil {
		t.Errorf("the server ended with %v", err)
	}
}
