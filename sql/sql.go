// Package migrations embeds the SQL migrations, one folder per dialect.
package migrations

import "embed"

// FS holds sqlite/*.sql and postgres/*.sql, applied by bun's migrator.
//
//go:embed sqlite/*.sql postgres/*.sql
var FS embed.FS
