package imports_test

import (
	"os"
	"testing"

	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
