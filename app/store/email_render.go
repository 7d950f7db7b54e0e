package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/uptrace/bun"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"crm/app/validate"
)

// MergeFields are the merge fields a template may use, as {{name}}: the recipient
// record's own fields, its owner's, its masters' names and the tenant's name. Nothing else
// is reachable from a template: substitution is plain text replacement, never a template
// language. A field a record does not have (a client's stage) renders empty.
var MergeFields = []string{
	"customer_title", "customer_name", "company_name", "company_email", "company_phone",
	"owner_name", "owner_email", "company_profile_name", "tenant_name",
	"stage_name", "status_name", "source_name", "type_name", "business_type_name",
}

// mergeTag matches one {{field}} (spaces inside the braces allowed).
var mergeTag = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// validMergeFields: every {{…}} names a merge field, and no "{{" is left unclosed.
func validMergeFields(s string) bool {
	ok := true
	rest := mergeTag.ReplaceAllStringFunc(s, func(m string) string {
		if !slices.Contains(MergeFields, mergeTag.FindStringSubmatch(m)[1]) {
			ok = false
		}
		return ""
	})
	return ok && !strings.Contains(rest, "{{")
}

// MergeTarget is the record a message is rendered for: a lead or a client of the
// scope's tenant, by id.
type MergeTarget struct {
	Entity string `json:"entity"` // EntityLead or EntityClient
	ID     int64  `json:"id"`
}

// LeadTarget and ClientTarget name a record to render for.
func LeadTarget(id int64) MergeTarget   { return MergeTarget{Entity: EntityLead, ID: id} }
func ClientTarget(id int64) MergeTarget { return MergeTarget{Entity: EntityClient, ID: id} }

// RenderedEmail is a template rendered for one record: ready for EnqueueEmail (Input).
// To is the record's company email ("" when it has none: nothing can be sent).
type RenderedEmail struct {
	To       string `json:"to"`
	ToName   string `json:"to_name"`
	Subject  string `json:"subject"`
	Text     string `json:"text"`
	HTML     string `json:"html"`
	Locale   string `json:"locale"` // the variant used ("" for the template's default)
	LeadID   int64  `json:"lead_id,omitempty"`
	ClientID int64  `json:"client_id,omitempty"`
}

// Input is the message to enqueue: kind EmailBulk for campaigns and keep-in-touch mail
// (List-Unsubscribe, unsubscribed addresses skipped), purpose what caused it.
func (r RenderedEmail) Input(kind, purpose string) EmailInput {
	return EmailInput{To: r.To, ToName: r.ToName, Subject: r.Subject, Text: r.Text, HTML: r.HTML,
		Kind: kind, Purpose: purpose, LeadID: r.LeadID, ClientID: r.ClientID}
}

// RenderTemplate renders the tenant's template templateID for one record of the tenant
// (rec: a lead or a client by id, read through the scope: another tenant's record, or one
// the scope's record rules do not reach, is ErrNotFound, as is another tenant's template).
//
// The language is the record owner's locale (the tenant's default locale when the record
// has no owner); the template's variant in that language is used, else its default subject
// and body. Merge fields are replaced by the record's values: as they are in the subject
// and the text part, HTML-escaped in the HTML part. The body is Markdown (raw HTML allowed)
// rendered with goldmark, then sanitised with bluemonday's UGC policy (no script, no event
// handler, no javascript: link) after substitution. A rendered subject holding CR, LF or
// another control character is refused (validate.Errors{"subject": invalidCharacters}).
//
// Typical use, in the transaction of whatever causes the message:
//
//	m, err := tx.RenderTemplate(ctx, templateID, store.LeadTarget(leadID))
//	if err == nil && m.To != "" {
//		_, err = tx.EnqueueEmail(ctx, m.Input(store.EmailBulk, "keep-in-touch"))
//	}
//
// To render one template for many records, EmailRenderer compiles it once.
func (s Scope) RenderTemplate(ctx context.Context, templateID int64, rec MergeTarget) (RenderedEmail, error) {
	r, err := s.EmailRenderer(ctx, templateID)
	if err != nil {
		return RenderedEmail{}, err
	}
	return r.Render(ctx, rec)
}

// EmailRenderer renders one template for many records: the template is read and compiled
// once, the records read in batches (RenderMany).
type EmailRenderer struct {
	s        Scope
	Template *EmailTemplate
	tenant   Tenant
	compiled map[string]*compiledTemplate // by locale; "" the default
}

// EmailRenderer reads and compiles the tenant's template.
func (s Scope) EmailRenderer(ctx context.Context, templateID int64) (*EmailRenderer, error) {
	t, err := s.EmailTemplate(ctx, templateID)
	if err != nil {
		return nil, err
	}
	return s.rendererFor(ctx, t)
}

// PreviewTemplate renders a template's unsaved texts (as a form holds them) for one
// record: the same validation as a save, then the same rendering as RenderTemplate.
func (s Scope) PreviewTemplate(ctx context.Context, in EmailTemplateInput, rec MergeTarget) (RenderedEmail, error) {
	if in.Name == "" {
		in.Name = "preview"
	}
	if errs := in.validate(); len(errs) > 0 {
		return RenderedEmail{}, errs
	}
	t := &EmailTemplate{Name: in.Name, Subject: in.Subject, Body: in.Body}
	for _, v := range in.Variants {
		t.Variants = append(t.Variants, EmailTemplateVariant{Locale: v.Locale, Subject: v.Subject, Body: v.Body})
	}
	r, err := s.rendererFor(ctx, t)
	if err != nil {
		return RenderedEmail{}, err
	}
	return r.Render(ctx, rec)
}

func (s Scope) rendererFor(ctx context.Context, t *EmailTemplate) (*EmailRenderer, error) {
	r := &EmailRenderer{s: s, Template: t, compiled: map[string]*compiledTemplate{}}
	if err := s.idb.NewSelect().Model(&r.tenant).Where("id = ?", s.TenantID).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	var err error
	if r.compiled[""], err = compileTemplate(t.Subject, t.Body); err != nil {
		return nil, err
	}
	for _, v := range t.Variants {
		if r.compiled[v.Locale], err = compileTemplate(v.Subject, v.Body); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Render renders the template for one record.
func (r *EmailRenderer) Render(ctx context.Context, rec MergeTarget) (RenderedEmail, error) {
	out, err := r.RenderMany(ctx, rec.Entity, []int64{rec.ID})
	if err != nil {
		return RenderedEmail{}, err
	}
	return out[0].Email, out[0].Err
}

// Rendered is one record's message, or why it could not be rendered (ErrNotFound: no such
// record in reach; validate.Errors: a refused subject).
type Rendered struct {
	ID    int64
	Email RenderedEmail
	Err   error
}

// RenderMany renders the template for records of one kind ("lead", "client"), read in one
// query: one result per id, in order.
func (r *EmailRenderer) RenderMany(ctx context.Context, entity string, ids []int64) ([]Rendered, error) {
	e := EntityNamed(entity)
	if e == nil {
		return nil, validate.Errors{"entity": validate.KeyInvalid}
	}
	rows, err := r.s.mergeRows(ctx, e, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*mergeRow, len(rows))
	for i := range rows {
		byID[rows[i].ID] = &rows[i]
	}
	out := make([]Rendered, len(ids))
	for i, id := range ids {
		out[i].ID = id
		row := byID[id]
		if row == nil {
			out[i].Err = ErrNotFound
			continue
		}
		out[i].Email, out[i].Err = r.renderRow(e, row)
	}
	return out, nil
}

func (r *EmailRenderer) renderRow(e *Entity, row *mergeRow) (RenderedEmail, error) {
	locale := row.OwnerLocale
	if row.OwnerID == nil || locale == "" {
		locale = r.tenant.DefaultLocale
	}
	c, used := r.compiled[locale], locale
	if c == nil {
		c, used = r.compiled[""], ""
	}
	phone := strings.TrimSpace(row.CompanyDialCode + " " + row.CompanyPhoneNumber)
	if row.CompanyPhoneNumber == "" {
		phone = ""
	}
	values := map[string]string{
		"customer_title": row.CustomerTitle, "customer_name": row.CustomerName,
		"company_name": row.CompanyName, "company_email": row.CompanyEmail, "company_phone": phone,
		"owner_name": row.OwnerName, "owner_email": row.OwnerEmail,
		"company_profile_name": r.tenant.Name, "tenant_name": r.tenant.Name,
		"stage_name": row.StageName, "status_name": row.StatusName, "source_name": row.SourceName,
		"type_name": row.TypeName, "business_type_name": row.BusinessTypeName,
	}
	m, err := c.render(values)
	if err != nil {
		return RenderedEmail{}, err
	}
	m.To, m.ToName, m.Locale = strings.TrimSpace(row.CompanyEmail), row.CustomerName, used
	if !validate.Text(m.ToName, false) {
		m.ToName = ""
	}
	if e == LeadEntity {
		m.LeadID = row.ID
	} else {
		m.ClientID = row.ID
	}
	return m, nil
}

// mergeRow is what a message may say of a record.
type mergeRow struct {
	ID                 int64  `bun:"id"`
	CustomerTitle      string `bun:"customer_title"`
	CustomerName       string `bun:"customer_name"`
	CompanyName        string `bun:"company_name"`
	CompanyEmail       string `bun:"company_email"`
	CompanyDialCode    string `bun:"company_dial_code"`
	CompanyPhoneNumber string `bun:"company_phone_number"`
	OwnerID            *int64 `bun:"owner_id"`
	OwnerName          string `bun:"owner_name"`
	OwnerEmail         string `bun:"owner_email"`
	OwnerLocale        string `bun:"owner_locale"`
	StageName          string `bun:"stage_name"`
	StatusName         string `bun:"status_name"`
	SourceName         string `bun:"source_name"`
	TypeName           string `bun:"type_name"`
	BusinessTypeName   string `bun:"business_type_name"`
}

// mergeRows reads the records' merge values, through the scope's reach (its tenant and its
// record rules).
func (s Scope) mergeRows(ctx context.Context, e *Entity, ids []int64) ([]mergeRow, error) {
	rows := []mergeRow{}
	if len(ids) == 0 {
		return rows, nil
	}
	a := e.Alias
	master := func(col string) string {
		return "COALESCE((SELECT m.name FROM lead_masters AS m WHERE m.tenant_id = " + a + ".tenant_id AND m.id = " + a + "." + col + "), '')"
	}
	q := s.reach(e, e.model).
		ColumnExpr(a+".id, "+a+".customer_title, "+a+".customer_name, "+a+".company_name, "+a+".company_email").
		ColumnExpr(a+".company_dial_code, "+a+".company_phone_number, "+a+".owner_id").
		ColumnExpr("COALESCE(ou.name, '') AS owner_name, COALESCE(ou.email, '') AS owner_email, COALESCE(ou.locale, '') AS owner_locale").
		ColumnExpr(master("company_type_id")+" AS business_type_name").
		Join("LEFT JOIN users AS ou ON ou.tenant_id = "+a+".tenant_id AND ou.id = "+a+".owner_id").
		Where(a+".id IN (?)", bun.In(ids))
	if e == LeadEntity {
		q = q.ColumnExpr(master("lead_stage_id") + " AS stage_name").ColumnExpr(master("lead_status_id") + " AS status_name").
			ColumnExpr(master("lead_source_id") + " AS source_name").ColumnExpr(master("lead_type_id") + " AS type_name")
	} else {
		q = q.ColumnExpr("'' AS stage_name, '' AS status_name, '' AS source_name, '' AS type_name")
	}
	err := q.Scan(ctx, &rows)
	return rows, err
}

// compiledTemplate is a subject and a body made ready for many renders: the body's
// Markdown rendered once with each merge field replaced by a token (letters and digits,
// which Markdown leaves alone), and its text part with the tags stripped.
type compiledTemplate struct {
	subject string
	text    string
	html    string
	tokens  []string // tokens[i] stands for MergeFields[i]
}

var (
	markdown = goldmark.New(goldmark.WithExtensions(extension.Linkify, extension.Strikethrough, extension.Table),
		goldmark.WithRendererOptions(gmhtml.WithUnsafe(), gmhtml.WithHardWraps()))
	// htmlPolicy is what a rendered body may keep: user-generated content's tags and
	// attributes (links, images, tables, emphasis), never scripts, styles or event handlers.
	htmlPolicy = func() *bluemonday.Policy {
		p := bluemonday.UGCPolicy()
		p.RequireNoFollowOnLinks(false)
		return p
	}()
	stripPolicy = bluemonday.StrictPolicy()
)

func compileTemplate(subject, body string) (*compiledTemplate, error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	nonce := "mf" + hex.EncodeToString(b)
	c := &compiledTemplate{subject: subject, tokens: make([]string, len(MergeFields))}
	for i := range MergeFields {
		c.tokens[i] = nonce + "i" + strconv.Itoa(i) + "z"
	}
	src := mergeTag.ReplaceAllStringFunc(body, func(m string) string {
		if i := slices.Index(MergeFields, mergeTag.FindStringSubmatch(m)[1]); i >= 0 {
			return c.tokens[i]
		}
		return m
	})
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return nil, err
	}
	c.html = buf.String()
	c.text = strings.TrimSpace(html.UnescapeString(stripPolicy.Sanitize(src)))
	return c, nil
}

// render substitutes the values: as they are in the subject and the text, HTML-escaped in
// the HTML, which is then sanitised (a value cannot add a tag, and a link made of a value
// is checked like any other).
func (c *compiledTemplate) render(values map[string]string) (RenderedEmail, error) {
	plain := make([]string, 0, 2*len(MergeFields))
	escaped := make([]string, 0, 2*len(MergeFields))
	for i, f := range MergeFields {
		plain = append(plain, c.tokens[i], values[f])
		escaped = append(escaped, c.tokens[i], html.EscapeString(values[f]))
	}
	subject := strings.TrimSpace(mergeTag.ReplaceAllStringFunc(c.subject, func(m string) string {
		return values[mergeTag.FindStringSubmatch(m)[1]]
	}))
	if !validate.Text(subject, false) {
		return RenderedEmail{}, validate.Errors{"subject": validate.KeyInvalidCharacters}
	}
	return RenderedEmail{
		Subject: subject,
		Text:    strings.NewReplacer(plain...).Replace(c.text),
		HTML:    htmlPolicy.Sanitize(strings.NewReplacer(escaped...).Replace(c.html)),
	}, nil
}
