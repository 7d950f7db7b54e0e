package users

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// userPayload is a user as the API takes it. On creation, either password is given or
// invite is true (the answer then carries the invitation link).
type userPayload struct {
	Email    string   `json:"email"`
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Phone    string   `json:"phone"`
	Password string   `json:"password"`
	Invite   bool     `json:"invite"`
	RoleID   int64    `json:"role_id"`
	Locale   string   `json:"locale"`
	TimeZone string   `json:"time_zone"`
	TeamIDs  *[]int64 `json:"team_ids"` // nil: none on creation, unchanged on update
}

// created is a new user and, for an invitation, the link to pass on.
type created struct {
	User       *store.UserRow `json:"user"`
	InviteLink string         `json:"invite_link,omitempty"`
}

func (h *Handler) Create(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "users.created", func(ctx context.Context, s store.Scope, p userPayload) (any, error) {
		n := store.NewUser{Email: p.Email, Name: p.Name, Title: p.Title, Phone: p.Phone, Password: p.Password,
			Locale: p.Locale, TimeZone: p.TimeZone, Invite: p.Invite}
		if p.TeamIDs != nil {
			n.TeamIDs = *p.TeamIDs
		}
		return h.create(ctx, r, s, p.RoleID, n)
	})
}

// create adds the user with the role roleID (the API's and the page's), and for an
// invitation issues the link and hands it to the mailer.
func (h *Handler) create(ctx context.Context, r *http.Request, s store.Scope, roleID int64, n store.NewUser) (*created, error) {
	roleName, err := roleName(ctx, s, roleID)
	var ve validate.Errors
	if errors.As(err, &ve) {
		// The other fields' errors too, so a form shows them all at once.
		maps.Copy(ve, store.CheckNewUser(n))
		return nil, ve
	} else if err != nil {
		return nil, err
	}
	n.Role = roleName
	u, err := s.CreateUser(ctx, n)
	if err != nil {
		return nil, err
	}
	out := &created{}
	if n.Invite {
		token, err := s.CreateUserLink(ctx, u.ID, store.LinkInvite)
		if err != nil {
			return nil, err
		}
		out.InviteLink = h.web.LinkBase(r) + "/invite/" + token
		if err := h.mailer.SendLink(ctx, s, u.Email, store.LinkInvite, out.InviteLink); err != nil {
			return nil, err
		}
	}
	out.User, err = s.UserView(ctx, u.ID)
	return out, err
}

// roleName is the name of the tenant's role id (required).
func roleName(ctx context.Context, s store.Scope, id int64) (string, error) {
	roles, err := s.Roles(ctx)
	if err != nil {
		return "", err
	}
	for _, r := range roles {
		if r.ID == id {
			return r.Name, nil
		}
	}
	return "", validate.Errors{"role_id": validate.KeyInvalid}
}

func (h *Handler) Update(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "users.updated", func(ctx context.Context, s store.Scope, id int64, p userPayload) (any, error) {
		return s.UpdateUser(ctx, id, store.UserInput{Name: p.Name, Title: p.Title, Phone: p.Phone, RoleID: p.RoleID, Locale: p.Locale,
			TimeZone: p.TimeZone, Teams: p.TeamIDs})
	})
}

type statusPayload struct {
	Status string `json:"status"` // "active" or "inactive"
}

func (h *Handler) Status(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "users.updated", func(ctx context.Context, s store.Scope, id int64, p statusPayload) (any, error) {
		if p.Status != "active" && p.Status != "inactive" {
			return nil, validate.Errors{"status": validate.KeyInvalid}
		}
		return s.SetUserActive(ctx, id, p.Status == "active")
	})
}

func (h *Handler) View(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.UserView(ctx, id)
	})
}

// Me is the caller's own profile.
func (h *Handler) Me(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	u, err := p.Scope().UserView(r.Context(), p.User.ID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", u)
}

// Delete removes a user; one who owns leads or clients needs new_owner_id in the query.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "users.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return nil, s.DeleteUser(ctx, id, web.IntParam(r, "new_owner_id"))
	})
}

func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.UserFilter{Search: q.Get("search"), RoleID: web.IntParam(r, "role_id"), Status: q.Get("status"),
		Sort: q.Get("sort"), Desc: strings.EqualFold(q.Get("order"), "desc"), Page: web.IntParam(r, "page"), Limit: web.IntParam(r, "limit")}
	rows, total, err := web.Scope(r).ListUsers(r.Context(), f)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	page, limit := max(f.Page, 1), f.Limit
	if limit <= 0 || limit > 100 {
		limit = 25
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.UserRow]{Result: rows, Total: total, Page: int(page), Limit: int(limit)})
}

type emailPayload struct {
	Email string `json:"email"`
}

// Check answers whether an email is free to sign in with (in any tenant).
func (h *Handler) Check(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.URL.Query().Get("email"))
	if !validate.Email(email) {
		h.web.Fail(w, r, validate.Errors{"email": validate.KeyInvalidEmail})
		return
	}
	free, err := h.db.EmailFree(r.Context(), email)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", map[string]bool{"available": free})
}

type roleOption struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Roles is the role dropdown.
func (h *Handler) Roles(w http.ResponseWriter, r *http.Request) {
	roles, err := web.Scope(r).Roles(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := make([]roleOption, len(roles))
	for i, role := range roles {
		out[i] = roleOption{ID: role.ID, Name: role.Name}
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// SecurityLog is one page of the tenant's security log.
func (h *Handler) SecurityLog(w http.ResponseWriter, r *http.Request) {
	page, limit := max(web.IntParam(r, "page"), 1), web.IntParam(r, "limit")
	if limit <= 0 || limit > 100 {
		limit = 50
	}
	rows, total, err := web.Scope(r).SecurityLog(r.Context(), page, limit)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.SecurityEntry]{Result: rows, Total: total, Page: int(page), Limit: int(limit)})
}
