package leads

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// leadJSON is a lead as the API shows it: both spellings of the creation time (the spec's
// clients read either) and the URL of its logo.
type leadJSON struct {
	*store.LeadView
	CreatedAtCamel time.Time `json:"createdAt"`
	LogoURL        string    `json:"logo_url"`
}

func toLeadJSON(v *store.LeadView) leadJSON {
	j := leadJSON{LeadView: v, CreatedAtCamel: v.CreatedAt}
	if v.HasLogo {
		j.LogoURL = "/v1/api/lead/logo/" + strconv.FormatInt(v.ID, 10)
	}
	return j
}

// leadPayload is the spec's lead payload, plus client_id, lead_type_id, owner_id, notes
// and an optional logo as a data URL.
type leadPayload struct {
	store.Contact
	LeadTypeID   *int64          `json:"lead_type_id"`
	LeadSourceID *int64          `json:"lead_source_id"`
	LeadStatusID *int64          `json:"lead_status_id"`
	LeadStageID  *int64          `json:"lead_stage_id"`
	TenantID     json.RawMessage `json:"tenant_id"` // ignored: the tenant is the caller's
	ClientID     string          `json:"client_id"`
	CreatedAt    *time.Time      `json:"createdAt"`
	CompanyLogo  string          `json:"company_logo"`
}

// Logo limits, from the spec's upload limits.
const (
	maxLogoBytes  = 2048 * 1024
	maxLeadCreate = maxLogoBytes*4/3 + 64<<10 // a base64 logo plus the rest of the payload
)

// logoTypes are the image formats a logo may be, recognised by their bytes.
var logoTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// parseLogo decodes a data URL and checks the bytes really are an allowed image.
func parseLogo(dataURL string) (*store.Logo, error) {
	meta, b64, ok := strings.Cut(strings.TrimPrefix(dataURL, "data:"), ",")
	if !ok || !strings.HasPrefix(dataURL, "data:") || !strings.HasSuffix(meta, ";base64") {
		return nil, validate.Errors{"company_logo": "invalidImage"}
	}
	if base64.StdEncoding.DecodedLen(len(b64)) > maxLogoBytes+3 {
		return nil, validate.Errors{"company_logo": "fileTooLarge"}
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, validate.Errors{"company_logo": "invalidImage"}
	}
	if len(data) > maxLogoBytes {
		return nil, validate.Errors{"company_logo": "fileTooLarge"}
	}
	mt := http.DetectContentType(data)
	if !logoTypes[mt] {
		return nil, validate.Errors{"company_logo": "invalidImage"}
	}
	return &store.Logo{MediaType: mt, Data: data}, nil
}

func (h *Handler) LeadCreate(w http.ResponseWriter, r *http.Request) {
	var p leadPayload
	body, err := web.ReadJSON(w, r, &p, maxLeadCreate)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	in := p.input()
	// An offline-capable client names its lead with a client id and follows the mobile form's rules.
	in.ClientID, in.Mobile = p.ClientID, p.ClientID != ""
	if p.CompanyLogo != "" {
		if in.Logo, err = parseLogo(p.CompanyLogo); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(key) > 200 {
		h.web.Fail(w, r, validate.Errors{"idempotency_key": validate.KeyMaxLength})
		return
	}
	sum := sha256.Sum256(body)
	lead, created, err := web.Scope(r).CreateLead(r.Context(), in, key, hex.EncodeToString(sum[:]))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if created {
		h.web.OK(w, r, http.StatusCreated, "leads.created", toLeadJSON(lead))
		return
	}
	h.web.OK(w, r, http.StatusOK, "leads.alreadySaved", toLeadJSON(lead))
}

func (h *Handler) LeadView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		lead, err := s.LeadView(ctx, id)
		if err != nil {
			return nil, err
		}
		return toLeadJSON(lead), nil
	})
}

func (h *Handler) LeadDelete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "leads.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		if err := s.DeleteLead(ctx, id); err != nil {
			return nil, err
		}
		h.documents.RemoveFiles(r, store.EntityLead, id)
		return nil, nil
	})
}

func (h *Handler) LeadLogo(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	logo, err := web.Scope(r).LeadLogo(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", logo.MediaType)
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("Content-Length", strconv.Itoa(len(logo.Data)))
	_, _ = w.Write(logo.Data)
}
