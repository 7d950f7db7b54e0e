// Package emails serves mail delivery's pages and API: the tenant's SMTP settings
// (/settings/mail, view/update-mail-setting, send-test-email), the email history (/emails,
// list/view-email-history) and the public one-click unsubscribe (/unsubscribe/{token}).
// Delivery itself is app/mail's.
package emails

import (
	"context"
	"errors"
	"html"
	"net/http"

	"crm/app/i18n"

	"crm/app/mail"
	"crm/app/secret"
	"crm/app/store"
	"crm/app/web"
)

// Handler serves mail settings, the email history and unsubscribing.
type Handler struct {
	web      *web.Kit
	sealer   *secret.Sealer // nil: no CRM_SECRET_KEY, no password can be stored
	fallback *mail.Server   // the server-wide SMTP_URL (nil: none)
	wake     func()         // asks the sender for a sweep now
}

// New is the handler; key is the server's CRM_SECRET_KEY ("" for none), fallback the
// server-wide SMTP server, wake the sender's (nil: none).
func New(kit *web.Kit, key string, fallback *mail.Server, wake func()) *Handler {
	if wake == nil {
		wake = func() {}
	}
	return &Handler{web: kit, sealer: secret.NewSealer(key), fallback: fallback, wake: wake}
}

// Settings is the tenant's mail settings as pages and the API show them: never the password.
type Settings struct {
	Configured  bool   `json:"configured"`  // the tenant has a server of its own
	ServerWide  bool   `json:"server_wide"` // without one, the server-wide SMTP_URL is used
	CanSeal     bool   `json:"can_store_password"`
	Host        string `json:"host"`
	Port        int    `json:"port"`
	Security    string `json:"security"`
	Username    string `json:"username"`
	HasPassword bool   `json:"has_password"`
	FromAddress string `json:"from_address"`
	FromName    string `json:"from_name"`
}

// settings loads the tenant's settings.
func (h *Handler) settings(ctx context.Context, s store.Scope) (*Settings, error) {
	out := &Settings{ServerWide: h.fallback != nil, CanSeal: h.sealer != nil, Port: 587, Security: store.SecurityStartTLS}
	m, err := s.MailSettings(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return out, nil
	case err != nil:
		return nil, err
	}
	out.Configured, out.Host, out.Port, out.Security, out.Username = true, m.Host, m.Port, m.Security, m.Username
	out.HasPassword, out.FromAddress, out.FromName = m.Password != "", m.FromAddress, m.FromName
	return out, nil
}

// SettingsInput is what an update sets; a blank password keeps the stored one.
type SettingsInput struct {
	Host        string `json:"host"`
	Port        int    `json:"port"`
	Security    string `json:"security"`
	Username    string `json:"username"`
	Password    string `json:"password"`
	FromAddress string `json:"from_address"`
	FromName    string `json:"from_name"`
}

// errNoKey refuses a password without CRM_SECRET_KEY to seal it with.
var errNoKey = web.Refuse(http.StatusConflict, "mail.noKey")

// save seals the password and stores the settings.
func (h *Handler) save(ctx context.Context, s store.Scope, in SettingsInput) error {
	m := store.MailSettings{Host: in.Host, Port: in.Port, Security: in.Security, Username: in.Username,
		FromAddress: in.FromAddress, FromName: in.FromName}
	if in.Password != "" {
		if h.sealer == nil {
			return errNoKey
		}
		m.Password = h.sealer.Seal(in.Password)
	}
	return s.SaveMailSettings(ctx, m)
}

// sendTest queues a test message to the caller (or to), and wakes the sender.
func (h *Handler) sendTest(ctx context.Context, s store.Scope, to string) (int64, error) {
	if to == "" {
		to = web.CallerFrom(ctx).User.Email
	}
	subject := i18n.T(ctx, "mail.testMail.subject")
	body := i18n.T(ctx, "mail.testMail.body")
	id, err := s.EnqueueEmail(ctx, store.EmailInput{To: to, Subject: subject, Text: body + "\n",
		HTML: "<p>" + html.EscapeString(body) + "</p>\n", Purpose: "test"})
	if err == nil {
		h.wake()
	}
	return id, err
}
