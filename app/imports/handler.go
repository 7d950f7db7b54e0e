// Package imports serves CSV imports of leads and clients: upload, column mapping,
// run, progress, report and undo, as admin pages and as the JSON API. The work itself runs
// in the background on the process's importer.Runner.
package imports

import (
	"crm/app/importer"
	"crm/app/web"
)

// Handler serves imports.
type Handler struct {
	web    *web.Kit
	runner *importer.Runner
}

// New is the imports handler that starts imports on runner.
func New(kit *web.Kit, runner *importer.Runner) *Handler { return &Handler{web: kit, runner: runner} }
