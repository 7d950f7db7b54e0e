package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// The connection security of an SMTP server.
const (
	SecurityStartTLS = "starttls" // plain connection upgraded with STARTTLS (port 587), required
	SecurityTLS      = "tls"      // TLS from the first byte (port 465)
	SecurityNone     = "none"     // no encryption (a relay on the local network, tests)
)

// MailSecurities lists the choices of the settings page.
var MailSecurities = []string{SecurityStartTLS, SecurityTLS, SecurityNone}

// MailSettings is a tenant's own SMTP server. Password is sealed (app/secret); the store
// never sees it in clear.
type MailSettings struct {
	bun.BaseModel `bun:"table:mail_settings,alias:ms"`
	Owned

	Host        string    `bun:"host,notnull"`
	Port        int       `bun:"port,notnull"`
	Security    string    `bun:"security,notnull"`
	Username    string    `bun:"username,notnull"`
	Password    string    `bun:"password,notnull"`
	FromAddress string    `bun:"from_address,notnull"`
	FromName    string    `bun:"from_name,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// MailSettings loads the tenant's SMTP server (ErrNotFound when it has none).
func (s Scope) MailSettings(ctx context.Context) (*MailSettings, error) {
	m := &MailSettings{}
	err := s.Select(m).Scan(ctx)
	return m, notFound(err)
}

// ValidMailHost: a host name or address, without spaces, control characters or a scheme.
func ValidMailHost(h string) bool {
	return h != "" && validate.Text(h, false) && !strings.ContainsAny(h, " /@?#") && len(h) <= 253
}

// SaveMailSettings sets the tenant's SMTP server. An empty sealed password keeps the one
// stored; an empty user name drops it (no authentication).
func (s Scope) SaveMailSettings(ctx context.Context, m MailSettings) error {
	m.Host, m.Username = strings.TrimSpace(m.Host), strings.TrimSpace(m.Username)
	m.FromAddress, m.FromName = strings.TrimSpace(m.FromAddress), strings.TrimSpace(m.FromName)
	errs := validate.Errors{}
	errs.Check(validate.Required(m.Host), "host", validate.KeyRequired)
	errs.Check(m.Host == "" || ValidMailHost(m.Host), "host", validate.KeyInvalid)
	errs.Check(m.Port > 0 && m.Port < 65536, "port", validate.KeyInvalid)
	errs.Check(m.Security == SecurityStartTLS || m.Security == SecurityTLS || m.Security == SecurityNone, "security", validate.KeyInvalid)
	errs.Check(validate.Text(m.Username, false), "username", validate.KeyInvalidCharacters)
	errs.Check(validate.MaxLen(m.Username, maxTextLen), "username", validate.KeyMaxLength)
	errs.Check(validate.Required(m.FromAddress), "from_address", validate.KeyRequired)
	errs.Check(m.FromAddress == "" || validate.Email(m.FromAddress), "from_address", validate.KeyInvalidEmail)
	errs.Check(validate.Text(m.FromName, false), "from_name", validate.KeyInvalidCharacters)
	errs.Check(validate.MaxLen(m.FromName, maxTextLen), "from_name", validate.KeyMaxLength)
	if len(errs) > 0 {
		return errs
	}
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.MailSettings(ctx)
		if err != nil && err != ErrNotFound {
			return err
		}
		switch {
		case m.Username == "":
			m.Password = ""
		case m.Password == "" && err == nil:
			m.Password = old.Password
		}
		m.UpdatedAt = time.Now().UTC()
		if _, err := tx.Insert(&m).On("CONFLICT (tenant_id) DO UPDATE").
			Set("host = EXCLUDED.host, port = EXCLUDED.port, security = EXCLUDED.security, username = EXCLUDED.username").
			Set("password = EXCLUDED.password, from_address = EXCLUDED.from_address, from_name = EXCLUDED.from_name, updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "mail_settings", s.TenantID, "update", nil, map[string]any{"host": m.Host, "port": m.Port,
			"security": m.Security, "username": m.Username, "from_address": m.FromAddress, "from_name": m.FromName})
	})
}
