package settings

import (
	"crm/app/store"
)

// MasterRow is one entry of a master list with the number of leads using it.
type MasterRow struct {
	ID                       int64
	Name                     string // the stored name
	IsDefault, IsWon, IsLost bool
	Count                    int64
	Input                    string // the name in the rename field (as typed, after a refused rename)
	Error                    string // a refused rename's error key
}

// Masters is the page of one master list.
type Masters struct {
	Kind      store.MasterKind
	Rows      []MasterRow
	AddName   string
	AddError  string
	Ordered   bool // the stages: their order matters and can be changed
	CanCreate bool
	CanUpdate bool
	CanDelete bool
}

// StageSettings is the stage settings form: the default, won and lost stages.
type StageSettings struct {
	Stages    []store.Master
	Values    map[string]string // by field: default_stage_id, won_stage_id, lost_stage_id
	Errors    map[string]string
	CanUpdate bool
}
