package sso_test

import (
	"os"
	"testing"

	"tally/testkit"
)

// TestMain gives the package's tests a private PostgreSQL cluster.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
