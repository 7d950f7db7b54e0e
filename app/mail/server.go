// Package mail delivers the outbox (the store's emails table) through SMTP with
// github.com/wneessen/go-mail: a Sender started by `crm serve` claims due messages one
// tenant at a time, sends each through the tenant's own SMTP server (or the server-wide
// SMTP_URL), and records the outcome — sent, retried later with exponential backoff (4xx,
// connection trouble), failed with the server's answer (5xx), or skipped as unsubscribed.
// LinkMailer puts users' links (invitations, password resets) in the outbox.
package mail

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"crm/app/secret"
	"crm/app/store"
	"crm/app/validate"
)

// Server is an SMTP server messages are delivered through, with the sender they go out as.
type Server struct {
	Host     string
	Port     int
	Security string // store.SecurityStartTLS, SecurityTLS or SecurityNone
	Username string // "": no authentication
	Password string
	From     string
	FromName string
}

// ParseURL reads the server-wide SMTP_URL: smtp://user:pass@host:port?security=starttls&from=crm@example.com&from_name=CRM
// (smtps:// means security=tls). The port defaults to 465 for tls, else 587; the security
// to tls on port 465, else starttls; from to no-reply@host.
func ParseURL(raw string) (*Server, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("SMTP_URL: not a URL")
	}
	s := &Server{Host: u.Hostname()}
	q := u.Query()
	switch u.Scheme {
	case "smtp":
		s.Security = q.Get("security")
	case "smtps":
		s.Security = store.SecurityTLS
	default:
		return nil, fmt.Errorf("SMTP_URL: scheme %q, want smtp or smtps", u.Scheme)
	}
	if !store.ValidMailHost(s.Host) {
		return nil, errors.New("SMTP_URL: no valid host")
	}
	if p := u.Port(); p != "" {
		if s.Port, err = strconv.Atoi(p); err != nil || s.Port <= 0 || s.Port > 65535 {
			return nil, fmt.Errorf("SMTP_URL: bad port %q", p)
		}
	}
	if s.Security == "" {
		s.Security = store.SecurityStartTLS
		if s.Port == 465 {
			s.Security = store.SecurityTLS
		}
	}
	switch s.Security {
	case store.SecurityStartTLS, store.SecurityNone:
		if s.Port == 0 {
			s.Port = 587
		}
	case store.SecurityTLS:
		if s.Port == 0 {
			s.Port = 465
		}
	default:
		return nil, fmt.Errorf("SMTP_URL: security %q, want starttls, tls or none", s.Security)
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	s.From, s.FromName = q.Get("from"), q.Get("from_name")
	if s.From == "" {
		s.From = "no-reply@" + s.Host
	}
	if !validate.Email(s.From) || !validate.Text(s.FromName, false) {
		return nil, errors.New("SMTP_URL: from must be one email address, from_name one line")
	}
	return s, nil
}

// errUnreadable is a tenant's password sealed under another key than the server's.
var errUnreadable = errors.New("the mail server's password cannot be read: CRM_SECRET_KEY changed, save the password again")

// ServerFor is the server a tenant's messages go through: its own, else fallback (nil:
// none; the messages then wait). A tenant's own server whose password cannot be opened is
// an error.
func ServerFor(ctx context.Context, sc store.Scope, sealer *secret.Sealer, fallback *Server) (*Server, error) {
	m, err := sc.MailSettings(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return fallback, nil
	}
	if err != nil {
		return nil, err
	}
	s := &Server{Host: m.Host, Port: m.Port, Security: m.Security, Username: m.Username, From: m.FromAddress, FromName: m.FromName}
	if m.Password != "" {
		if sealer == nil {
			return nil, errUnreadable
		}
		if s.Password, err = sealer.Open(m.Password); err != nil {
			return nil, errUnreadable
		}
	}
	return s, nil
}

// domain is the part of an address after its @.
func domain(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "localhost"
}
