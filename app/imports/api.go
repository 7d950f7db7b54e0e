package imports

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/exports"
	"crm/app/importer"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	importsview "crm/views/imports"
)

// CSV import of leads and clients: upload a file, map its columns, run it in the background
// with a progress bar, read the report, undo it. The pages and the JSON API
// (/v1/api/import/…) share these handlers' steps; the machinery is app/importer and the
// rules app/store.

// maxImportBody caps an upload request: the file and the form around it.
const maxImportBody = importer.MaxFileBytes + 64<<10

// reportProblems is how many skipped or failed rows an import's page lists.
const reportProblems = 50

// importJSON is an import as the API shows it.
type importJSON struct {
	*store.Import
	Processed int               `json:"processed_rows"`
	Progress  int               `json:"progress"`
	Fields    []importFieldJSON `json:"fields"`
	ReportURL string            `json:"report_url"`
	ErrorText string            `json:"error_text,omitempty"`
}

type importFieldJSON struct {
	Name     string `json:"name"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
}

func (h *Handler) importJSON(r *http.Request, im *store.Import) importJSON {
	j := importJSON{Import: im, Processed: im.Processed(), Progress: importsview.Percent(im),
		ReportURL: "/v1/api/import/report-import/" + strconv.FormatInt(im.ID, 10)}
	for _, f := range importer.Fields(im.Entity) {
		j.Fields = append(j.Fields, importFieldJSON{Name: f, Label: importsview.FieldLabel(r.Context(), f),
			Required: f == "customer_name" || f == "company_email"})
	}
	if im.Error != "" {
		j.ErrorText = web.T(r, im.Error)
	}
	return j
}

// importRowJSON is a processed row with its reason in words.
type importRowJSON struct {
	store.ImportRow
	ReasonText string `json:"reason_text,omitempty"`
}

// canImport reports whether the caller may import into any entity.
func canImport(p *web.Principal) bool {
	return p.Perms.Allows(auth.FeatureLeads, auth.Import) || p.Perms.Allows(auth.FeatureClients, auth.Import)
}

// importEntities are the entities the caller may import, as choices.
func importEntities(r *http.Request, selected string) []components.Option {
	p := web.Caller(r)
	var out []components.Option
	for _, e := range store.Entities {
		if p.Perms.Allows(e.Feature, auth.Import) {
			out = append(out, components.Option{Value: e.Name, Label: importsview.Entity(r.Context(), e.Name), Selected: e.Name == selected})
		}
	}
	return out
}

// fileError is a refused upload, with the imports.error message that says why.
type fileError struct {
	Status int
	MsgID  string
	Args   []any
}

func (e *fileError) Error() string { return e.MsgID }

// readUpload reads an upload: the entity (form field or query parameter) and the first
// file of the multipart body, whole, up to importer.MaxFileBytes.
func readUpload(w http.ResponseWriter, r *http.Request) (entity, name string, data []byte, err error) {
	entity = r.URL.Query().Get("entity")
	r.Body = http.MaxBytesReader(w, r.Body, maxImportBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return "", "", nil, web.BadRequest("error.form", err)
	}
	tooBig := &fileError{Status: http.StatusRequestEntityTooLarge, MsgID: "imports.error.tooLarge",
		Args: []any{"Size", importer.MaxFileBytes >> 20}}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return "", "", nil, tooBig
		}
		if err != nil {
			return "", "", nil, web.BadRequest("error.form", err)
		}
		switch {
		case part.FileName() == "" && part.FormName() == "entity":
			b, _ := io.ReadAll(io.LimitReader(part, 64))
			entity = strings.TrimSpace(string(b))
		case part.FileName() != "" && data == nil:
			name = part.FileName()
			data, err = io.ReadAll(io.LimitReader(part, importer.MaxFileBytes+1))
			if errors.As(err, &mbe) || len(data) > importer.MaxFileBytes {
				return "", "", nil, tooBig
			}
			if err != nil {
				return "", "", nil, web.BadRequest("error.form", err)
			}
		}
		_ = part.Close()
	}
	if data == nil {
		return entity, "", nil, &fileError{Status: http.StatusUnprocessableEntity, MsgID: "imports.error.noFile"}
	}
	return entity, name, data, nil
}

// uploadImport reads the file and keeps it
// as an import with suggested columns.
func (h *Handler) uploadImport(r *http.Request, entity, name string, data []byte) (*store.Import, error) {
	p := web.Caller(r)
	if store.EntityNamed(entity) == nil {
		return nil, validate.Errors{"entity": validate.KeyInvalid}
	}
	in, err := importer.Inspect(data)
	if err != nil {
		if id := importer.MessageID(err); id != "" {
			return nil, &fileError{Status: http.StatusUnprocessableEntity, MsgID: id, Args: []any{"Max", importer.MaxColumns}}
		}
		return nil, err
	}
	if name = strings.TrimSpace(name); name == "" || len(name) > 200 {
		name = "import.csv"
	}
	return p.Scope().CreateImport(r.Context(), store.NewImport{Entity: entity, FileName: name, Content: data,
		Delimiter: importer.DelimiterName(in.Format.Delimiter), Encoding: in.Format.Encoding, Header: in.Header,
		Preview: in.Preview, TotalRows: in.Rows, Mapping: importer.Suggest(entity, in.Header, importsview.Labels(r.Context(), entity))})
}

// importOf loads the caller's import named by the URL; another user's or tenant's is not found.
func (h *Handler) importOf(r *http.Request) (*store.Import, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).Import(r.Context(), id)
}

// runImport checks a mapping, queues the import (the store refuses a mode the caller may
// not run)
// and starts it.
func (h *Handler) runImport(r *http.Request, im *store.Import, mapping []string, mode, matchKey string) (*store.Import, error) {
	if mapping == nil {
		mapping = im.Mapping
	}
	if im.Status != store.ImportUploaded {
		return nil, &web.Error{Status: http.StatusConflict, MsgID: "imports.error.started"}
	}
	if errs := importer.CheckMapping(im.Entity, len(im.Header), mapping, mode, matchKey); errs != nil {
		return nil, errs
	}
	queued, err := web.Scope(r).QueueImport(r.Context(), im.ID, mapping, mode, matchKey)
	if errors.Is(err, store.ErrConflict) {
		return nil, &web.Error{Status: http.StatusConflict, MsgID: "imports.error.started"}
	}
	if err != nil {
		return nil, err
	}
	h.runner.Start(store.ImportRef{TenantID: queued.TenantID, ID: queued.ID})
	return queued, nil
}

// undoImport queues the undo (the store refuses a caller who may not delete) and starts it.
func (h *Handler) undoImport(r *http.Request, im *store.Import) (*store.Import, error) {
	queued, err := web.Scope(r).QueueUndo(r.Context(), im.ID)
	if errors.Is(err, store.ErrConflict) {
		return nil, &web.Error{Status: http.StatusConflict, MsgID: "imports.error.notUndoable"}
	}
	if err != nil {
		return nil, err
	}
	h.runner.Start(store.ImportRef{TenantID: queued.TenantID, ID: queued.ID})
	return queued, nil
}

// failImport renders an upload refusal: its own status and message, else the usual way.
func (h *Handler) failImport(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fileError
	if errors.As(err, &fe) {
		h.web.JSON(w, fe.Status, web.Envelope{Message: web.T(r, fe.MsgID, fe.Args...),
			Errors: validate.Errors{"file": strings.TrimPrefix(fe.MsgID, "imports.error.")}})
		return
	}
	h.web.Fail(w, r, err)
}

// ---- JSON API ----

func (h *Handler) ImportCreate(w http.ResponseWriter, r *http.Request) {
	entity, name, data, err := readUpload(w, r)
	if err != nil {
		h.failImport(w, r, err)
		return
	}
	im, err := h.uploadImport(r, entity, name, data)
	if err != nil {
		h.failImport(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusCreated, "imports.uploaded", h.importJSON(r, im))
}

func (h *Handler) ImportList(w http.ResponseWriter, r *http.Request) {
	list, err := web.Scope(r).Imports(r.Context(), 100)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := web.List[importJSON]{Result: make([]importJSON, 0, len(list)), Total: int64(len(list)), Page: 1, Limit: 100}
	for i := range list {
		out.Result = append(out.Result, h.importJSON(r, &list[i]))
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

func (h *Handler) ImportView(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", h.importJSON(r, im))
}

type runPayload struct {
	Mapping  []string `json:"mapping"`
	Mode     string   `json:"mode"`
	MatchKey string   `json:"match_key"`
}

func (h *Handler) ImportRun(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var p runPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if p.MatchKey == "" {
		p.MatchKey = store.MatchEmail
	}
	queued, err := h.runImport(r, im, p.Mapping, p.Mode, p.MatchKey)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusAccepted, "imports.started", h.importJSON(r, queued))
}

func (h *Handler) ImportUndo(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	queued, err := h.undoImport(r, im)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusAccepted, "imports.undoStarted", h.importJSON(r, queued))
}

// ImportRows lists an import's processed rows in file order: ?outcome=failed (or a
// bracketed list of outcomes), ?after=<row> to page on, ?limit (1–1000, default 100).
func (h *Handler) ImportRows(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var outcomes []string
	for _, raw := range r.URL.Query()["outcome"] {
		for _, o := range strings.Split(strings.Trim(raw, "[]"), ",") {
			switch o = strings.TrimSpace(o); o {
			case "":
			case store.OutcomeCreated, store.OutcomeUpdated, store.OutcomeSkipped, store.OutcomeFailed:
				outcomes = append(outcomes, o)
			default:
				h.web.Fail(w, r, validate.Errors{"outcome": validate.KeyInvalid})
				return
			}
		}
	}
	limit := int(web.IntParam(r, "limit"))
	if limit < 1 || limit > 1000 {
		limit = 100
	}
	rows, err := web.Scope(r).ImportRows(r.Context(), im.ID, int(web.IntParam(r, "after")), limit, outcomes...)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := web.List[importRowJSON]{Result: make([]importRowJSON, 0, len(rows)), Total: int64(len(rows)), Page: 1, Limit: limit}
	for _, row := range rows {
		out.Result = append(out.Result, importRowJSON{ImportRow: row, ReasonText: importsview.ReasonText(r.Context(), im, row.Reason)})
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// ImportReport streams the report as CSV: for every row of the file its number, what
// happened to it, the record it made or matched and the reason of a skip or failure, then
// the row's own cells — so the failed rows can be fixed and imported again. It keeps the
// file's delimiter and starts with a byte order mark for spreadsheet apps.
func (h *Handler) ImportReport(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	content, err := scope.ImportContent(r.Context(), im.ID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	rows, err := importer.Open(content, importer.Format{Delimiter: importer.ParseDelimiter(im.Delimiter), Encoding: im.Encoding})
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	ctx := context.WithoutCancel(r.Context())
	name := strings.Map(func(r rune) rune { // a plain file name, whatever the upload was called
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, strings.TrimSuffix(strings.TrimSuffix(im.FileName, ".csv"), ".CSV")) + "-report.csv"
	out := exports.StartCSV(w, r, name)
	defer out.Close()
	cw := csv.NewWriter(out)
	cw.Comma = importer.ParseDelimiter(im.Delimiter)
	head := []string{web.T(r, "imports.row"), web.T(r, "imports.result"), web.T(r, "imports.recordID"), web.T(r, "imports.reasonLabel")}
	if err := cw.Write(append(head, im.Header...)); err != nil {
		return
	}
	var done []store.ImportRow
	after, exhausted := 0, false
	rc := http.NewResponseController(w)
	for {
		row, ok := rows.Next()
		if !ok {
			break
		}
		for len(done) > 0 && done[0].RowNo < row.No {
			done = done[1:]
		}
		if len(done) == 0 && !exhausted {
			if done, err = scope.ImportRows(ctx, im.ID, after, 1000); err != nil {
				h.web.Logger(r).Error("import report", "err", err)
				return
			}
			exhausted = len(done) < 1000
			if len(done) > 0 {
				after = done[len(done)-1].RowNo
			}
		}
		rec := []string{strconv.Itoa(row.No), web.T(r, "imports.outcome.notProcessed"), "", ""}
		if len(done) > 0 && done[0].RowNo == row.No {
			d := done[0]
			rec[1] = importsview.Outcome(r.Context(), d.Outcome)
			if d.Undone {
				rec[1] += " (" + web.T(r, "imports.outcome.undone") + ")"
			}
			if d.EntityID != nil {
				rec[2] = strconv.FormatInt(*d.EntityID, 10)
			} else if d.Reason != nil && d.Reason.ID != 0 { // the record a skipped row matched
				rec[2] = strconv.FormatInt(d.Reason.ID, 10)
			}
			rec[3] = importsview.ReasonText(r.Context(), im, d.Reason)
		}
		if row.Err != nil {
			rec[3] = web.T(r, "imports.reason.malformed")
		}
		for _, c := range row.Cells {
			rec = append(rec, exports.SafeCell(c))
		}
		if err := cw.Write(rec); err != nil {
			return
		}
		if row.No%1000 == 0 {
			cw.Flush()
			_ = rc.SetWriteDeadline(time.Now().Add(time.Minute))
			if cw.Error() != nil {
				return
			}
		}
	}
	cw.Flush()
}

// ---- pages ----
