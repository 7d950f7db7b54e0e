package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/i18n"
	"crm/app/validate"
)

// EmailTemplate is a tenant's email template (Settings → Email templates): a name, a
// default subject and body, and per-locale variants. The body is Markdown, which may hold
// plain HTML; both may use merge fields ({{customer_name}}, see MergeFields), replaced by
// the recipient record's values when a message is rendered (RenderTemplate).
type EmailTemplate struct {
	bun.BaseModel `bun:"table:email_templates,alias:et"`
	Owned

	ID        int64                  `bun:"id,pk,autoincrement" json:"id"`
	Name      string                 `bun:"name,notnull" json:"name"`
	Subject   string                 `bun:"subject,notnull" json:"subject"`
	Body      string                 `bun:"body,notnull" json:"body"`
	CreatedBy *int64                 `bun:"created_by" json:"created_by"`
	CreatedAt time.Time              `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt time.Time              `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
	Variants  []EmailTemplateVariant `bun:"-" json:"variants"`
}

// EmailTemplateVariant is a template's subject and body in one language (an admin locale).
type EmailTemplateVariant struct {
	bun.BaseModel `bun:"table:email_template_variants,alias:etv"`
	Owned

	TemplateID int64  `bun:"template_id,pk" json:"-"`
	Locale     string `bun:"locale,pk" json:"locale"`
	Subject    string `bun:"subject,notnull" json:"subject"`
	Body       string `bun:"body,notnull" json:"body"`
}

// EmailTemplateInput is what a create or an update of a template sets. Variants replace
// the template's: a locale left out has none (its recipients get the default).
type EmailTemplateInput struct {
	Name     string                      `json:"name"`
	Subject  string                      `json:"subject"`
	Body     string                      `json:"body"`
	Variants []EmailTemplateVariantInput `json:"variants"`
}

// EmailTemplateVariantInput is one language's subject and body.
type EmailTemplateVariantInput struct {
	Locale  string `json:"locale"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// The limits of a template's texts.
const (
	templateSubjectMax = 200
	templateBodyMax    = 20000
)

// KeyUnknownMergeField is the field error of a {{…}} that is not one of MergeFields (or
// an unclosed "{{"): refused, never rendered blank.
const KeyUnknownMergeField = "unknownMergeField"

// VariantField is the form and error field name of a variant's subject or body
// ("subject_fr_FR").
func VariantField(field, locale string) string { return field + "_" + locale }

func (in *EmailTemplateInput) validate() validate.Errors {
	in.Name, in.Subject = strings.TrimSpace(in.Name), strings.TrimSpace(in.Subject)
	in.Body = strings.TrimSpace(in.Body)
	errs := validate.Errors{}
	errs.Check(validate.Required(in.Name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(in.Name), "name", validate.KeyHTMLNotAllowed)
	errs.Check(validate.Text(in.Name, false), "name", validate.KeyInvalidCharacters)
	errs.Check(validate.MaxLen(in.Name, 100), "name", validate.KeyMaxLength)
	checkTexts(errs, "subject", "body", in.Subject, in.Body)
	seen := map[string]bool{}
	kept := in.Variants[:0]
	for _, v := range in.Variants {
		v.Subject, v.Body = strings.TrimSpace(v.Subject), strings.TrimSpace(v.Body)
		if !slices.Contains(i18n.Locales, v.Locale) || seen[v.Locale] {
			errs.Add("variants", validate.KeyInvalid)
			continue
		}
		seen[v.Locale] = true
		if v.Subject == "" && v.Body == "" {
			continue // an empty variant is no variant
		}
		checkTexts(errs, VariantField("subject", v.Locale), VariantField("body", v.Locale), v.Subject, v.Body)
		kept = append(kept, v)
	}
	in.Variants = kept
	return errs
}

// checkTexts checks a subject (one line: CR and LF are refused, which keeps header
// injection out) and a body, and their merge fields.
func checkTexts(errs validate.Errors, subjectField, bodyField, subject, body string) {
	errs.Check(validate.Required(subject), subjectField, validate.KeyRequired)
	errs.Check(validate.Text(subject, false), subjectField, validate.KeyInvalidCharacters)
	errs.Check(validate.MaxLen(subject, templateSubjectMax), subjectField, validate.KeyMaxLength)
	errs.Check(validMergeFields(subject), subjectField, KeyUnknownMergeField)
	errs.Check(validate.Required(body), bodyField, validate.KeyRequired)
	errs.Check(validate.Text(body, true), bodyField, validate.KeyInvalidCharacters)
	errs.Check(validate.MaxLen(body, templateBodyMax), bodyField, validate.KeyMaxLength)
	errs.Check(validMergeFields(body), bodyField, KeyUnknownMergeField)
}

// EmailTemplates lists the tenant's templates by name.
func (s Scope) EmailTemplates(ctx context.Context) ([]EmailTemplate, error) {
	out := []EmailTemplate{}
	err := s.Select(&out).OrderExpr("lower(et.name), et.id").Scan(ctx)
	return out, err
}

// EmailTemplate loads one template of the tenant with its variants (in the admin
// locales' order).
func (s Scope) EmailTemplate(ctx context.Context, id int64) (*EmailTemplate, error) {
	t := &EmailTemplate{}
	if err := s.Select(t).Where("et.id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	vs := []EmailTemplateVariant{}
	if err := s.Select(&vs).Where("etv.template_id = ?", id).Scan(ctx); err != nil {
		return nil, err
	}
	slices.SortFunc(vs, func(a, b EmailTemplateVariant) int {
		return slices.Index(i18n.Locales, a.Locale) - slices.Index(i18n.Locales, b.Locale)
	})
	t.Variants = vs
	return t, nil
}

// Variant is the template's variant in the locale, if it has one.
func (t *EmailTemplate) Variant(locale string) (EmailTemplateVariant, bool) {
	for _, v := range t.Variants {
		if v.Locale == locale {
			return v, true
		}
	}
	return EmailTemplateVariant{}, false
}

// CreateEmailTemplate adds a template; its name is unique in the tenant.
func (s Scope) CreateEmailTemplate(ctx context.Context, in EmailTemplateInput) (*EmailTemplate, error) {
	if errs := in.validate(); len(errs) > 0 {
		return nil, errs
	}
	t := &EmailTemplate{Name: in.Name, Subject: in.Subject, Body: in.Body, CreatedBy: optionalID(s.UserID)}
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.templateNameFree(ctx, in.Name, 0); err != nil {
			return err
		}
		if _, err := tx.Insert(t).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		if err := tx.saveVariants(ctx, t.ID, in.Variants); err != nil {
			return err
		}
		return tx.Record(ctx, "email_template", t.ID, "create", nil, in)
	})
	if err != nil {
		return nil, err
	}
	return s.EmailTemplate(ctx, t.ID)
}

// UpdateEmailTemplate replaces a template's name, texts and variants.
func (s Scope) UpdateEmailTemplate(ctx context.Context, id int64, in EmailTemplateInput) (*EmailTemplate, error) {
	if errs := in.validate(); len(errs) > 0 {
		return nil, errs
	}
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.EmailTemplate(ctx, id)
		if err != nil {
			return err
		}
		if err := tx.templateNameFree(ctx, in.Name, id); err != nil {
			return err
		}
		if _, err := tx.Update((*EmailTemplate)(nil)).Set("name = ?", in.Name).Set("subject = ?", in.Subject).
			Set("body = ?", in.Body).Set("updated_at = ?", time.Now().UTC()).Where("et.id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.Delete((*EmailTemplateVariant)(nil)).Where("etv.template_id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if err := tx.saveVariants(ctx, id, in.Variants); err != nil {
			return err
		}
		return tx.Record(ctx, "email_template", id, "update", old, in)
	})
	if err != nil {
		return nil, err
	}
	return s.EmailTemplate(ctx, id)
}

// DeleteEmailTemplate removes a template and its variants (sends already made keep its name).
func (s Scope) DeleteEmailTemplate(ctx context.Context, id int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.EmailTemplate(ctx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Delete((*EmailTemplateVariant)(nil)).Where("etv.template_id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.Delete((*EmailTemplate)(nil)).Where("et.id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "email_template", id, "delete", old, nil)
	})
}

func (s Scope) templateNameFree(ctx context.Context, name string, except int64) error {
	taken, err := s.Select((*EmailTemplate)(nil)).Where("lower(et.name) = lower(?) AND et.id <> ?", name, except).Exists(ctx)
	if err != nil {
		return err
	}
	if taken {
		return validate.Errors{"name": validate.KeyTaken}
	}
	return nil
}

func (s Scope) saveVariants(ctx context.Context, id int64, vs []EmailTemplateVariantInput) error {
	if len(vs) == 0 {
		return nil
	}
	rows := make([]EmailTemplateVariant, 0, len(vs))
	for _, v := range vs {
		rows = append(rows, EmailTemplateVariant{TemplateID: id, Locale: v.Locale, Subject: v.Subject, Body: v.Body})
	}
	_, err := s.Insert(&rows).Exec(ctx)
	return err
}
