package db

// MigrateUpFrom and MigrateDownFrom are MigrateUp (without River's migrations) and MigrateDown
// on the migrations of another file system than Tally's, for tests of kinds of migration that
// Tally does not have.
var (
	MigrateUpFrom   = migrateUp
	MigrateDownFrom = migrateDown
)
