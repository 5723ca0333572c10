package sso_test

import (
	"os"
	"testing"

	"tally/internal/testkit"
)

// TestMain gives the package's tests a private PostgreSQL cluster.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
