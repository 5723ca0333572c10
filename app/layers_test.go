package app_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds the import rule of each layer (docs/architecture.md, "Where things are
// built") over what `go list` says the packages import. Test files are left out: a test may
// reach any package. `make lint` runs it.
func TestLayers(t *testing.T) {
	pkgs := goList(t)
	var problems []string
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if why := layerRule(p.ImportPath, imp); why != "" {
				problems = append(problems, p.ImportPath+" imports "+imp+": "+why)
			}
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: is the test run from the module?", len(pkgs))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestLayersKeepTheWebOutOfTheCore holds the core composition (app: configuration, database,
// services, jobs), which `tally worker` and the operator tasks build alone, to composing
// without the web layer: neither it nor anything it imports, however indirectly, is the web
// layer, its views or Echo. The web server is composed on top of it, in app/web.
func TestLayersKeepTheWebOutOfTheCore(t *testing.T) {
	deps := goListDeps(t, "tally/app")
	if !slices.Contains(deps, "tally/internal/db") {
		t.Fatalf("go list -deps tally/app found %d packages without tally/internal/db: is the test run from the module?", len(deps))
	}
	for _, d := range deps {
		if webPackage(d) {
			t.Errorf("tally/app imports %s: the core composition must not build on the web layer (docs/architecture.md, \"Where things are built\")", d)
		}
	}
}

// webPackage says whether pkg is the web layer: its handlers, views or router.
func webPackage(pkg string) bool {
	return under(pkg, "tally/handlers") || under(pkg, "tally/views") || under(pkg, "github.com/labstack/echo/v4") || under(pkg, "github.com/a-h/templ")
}

// The rules are tested on a few imports each way, so that a rule that never fires is noticed.
func TestLayerRules(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		broken   bool
	}{
		{"tally/internal/db", "tally/models", true},
		{"tally/internal/db", "tally/internal/pgtmp", false},
		{"tally/internal/db", "tally/migrations", false},
		{"tally/config", "tally/auditlog", true},
		{"tally/config", "tally/fx", true},
		{"tally/config", "tally/internal/secrets", false},
		{"tally/jobs", "tally/handlers", true},
		{"tally/e2e", "tally/handlers", true},
		{"tally/cmd/tally", "tally/handlers", false},
		{"tally/app", "tally/handlers", true},
		{"tally/app/web", "tally/handlers", false},
		{"tally/app/apptest", "tally/handlers", false},
		{"tally/auditlog", "tally/sso", true},
		{"tally/sso", "tally/auditlog", false},
		{"tally/imports", "github.com/labstack/echo/v4", false},
	} {
		if got := layerRule(tc.pkg, tc.imp) != ""; got != tc.broken {
			t.Errorf("%s importing %s breaks a rule: %v, want %v", tc.pkg, tc.imp, got, tc.broken)
		}
	}
}

const module = "tally/"

// layerRule says which rule pkg importing imp breaks, or "".
func layerRule(pkg, imp string) string {
	if !strings.HasPrefix(imp, module) {
		return ""
	}
	switch {
	case under(pkg, "tally/internal") && !under(imp, "tally/internal") && imp != "tally/migrations":
		return "internal/ is the ground floor: it imports nothing of the project outside it (but the migrations' embedded SQL)"
	case pkg == "tally/config" && !under(imp, "tally/internal"):
		return "config parses settings only: it imports no domain package (the owners check their settings in app.LoadConfig)"
	case under(imp, "tally/handlers") && !under(pkg, "tally/handlers") && !under(pkg, "tally/cmd") && !under(pkg, "tally/app/web") && !under(pkg, "tally/app/apptest"):
		return "only cmd and the web composition (app/web, and app/apptest's server) build on the web layer"
	case pkg == "tally/auditlog" && imp == "tally/sso":
		return "auditlog owns the audit writer and the event catalogue: the packages that write events import it"
	}
	return ""
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

type listed struct {
	ImportPath string
	Imports    []string
}

// goList is `go list -json ./...` of the module, run from this package's directory.
func goList(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "tally/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b listed) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return pkgs
}

// goListDeps is every package pkg imports, directly or not, and pkg itself (test files aside).
func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	return strings.Fields(string(out))
}
