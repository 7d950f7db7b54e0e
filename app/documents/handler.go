// Package documents serves the files attached to leads and clients: the JSON API
// (upload, list, view, download, rename/retag, delete) and the admin pages' documents
// section with its upload, edit and delete steps.
package documents

import (
	"crm/app/files"
	"crm/app/web"
)

// Handler serves documents.
type Handler struct {
	web   *web.Kit
	files files.Store
}

// New is the documents handler over the file store.
func New(kit *web.Kit, fs files.Store) *Handler { return &Handler{web: kit, files: fs} }
