package leads

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/listpage"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	leadsview "crm/views/leads"
)

// newList is the lead list page as the list kit serves it.
func (h *Handler) newList() *listpage.List[*leadsview.List] {
	return &listpage.List[*leadsview.List]{Kit: h.web, Path: leadsview.ListPath, Results: leadsview.ResultsID,
		TitleID: "leadsPage.title", Load: h.leadList,
		Page:     func(m *leadsview.List) templ.Component { return leadsview.ListPage(*m) },
		Fragment: func(m *leadsview.List) templ.Component { return leadsview.ResultsFragment(*m) },
		SetError: func(m *leadsview.List, msg string) { m.BulkError = msg }}
}

// leadList loads everything the list page shows for a query string.
func (h *Handler) leadList(r *http.Request, in url.Values) (*leadsview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := Query(in)
	if !listpage.LimitOffered(norm) {
		q.Limit = 0 // the page offers its own page sizes only
	}
	page, err := scope.ListLeads(ctx, q)
	var ve validate.Errors
	if errors.As(err, &ve) && q.After != "" {
		// A cursor of another sort, or a mangled one: start from the first page.
		q.After = ""
		norm.Del("after")
		page, err = scope.ListLeads(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	sort, desc := listpage.Sort(q.Sort, q.Order)
	m := &leadsview.List{ListState: leadsview.State(norm, errs, sort, desc), Page: page, Choices: map[string][]components.Option{},
		CanCreate: p.Perms.Allows(auth.FeatureLeads, auth.Create), CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete), CanExport: p.Perms.Allows(auth.FeatureLeads, auth.Export)}
	m.Filtered = q.Search != "" || !q.CreatedFrom.IsZero() || !q.CreatedTo.IsZero() || len(errs) > 0
	for _, f := range listFilters {
		m.Filtered = m.Filtered || len(*f.ids(&q)) > 0
		if f.kind == "" {
			continue
		}
		ms, err := scope.Masters(ctx, f.kind)
		if err != nil {
			return nil, err
		}
		for _, mm := range ms {
			m.Choices[f.name] = append(m.Choices[f.name], components.Option{Value: strconv.FormatInt(mm.ID, 10), Label: mm.Name})
		}
	}
	m.Choices["bulk_lead_stage_id"] = m.Choices["stage_id"]
	m.Choices["bulk_lead_status_id"] = m.Choices["status_id"]
	if m.Choices["owner_id"], m.Choices["bulk_owner_id"], err = listpage.Owners(r, auth.FeatureLeads); err != nil {
		return nil, err
	}
	if m.SavedViews, err = scope.SavedViews(ctx); err != nil {
		return nil, err
	}
	m.Pager = m.ListState.Pager(ctx, web.T(r, "paging.label"), q.After != "", "", page.Next)
	return m, nil
}

func (h *Handler) LeadsPage(w http.ResponseWriter, r *http.Request) { h.list.Serve(w, r) }

// bulkFields are the fields a bulk change may set.
var bulkFields = map[string]store.LeadField{"lead_stage_id": store.FieldStage, "lead_status_id": store.FieldStatus, "owner_id": store.FieldOwner}

// LeadsBulkUpdate sets the stage, status or owner of the ticked leads.
func (h *Handler) LeadsBulkUpdate(w http.ResponseWriter, r *http.Request) {
	h.list.BulkChange(w, r, listpage.BulkChange{Fields: []string{"lead_stage_id", "lead_status_id", "owner_id"},
		NoneID: "leadsPage.selectNone", DoneID: "leads.bulkUpdated",
		Apply: func(r *http.Request, ids []int64, field string, value int64) (int, error) {
			return web.Scope(r).BulkSetLeadField(r.Context(), ids, bulkFields[field], value)
		}})
}

// LeadsBulkDelete deletes the ticked leads and their document files, after a
// confirmation step.
func (h *Handler) LeadsBulkDelete(w http.ResponseWriter, r *http.Request) {
	h.list.BulkDelete(w, r, listpage.BulkDelete{Action: "/leads/bulk/delete", TitleID: "leadsPage.bulkDeleteTitle",
		MessageID: "leadsPage.deleteMessage", NoneID: "leadsPage.selectNone", DoneID: "leads.bulkDeleted",
		Find: func(r *http.Request, id int64) (components.Record, error) {
			l, err := web.Scope(r).LeadView(r.Context(), id)
			if err != nil {
				return components.Record{}, err
			}
			return components.Record{ID: l.ID, Href: leadsview.LeadHref(l.ID), Name: l.CustomerName, Detail: l.CompanyName}, nil
		},
		Delete: func(r *http.Request, ids []int64) (int, error) {
			deleted, err := web.Scope(r).DeleteLeads(r.Context(), ids)
			if err != nil {
				return 0, err
			}
			for _, id := range deleted {
				h.documents.RemoveFiles(r, store.EntityLead, id)
			}
			return len(deleted), nil
		}})
}
