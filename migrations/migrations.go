// Package migrations holds Tally's SQL migrations, embedded into the binary and applied by
// bun/migrate (see internal/db).
package migrations

import "embed"

// Files are the migration files: <version>_<name>.up.sql and .down.sql.
//
//go:embed *.sql
var Files embed.FS
