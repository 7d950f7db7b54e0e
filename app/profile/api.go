package profile

import (
	"context"
	"net/http"

	"crm/app/store"
	"crm/app/web"
)

// The profile's API: the caller's own details, password, named API tokens and sessions
// (get-user, in app/users, reads the details).

// UpdateProfile is PUT /v1/api/update-profile: name, phone, language and time zone.
func (h *Handler) UpdateProfile(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusOK, "profile.saved", func(ctx context.Context, s store.Scope, p store.ProfileInput) (any, error) {
		return s.UpdateProfile(ctx, p)
	})
}

type passwordPayload struct {
	CurrentPassword string `json:"current_password"`
	Password        string `json:"password"`
}

// signedOut is how many sessions a change ended.
type signedOut struct {
	SignedOut int `json:"signed_out"`
}

// ChangePassword is PUT /v1/api/change-password: the current password and a new one; the
// caller's other sessions and API sign-ins end (the token of this call stays).
func (h *Handler) ChangePassword(w http.ResponseWriter, r *http.Request) {
	keep := h.web.Keep(r)
	web.ServeJSON(h.web, w, r, http.StatusOK, "profile.passwordSaved", func(ctx context.Context, s store.Scope, p passwordPayload) (any, error) {
		n, err := s.ChangePassword(ctx, p.CurrentPassword, p.Password, keep)
		return signedOut{SignedOut: n}, err
	})
}

// TokenList is GET /v1/api/list-api-token: the caller's named tokens.
func (h *Handler) TokenList(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).APITokens(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.APIToken]{Result: rows, Total: int64(len(rows)), Page: 1, Limit: len(rows)})
}

// TokenCreateAPI is POST /v1/api/create-api-token: a named token; its secret is in this
// answer only.
func (h *Handler) TokenCreateAPI(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "profile.tokenCreated", func(ctx context.Context, s store.Scope, p store.NewAPIToken) (any, error) {
		return s.CreateAPIToken(ctx, p)
	})
}

// TokenDelete is DELETE /v1/api/delete-api-token/{id}: revokes one of the caller's named
// tokens (anyone else's is not found).
func (h *Handler) TokenDelete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "profile.tokenRevoked", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return nil, s.RevokeAPIToken(ctx, id)
	})
}

// SessionList is GET /v1/api/list-session: the caller's live browser sessions and API
// sign-ins, the current one marked.
func (h *Handler) SessionList(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).Sessions(r.Context(), h.web.Keep(r))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.Session]{Result: rows, Total: int64(len(rows)), Page: 1, Limit: len(rows)})
}

// SignOutEverywhereAPI is POST /v1/api/sign-out-everywhere: every session of the caller
// but the current one ends.
func (h *Handler) SignOutEverywhereAPI(w http.ResponseWriter, r *http.Request) {
	n, err := web.Scope(r).SignOutEverywhere(r.Context(), h.web.Keep(r))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "profile.sessionsEnded", signedOut{SignedOut: n})
}
