package leads

import (
	"net/http"
	"strconv"
	"time"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
	"crm/views/components"
	leadsview "crm/views/leads"
)

// boardColumnSize is how many cards a column loads at a time.
const boardColumnSize = 50

// board starts the board's view model: every stage as a move choice.
func (h *Handler) board(r *http.Request, stages []store.Master) leadsview.Board {
	p := web.Caller(r)
	b := leadsview.Board{CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update), Now: time.Now()}
	for _, st := range stages {
		b.Stages = append(b.Stages, components.Option{Value: strconv.FormatInt(st.ID, 10), Label: st.Name})
	}
	return b
}

func (h *Handler) BoardPage(w http.ResponseWriter, r *http.Request) {
	if web.IsFragment(r) {
		h.web.PageWithScript(w, r, http.StatusOK, "", nil, "")
		return
	}
	ctx := r.Context()
	scope := web.CallerFrom(ctx).Scope()
	stages, err := scope.Masters(ctx, store.KindStage)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	b := h.board(r, stages)
	for _, st := range stages {
		page, err := scope.ListLeads(ctx, store.LeadQuery{StageIDs: []int64{st.ID}, Limit: boardColumnSize})
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		b.Columns = append(b.Columns, leadsview.BoardColumn{StageID: st.ID, StageName: st.Name, Page: page, MoreHref: leadsview.MoreHref(st.ID, page.Next)})
	}
	h.web.PageWithScript(w, r, http.StatusOK, web.T(r, "board.title"), leadsview.BoardPage(b), "board.js")
}

// BoardMore serves a column's next cards: appended by htmx, or as a page of their own.
func (h *Handler) BoardMore(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	scope := web.CallerFrom(ctx).Scope()
	stage, err := scope.Master(ctx, store.KindStage, web.IntParam(r, "stage_id"))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	page, err := scope.ListLeads(ctx, store.LeadQuery{StageIDs: []int64{stage.ID}, Limit: boardColumnSize, After: r.URL.Query().Get("after")})
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	stages, err := scope.Masters(ctx, store.KindStage)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	b := h.board(r, stages)
	more := leadsview.MoreHref(stage.ID, page.Next)
	w.Header().Add("Vary", "HX-Request")
	if r.Header.Get("HX-Request") == "true" {
		h.web.Render(w, r, http.StatusOK, leadsview.MoreFragment(b, stage.ID, page.Rows, more))
		return
	}
	h.web.Page(w, r, http.StatusOK, stage.Name+" · "+web.T(r, "board.title"), leadsview.MorePage(b, *stage, page.Rows, more))
}
