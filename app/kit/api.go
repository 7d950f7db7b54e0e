package kit

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// planPayload is a plan as the API takes it. start_at is the owner's wall clock
// ("2026-11-25T09:00"), read in the owner's time zone.
type planPayload struct {
	Entity      string `json:"entity"`
	RecordID    int64  `json:"record_id"`
	Type        string `json:"type"`
	EventTypeID int64  `json:"event_type_id"`
	Interval    string `json:"interval_type"`
	StartAt     string `json:"start_at"`
	TemplateID  int64  `json:"template_id"`
	Subject     string `json:"subject"`
	Note        string `json:"note"`
	OwnerID     int64  `json:"owner_id"`
	Active      *bool  `json:"active"`
}

func (p planPayload) input() store.KeepInTouchInput {
	return store.KeepInTouchInput{Entity: p.Entity, RecordID: p.RecordID, Type: store.KitType(p.Type), EventTypeID: p.EventTypeID,
		Interval: store.KitInterval(p.Interval), Start: p.StartAt, TemplateID: p.TemplateID, Subject: p.Subject, Note: p.Note,
		OwnerID: p.OwnerID, Active: p.Active}
}

func (h *Handler) Create(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "kit.created", func(ctx context.Context, s store.Scope, p planPayload) (any, error) {
		errs := validate.Errors{}
		errs.Check(p.Entity != "", "entity", validate.KeyRequired)
		errs.Check(p.RecordID > 0, "record_id", validate.KeyRequired)
		if len(errs) > 0 {
			return nil, errs
		}
		return s.CreateKeepInTouch(ctx, p.input())
	})
}

func (h *Handler) Update(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "kit.updated", func(ctx context.Context, s store.Scope, id int64, p planPayload) (any, error) {
		return s.UpdateKeepInTouch(ctx, id, p.input())
	})
}

func (h *Handler) View(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.KeepInTouch(ctx, id)
	})
}

func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "kit.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return nil, s.DeleteKeepInTouch(ctx, id)
	})
}

// SendNow produces the plan's next occurrence at once (POST /kit/send-now/{id}).
func (h *Handler) SendNow(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "kit.sent", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		v, err := s.SendKeepInTouchNow(ctx, id)
		if err == nil {
			h.woke()
		}
		return v, err
	})
}

// filter reads the list's query: entity, record_id, type, owner_id, active, page, limit.
func filter(r *http.Request) (store.KitFilter, error) {
	q := r.URL.Query()
	f := store.KitFilter{Entity: q.Get("entity"), Type: store.KitType(q.Get("type"))}
	errs := validate.Errors{}
	for name, dst := range map[string]*int64{"record_id": &f.RecordID, "owner_id": &f.OwnerID} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			errs.Check(err == nil && n > 0, name, validate.KeyInvalid)
			*dst = n
		}
	}
	for name, dst := range map[string]*int{"page": &f.Page, "limit": &f.Limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			errs.Check(err == nil && n > 0 && (name != "limit" || n <= 100), name, validate.KeyInvalid)
			*dst = n
		}
	}
	switch q.Get("active") {
	case "":
	case "true", "1":
		t := true
		f.Active = &t
	case "false", "0":
		t := false
		f.Active = &t
	default:
		errs.Add("active", validate.KeyInvalid)
	}
	if len(errs) > 0 {
		return f, errs
	}
	if f.Limit == 0 {
		f.Limit = 25
	}
	return f, nil
}

func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	f, err := filter(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	rows, total, err := web.Scope(r).KeepInTouchList(r.Context(), f)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	page := max(f.Page, 1)
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.KeepInTouchView]{Result: rows, Total: total, Page: page, Limit: f.Limit})
}

// labelled is a dropdown entry whose value is a name ("email", "weekly").
type labelled struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// TypeDropdown lists the kinds of plan (dropdown-keep-in-touch-type).
func (h *Handler) TypeDropdown(w http.ResponseWriter, r *http.Request) {
	out := make([]labelled, 0, len(store.KitTypes))
	for _, t := range store.KitTypes {
		out = append(out, labelled{Label: web.T(r, "kit.type."+string(t)), Value: string(t)})
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// IntervalDropdown lists the intervals (dropdown-interval-type).
func (h *Handler) IntervalDropdown(w http.ResponseWriter, r *http.Request) {
	out := make([]labelled, 0, len(store.KitIntervals))
	for _, t := range store.KitIntervals {
		out = append(out, labelled{Label: web.T(r, "kit.interval."+string(t)), Value: string(t)})
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// userLocation is the caller's time zone (UTC when they have none).
func userLocation(r *http.Request) *time.Location {
	if p := web.Caller(r); p != nil && p.User != nil && p.User.TimeZone != "" {
		if loc, err := time.LoadLocation(p.User.TimeZone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// MeetingDashboard is the caller's (or with scope=team, their team's) calls and meetings:
// overdue, today's and this week's (dashboard/meeting).
func (h *Handler) MeetingDashboard(w http.ResponseWriter, r *http.Request) {
	team := false
	switch r.URL.Query().Get("scope") {
	case "", "me":
	case "team":
		team = true
	default:
		h.web.Fail(w, r, validate.Errors{"scope": validate.KeyInvalid})
		return
	}
	d, err := web.Scope(r).MeetingDashboard(r.Context(), time.Now(), userLocation(r), team)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", d)
}
