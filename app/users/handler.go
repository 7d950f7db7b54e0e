// Package users serves team administration's users half: the user list, adding users
// (with a password or an invitation link), changing, deactivating and deleting them, the
// role dropdown, the public invitation page and the security log.
package users

import (
	"context"
	"log/slog"

	"crm/app/listpage"
	"crm/app/store"
	"crm/app/web"
	usersview "crm/views/users"
)

// Mailer is where a link for a user (an invitation, a password reset) is mailed, in the
// user's tenant (s). The administrator is shown invitation links to pass on all the same;
// app/mail's LinkMailer puts them in the outbox when the tenant has a mail server.
type Mailer interface {
	SendLink(ctx context.Context, s store.Scope, to, purpose, url string) error
}

// LogMailer is the default Mailer: it only logs that mail is not configured.
type LogMailer struct{}

// SendLink logs that the link was not mailed (never the link itself: it is a secret).
func (LogMailer) SendLink(ctx context.Context, _ store.Scope, to, purpose, _ string) error {
	slog.InfoContext(ctx, "mail not configured: link not sent", "purpose", purpose, "to", to)
	return nil
}

// Handler serves users.
type Handler struct {
	web    *web.Kit
	db     *store.DB
	mailer Mailer
	list   *listpage.List[*usersview.List]
	log    *listpage.List[*usersview.Log]
}

// New is the users handler; mailer receives the links it issues.
func New(kit *web.Kit, db *store.DB, mailer Mailer) *Handler {
	if mailer == nil {
		mailer = LogMailer{}
	}
	h := &Handler{web: kit, db: db, mailer: mailer}
	h.list, h.log = h.newList(), h.newLog()
	return h
}
