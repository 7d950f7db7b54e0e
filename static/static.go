// Package static embeds the built front-end files (esbuild output and its manifest) so the
// binary runs from any directory.
package static

import "embed"

// FS holds build/: hashed bundles and manifest.json, written by `just islands`.
//
//go:embed all:build
var FS embed.FS
