package store

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"crm/app/i18n"
)

// MasterKind tells the lead masters apart.
type MasterKind string

// The master lists a lead refers to.
const (
	KindStage        MasterKind = "stage"
	KindStatus       MasterKind = "status"
	KindSource       MasterKind = "source"
	KindType         MasterKind = "type"
	KindTitle        MasterKind = "title"
	KindBusinessType MasterKind = "business_type"
)

// Master is one entry of a tenant's lead stages, statuses, sources, types, personal titles
// or business types.
type Master struct {
	bun.BaseModel `bun:"table:lead_masters,alias:m"`
	Owned

	ID        int64      `bun:"id,pk,autoincrement" json:"id"`
	Kind      MasterKind `bun:"kind,notnull" json:"kind"`
	Name      string     `bun:"name,notnull" json:"name"`
	SortOrder int        `bun:"sort_order,notnull" json:"sort_order"`
	IsDefault bool       `bun:"is_default,notnull" json:"is_default"`
	IsWon     bool       `bun:"is_won,notnull" json:"is_won"`
	IsLost    bool       `bun:"is_lost,notnull" json:"is_lost"`
	// IsConverted marks the status a lead takes when converted to a client.
	IsConverted bool      `bun:"is_converted,notnull" json:"-"`
	CreatedAt   time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}

// defaultMasters are the spec's values every tenant starts with: stages Leads, Deals, Won
// and Lost (Won and Lost drive the won/lost counts), statuses, sources and lead types.
type defaultMaster struct {
	Master
	key string // its name's message id in locales/*.toml ("": the same in every language)
}

var defaultMasters = []defaultMaster{
	{Master{Kind: KindStage, Name: "Leads", IsDefault: true}, "masterDefaults.stageLeads"},
	{Master{Kind: KindStage, Name: "Deals"}, "masterDefaults.stageDeals"},
	{Master{Kind: KindStage, Name: "Won", IsWon: true}, "masterDefaults.stageWon"},
	{Master{Kind: KindStage, Name: "Lost", IsLost: true}, "masterDefaults.stageLost"},
	{Master{Kind: KindStatus, Name: "New lead", IsDefault: true}, "masterDefaults.statusNewLead"},
	{Master{Kind: KindStatus, Name: "Attempt to contact"}, "masterDefaults.statusAttempt"},
	{Master{Kind: KindStatus, Name: "Converted", IsConverted: true}, "masterDefaults.statusConverted"},
	{Master{Kind: KindSource, Name: "Website", IsDefault: true}, "masterDefaults.sourceWebsite"},
	{Master{Kind: KindSource, Name: "Referral"}, "masterDefaults.sourceReferral"},
	{Master{Kind: KindSource, Name: "Campaign"}, "masterDefaults.sourceCampaign"},
	{Master{Kind: KindType, Name: "Hot"}, "masterDefaults.typeHot"},
	{Master{Kind: KindType, Name: "Warm"}, "masterDefaults.typeWarm"},
	{Master{Kind: KindType, Name: "Cold"}, "masterDefaults.typeCold"},
	{Master{Kind: KindTitle, Name: "Mr."}, ""},
	{Master{Kind: KindTitle, Name: "Mrs."}, ""},
	{Master{Kind: KindTitle, Name: "Ms."}, ""},
	{Master{Kind: KindTitle, Name: "Dr."}, ""},
	{Master{Kind: KindBusinessType, Name: "Private limited company"}, ""},
	{Master{Kind: KindBusinessType, Name: "Public limited company"}, ""},
	{Master{Kind: KindBusinessType, Name: "Partnership"}, ""},
	{Master{Kind: KindBusinessType, Name: "Sole proprietorship"}, ""},
}

// EnsureDefaultMasters adds the spec's masters a tenant does not have yet, named in locale
// (the tenant's default language: a French tenant starts with "Prospects" and "Gagné").
func (s Scope) EnsureDefaultMasters(ctx context.Context, locale string) error {
	names, err := masterNames(locale)
	if err != nil {
		return err
	}
	order := map[MasterKind]int{}
	rows := make([]Master, 0, len(defaultMasters))
	for _, d := range defaultMasters {
		m := d.Master
		if d.key != "" {
			m.Name = names.T(d.key)
		}
		order[m.Kind]++
		m.SortOrder = order[m.Kind]
		rows = append(rows, m)
	}
	_, err = s.Insert(&rows).On("CONFLICT (tenant_id, kind, name) DO NOTHING").Exec(ctx)
	return err
}

// Masters lists one kind of master in display order.
func (s Scope) Masters(ctx context.Context, kind MasterKind) ([]Master, error) {
	var out []Master
	err := s.Select(&out).Where("kind = ?", kind).OrderExpr("sort_order, id").Scan(ctx)
	return out, err
}

// Master loads one master of the kind; ErrNotFound if the id is another kind or tenant.
func (s Scope) Master(ctx context.Context, kind MasterKind, id int64) (*Master, error) {
	m := &Master{}
	err := s.Select(m).Where("kind = ? AND id = ?", kind, id).Scan(ctx)
	return m, notFound(err)
}

// defaultMaster is the kind's default entry, else its first; nil when the list is empty.
func (s Scope) defaultMaster(ctx context.Context, kind MasterKind) (*int64, error) {
	m := &Master{}
	err := s.Select(m).Where("kind = ?", kind).OrderExpr("is_default DESC, sort_order, id").Limit(1).Scan(ctx)
	if errors.Is(notFound(err), ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &m.ID, nil
}

// masterNames translates the default masters' names.
func masterNames(locale string) (*i18n.Localizer, error) {
	b, err := i18n.Embedded()
	if err != nil {
		return nil, err
	}
	return b.Localizer(locale), nil
}
