package leads

import (
	"crm/app/store"
	"crm/views/components"
	"time"
)

// Board is the pipeline: a column per stage, in stage order.
type Board struct {
	Columns   []BoardColumn
	Stages    []components.Option // every stage, for the cards' move selects
	CanUpdate bool
	Now       time.Time
}

// BoardColumn is one stage with its first cards and the link to the next ones.
type BoardColumn struct {
	StageID   int64
	StageName string
	Page      *store.LeadPage
	MoreHref  string // "" when every card is shown
}
