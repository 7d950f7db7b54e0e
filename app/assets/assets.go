// Package assets serves the built front-end files and maps a bundle's plain name to its
// content-hashed URL through the manifest esbuild's build script writes.
package assets

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"
)

// Prefix is where the built files are served.
const Prefix = "/static/build/"

// Assets knows the hashed name of every bundle.
type Assets struct {
	fsys     fs.FS
	manifest map[string]string
}

// Load reads build/manifest.json from fsys (the static package's FS). A missing manifest
// is an error: the binary was built without its front end.
func Load(fsys fs.FS) (*Assets, error) {
	b, err := fs.ReadFile(fsys, "build/manifest.json")
	if err != nil {
		return nil, errors.New("front-end bundles missing (build/manifest.json): run `npx just build` first")
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(fsys, "build")
	if err != nil {
		return nil, err
	}
	return &Assets{fsys: sub, manifest: m}, nil
}

// URL returns the served URL of a bundle by its plain name ("admin.js"), or "" if unknown.
func (a *Assets) URL(name string) string {
	if h, ok := a.manifest[name]; ok {
		return Prefix + h
	}
	return ""
}

// Handler serves the built files; hashed names never change, so they are cached for a year.
func (a *Assets) Handler() http.Handler {
	files := http.StripPrefix(Prefix, http.FileServerFS(a.fsys))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, Prefix)
		if name == "" || strings.HasSuffix(name, "/") || name == "manifest.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		files.ServeHTTP(w, r)
	})
}

// Open reads a built file by its served name, for handlers that serve one under a fixed
// URL (the service worker must live at its scope).
func (a *Assets) Open(name string) ([]byte, error) {
	h, ok := a.manifest[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return fs.ReadFile(a.fsys, h)
}
