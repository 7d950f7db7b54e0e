// Package locales embeds the message files: <locale>.toml for the admin (go-i18n) and
// mobile/<lang>.json for the mobile lead manager.
package locales

import "embed"

// FS holds every message file.
//
//go:embed *.toml mobile/*.json
var FS embed.FS
