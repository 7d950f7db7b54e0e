package store

import (
	"context"
	"errors"
)

// errKitTemplatesPending: email templates (the template master and its rendering) are not
// in this build yet, so an email plan can neither name a template nor be rendered.
var errKitTemplatesPending = errors.New("email templates are not available yet")

// kitTemplateExists reports whether the tenant has the email template.
// TODO(kit): use the template master once the templates branch is merged.
func (s Scope) kitTemplateExists(ctx context.Context, id int64) (bool, error) {
	return false, nil
}

// kitRender renders an email template against a lead or a client.
// TODO(kit): Scope.RenderTemplate once the templates branch is merged.
func (s Scope) kitRender(ctx context.Context, templateID int64, e *Entity, id int64) (subject, text, html string, err error) {
	return "", "", "", errKitTemplatesPending
}
