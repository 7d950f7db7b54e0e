package exports

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/clients"
	"crm/app/contact"
	"crm/app/leads"
	"crm/app/store"
	"crm/app/web"
	importsview "crm/views/imports"
)

// CSV export of the lead list and the client list with the current search, filters and
// sort: /leads/export.csv (the list page's query) and /v1/api/lead/export-customer-lead,
// /clients/export.csv and /v1/api/client/export-customer-client. The rows come through
// the store's list queries, page after page — so the tenant and the caller's record scope
// apply as on the list — and are written as they come, never all held in memory.

// exportBatch is the page size the export reads the list with (the list's largest).
const exportBatch = store.MaxLeadLimit

// exportTimeFormat is how the export writes times (UTC): a form spreadsheet apps read as a
// date and the import reads back.
const exportTimeFormat = "2006-01-02 15:04:05"

// CSVOut is the body of a CSV download: gzip-compressed when the client takes it.
type CSVOut struct {
	io.Writer
	gz *gzip.Writer
}

func (o *CSVOut) Close() error {
	if o.gz != nil {
		return o.gz.Close()
	}
	return nil
}

// StartCSV sends the headers of a CSV download named name and the byte order mark that
// tells spreadsheet apps the text is UTF-8, and returns the body to write the rows to.
func StartCSV(w http.ResponseWriter, r *http.Request, name string) *CSVOut {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	out := &CSVOut{Writer: w}
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		out.gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		out.Writer = out.gz
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(out, "\ufeff")
	return out
}

// SafeCell keeps a spreadsheet app from running a cell as a formula: a value starting
// with = + - @ (other than a plain number such as a dial code) gets an apostrophe in front,
// which the import takes off again.
func SafeCell(v string) string {
	if v == "" || !strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return v
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v
	}
	return "'" + v
}

// leadExportColumns are the fields a lead export writes after the id, in order, with their
// labels from the import's fields (so an export imports back with every column recognised).
var leadExportColumns = contact.ExportColumns("company_type_id", "lead_type_id", "lead_source_id", "lead_status_id",
	"lead_stage_id", "owner_id", "created_by", "created_at")

// clientExportColumns are leadExportColumns without the lead's own masters.
var clientExportColumns = contact.ExportColumns("company_type_id", "owner_id", "created_by", "created_at")

func exportHeader(r *http.Request, cols []string) []string {
	out := []string{web.T(r, "imports.idHeading")}
	for _, c := range cols {
		out = append(out, importsview.FieldLabel(r.Context(), c))
	}
	return out
}

// safeRecord makes every cell of a record safe for a spreadsheet app (SafeCell).
func safeRecord(rec []string) []string {
	for i := range rec {
		rec[i] = SafeCell(rec[i])
	}
	return rec
}

func leadRecord(l *store.LeadView) []string {
	return safeRecord(contact.ExportRecord(l.ID, &l.Contact, l.CompanyTypeName, l.LeadTypeName, l.LeadSourceName,
		l.LeadStatusName, l.LeadStageName, l.OwnerName, l.CreatedUserName, l.CreatedAt.UTC().Format(exportTimeFormat)))
}

func clientRecord(c *store.ClientView) []string {
	return safeRecord(contact.ExportRecord(c.ID, &c.Contact, c.CompanyTypeName, c.OwnerName, c.CreatedUserName,
		c.CreatedAt.UTC().Format(exportTimeFormat)))
}

// exportName is the download's file name: what it holds and today's date.
func exportName(what string) string {
	return what + "-" + time.Now().UTC().Format("2006-01-02") + ".csv"
}

// exportDelimiter is the export's delimiter: ?delimiter=semicolon (or tab) for spreadsheet
// apps whose language writes decimal commas; a comma otherwise.
func exportDelimiter(r *http.Request) rune {
	switch r.URL.Query().Get("delimiter") {
	case "semicolon", ";":
		return ';'
	case "tab":
		return '\t'
	}
	return ','
}

// streamCSV writes the header, then each batch fetch gives until it reports no more. The
// first batch is read before anything is sent, so a bad query is still a clean error. A
// long export outlives the request timeout (its writes keep it going and fail when the
// client goes away).
func (h *Handler) streamCSV(w http.ResponseWriter, r *http.Request, name string, header []string,
	fetch func(ctx context.Context) ([][]string, bool, error)) {
	ctx := context.WithoutCancel(r.Context())
	recs, more, err := fetch(ctx)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := StartCSV(w, r, name)
	defer out.Close()
	cw := csv.NewWriter(out)
	cw.Comma = exportDelimiter(r)
	rc := http.NewResponseController(w)
	if err := cw.Write(header); err != nil {
		return
	}
	for {
		for _, rec := range recs {
			if err := cw.Write(rec); err != nil {
				return
			}
		}
		cw.Flush()
		if cw.Error() != nil || !more {
			return
		}
		_ = rc.SetWriteDeadline(time.Now().Add(time.Minute))
		if recs, more, err = fetch(ctx); err != nil {
			h.web.Logger(r).Error("export", "err", err)
			return
		}
	}
}

// LeadExport streams every lead the list would show for the query, in its order.
func (h *Handler) LeadExport(w http.ResponseWriter, r *http.Request) {
	q, _, errs := leads.Query(r.URL.Query())
	if err := errs.Err(); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	q.Limit, q.Page, q.After = exportBatch, 1, "" // everything that matches, from the start
	scope := web.Scope(r).For(auth.Export)        // the records the role exports, not those it views
	started := false
	h.streamCSV(w, r, exportName("leads"), exportHeader(r, leadExportColumns), func(ctx context.Context) ([][]string, bool, error) {
		if started && q.After == "" {
			return nil, false, nil
		}
		started = true
		page, err := scope.ListLeads(ctx, q)
		if err != nil {
			return nil, false, err
		}
		recs := make([][]string, len(page.Rows))
		for i := range page.Rows {
			recs[i] = leadRecord(&page.Rows[i])
		}
		q.After = page.Next
		return recs, page.Next != "", nil
	})
}

// ClientExport streams every client the client list would show for the query
// (clients.Query), in its order, reading the list page after page by keyset.
func (h *Handler) ClientExport(w http.ResponseWriter, r *http.Request) {
	q, _, errs := clients.Query(r.URL.Query())
	if err := errs.Err(); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	q.Limit, q.Page, q.After, q.Before = exportBatch, 1, "", "" // everything that matches, from the start
	scope := web.Scope(r).For(auth.Export)                      // the records the role exports, not those it views
	started := false
	h.streamCSV(w, r, exportName("clients"), exportHeader(r, clientExportColumns), func(ctx context.Context) ([][]string, bool, error) {
		if started && q.After == "" {
			return nil, false, nil
		}
		started = true
		page, err := scope.ListClients(ctx, q)
		if err != nil {
			return nil, false, err
		}
		recs := make([][]string, len(page.Rows))
		for i := range page.Rows {
			recs[i] = clientRecord(&page.Rows[i])
		}
		q.After = page.Next
		return recs, page.Next != "", nil
	})
}
