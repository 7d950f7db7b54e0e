package campaigns

import (
	"context"
	"net/http"
	"net/url"

	"crm/app/auth"
	"crm/app/leads"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// TemplateList is GET /v1/api/list-template-master.
func (h *Handler) TemplateList(w http.ResponseWriter, r *http.Request) {
	ts, err := web.Scope(r).EmailTemplates(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.EmailTemplate]{Result: ts, Total: int64(len(ts)), Page: 1, Limit: len(ts)})
}

// TemplateDropdown is GET /v1/api/dropdown-template-master: the templates to choose from.
func (h *Handler) TemplateDropdown(w http.ResponseWriter, r *http.Request) {
	ts, err := web.Scope(r).EmailTemplates(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := make([]web.DropdownItem, 0, len(ts))
	for _, t := range ts {
		out = append(out, web.DropdownItem{Label: t.Name, Value: t.ID})
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// TemplateView is GET /v1/api/view-template-master/{id}, with its variants.
func (h *Handler) TemplateView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.EmailTemplate(ctx, id)
	})
}

// TemplateCreate is POST /v1/api/create-template-master.
func (h *Handler) TemplateCreate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "templates.created", func(ctx context.Context, s store.Scope, in store.EmailTemplateInput) (any, error) {
		return s.CreateEmailTemplate(ctx, in)
	})
}

// TemplateUpdate is PUT /v1/api/update-template-master/{id}.
func (h *Handler) TemplateUpdate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "templates.updated", func(ctx context.Context, s store.Scope, id int64, in store.EmailTemplateInput) (any, error) {
		return s.UpdateEmailTemplate(ctx, id, in)
	})
}

// TemplateDelete is DELETE /v1/api/delete-template-master/{id}.
func (h *Handler) TemplateDelete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "templates.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return nil, s.DeleteEmailTemplate(ctx, id)
	})
}

// previewPayload is a template's texts and the record to render them for.
type previewPayload struct {
	store.EmailTemplateInput
	Entity   string `json:"entity"`
	RecordID int64  `json:"record_id"`
}

// TemplatePreview is POST /v1/api/preview-template-master: the texts (saved or not)
// rendered for a lead or a client the caller may view.
func (h *Handler) TemplatePreview(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, p previewPayload) (any, error) {
		return h.preview(r, s, p)
	})
}

// preview renders for a record of a kind the caller may view (another kind is forbidden).
func (h *Handler) preview(r *http.Request, s store.Scope, p previewPayload) (*store.RenderedEmail, error) {
	e := store.EntityNamed(p.Entity)
	if e == nil {
		return nil, validate.Errors{"entity": validate.KeyInvalid}
	}
	if !web.Caller(r).Perms.Allows(e.Feature, auth.View) {
		return nil, &web.Error{Status: http.StatusForbidden, MsgID: "error.forbidden"}
	}
	m, err := s.PreviewTemplate(r.Context(), p.EmailTemplateInput, store.MergeTarget{Entity: e.Name, ID: p.RecordID})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// sendPayload is a bulk send: a template and the leads, by id or by the lead list's query
// string (every lead it matches).
type sendPayload struct {
	TemplateID int64   `json:"template_id"`
	IDs        []int64 `json:"ids"`
	Query      *string `json:"query"`
}

// SendBulk is POST /v1/api/lead/send-bulk-email: 202 with the send, which runs in the
// background (GET view-bulk-email/{id} for its progress).
func (h *Handler) SendBulk(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusAccepted, "campaigns.started", func(ctx context.Context, s store.Scope, p sendPayload) (any, error) {
		ids := p.IDs
		if p.Query != nil {
			if len(ids) > 0 {
				return nil, validate.Errors{"query": validate.KeyInvalid}
			}
			var err error
			if ids, err = matching(ctx, s, *p.Query); err != nil {
				return nil, err
			}
		}
		if len(ids) == 0 {
			return nil, validate.Errors{"ids": validate.KeyRequired}
		}
		send, err := s.CreateEmailSend(ctx, p.TemplateID, ids)
		if err != nil {
			return nil, err
		}
		h.start(s.TenantID, s.UserID, send.ID)
		return send, nil
	})
}

// SendView is GET /v1/api/lead/view-bulk-email/{id}: a send's progress and counts.
func (h *Handler) SendView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.EmailSend(ctx, id)
	})
}

// matching lists every lead the lead list's query string matches, in the caller's reach
// for update, page after page (as the export reads them).
func matching(ctx context.Context, s store.Scope, raw string) ([]int64, error) {
	in, err := url.ParseQuery(raw)
	if err != nil {
		return nil, validate.Errors{"query": validate.KeyInvalid}
	}
	q, _, errs := leads.Query(in)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	q.Limit, q.Page, q.After = store.MaxLeadLimit, 1, ""
	s = s.For(auth.Update)
	var ids []int64
	for {
		page, err := s.ListLeads(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, l := range page.Rows {
			ids = append(ids, l.ID)
		}
		if page.Next == "" || len(ids) > store.MaxSendRecipients {
			return ids, nil
		}
		q.After = page.Next
	}
}
