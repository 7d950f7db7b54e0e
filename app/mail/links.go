package mail

import (
	"context"
	"html"
	"log/slog"

	"crm/app/i18n"
	"crm/app/secret"
	"crm/app/store"
)

// LinkMailer mails users' links (invitations, password resets) through the outbox: the
// users handler's Mailer. Without a mail server for the tenant it only logs, as before
// (the administrator still sees the invitation link to pass on); a link queued for a
// server configured days later would arrive expired.
type LinkMailer struct {
	Sealer   *secret.Sealer
	Fallback *Server
	Wake     func() // asks the sender for a sweep now (nil: the next one)
	Log      *slog.Logger
}

// SendLink queues the link's message to the user, in the caller's language.
func (l LinkMailer) SendLink(ctx context.Context, s store.Scope, to, purpose, url string) error {
	log := l.Log
	if log == nil {
		log = slog.Default()
	}
	srv, err := ServerFor(ctx, s, l.Sealer, l.Fallback)
	if err != nil || srv == nil {
		log.InfoContext(ctx, "mail not configured: link not sent", "purpose", purpose, "to", to, "err", err)
		return nil
	}
	kind := "invite"
	if purpose == store.LinkReset {
		kind = "reset"
	}
	subject := i18n.T(ctx, "mail.link."+kind+".subject")
	intro, outro := i18n.T(ctx, "mail.link."+kind+".intro"), i18n.T(ctx, "mail.link.ignore")
	text := intro + "\n\n" + url + "\n\n" + outro + "\n"
	body := "<p>" + html.EscapeString(intro) + "</p>\n<p><a href=\"" + html.EscapeString(url) + "\">" +
		html.EscapeString(i18n.T(ctx, "mail.link."+kind+".action")) + "</a></p>\n<p>" + html.EscapeString(outro) + "</p>\n"
	if _, err := s.EnqueueEmail(ctx, store.EmailInput{To: to, Subject: subject, Text: text, HTML: body, Purpose: purpose}); err != nil {
		return err
	}
	if l.Wake != nil {
		l.Wake()
	}
	return nil
}
