package store

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
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
	CreatedAt time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}

// defaultMasters are the spec's values every tenant starts with: stages Leads, Deals, Won
// and Lost (Won and Lost drive the won/lost counts), statuses, sources and lead types.
var defaultMasters = []Master{
	{Kind: KindStage, Name: "Leads", IsDefault: true},
	{Kind: KindStage, Name: "Deals"},
	{Kind: KindStage, Name: "Won", IsWon: true},
	{Kind: KindStage, Name: "Lost", IsLost: true},
	{Kind: KindStatus, Name: "New lead", IsDefault: true},
	{Kind: KindStatus, Name: "Attempt to contact"},
	{Kind: KindStatus, Name: "Converted"},
	{Kind: KindSource, Name: "Website", IsDefault: true},
	{Kind: KindSource, Name: "Referral"},
	{Kind: KindSource, Name: "Campaign"},
	{Kind: KindType, Name: "Hot"},
	{Kind: KindType, Name: "Warm"},
	{Kind: KindType, Name: "Cold"},
	{Kind: KindTitle, Name: "Mr."},
	{Kind: KindTitle, Name: "Mrs."},
	{Kind: KindTitle, Name: "Ms."},
	{Kind: KindTitle, Name: "Dr."},
	{Kind: KindBusinessType, Name: "Private limited company"},
	{Kind: KindBusinessType, Name: "Public limited company"},
	{Kind: KindBusinessType, Name: "Partnership"},
	{Kind: KindBusinessType, Name: "Sole proprietorship"},
}

// EnsureDefaultMasters adds the spec's masters a tenant does not have yet.
func (s Scope) EnsureDefaultMasters(ctx context.Context) error {
	order := map[MasterKind]int{}
	rows := make([]Master, 0, len(defaultMasters))
	for _, m := range defaultMasters {
		order[m.Kind]++
		m.SortOrder = order[m.Kind]
		rows = append(rows, m)
	}
	_, err := s.Insert(&rows).On("CONFLICT (tenant_id, kind, name) DO NOTHING").Exec(ctx)
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
