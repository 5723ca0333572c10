package i18n

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/pelletier/go-toml/v2"
)

// The checks of the catalogues that `make lint` runs (TestCatalogue*).

// catalogueIDs reads the message ids of each catalogue, by language code.
func catalogueIDs(t *testing.T) map[string][]string {
	t.Helper()
	names, err := fs.Glob(files, "locales/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][]string{}
	for _, name := range names {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := i18n.ParseMessageFileBytes(b, name, map[string]i18n.UnmarshalFunc{"toml": toml.Unmarshal})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		code := strings.TrimSuffix(filepath.Base(name), ".toml")
		for _, m := range f.Messages {
			ids[code] = append(ids[code], m.ID)
		}
		slices.Sort(ids[code])
	}
	return ids
}

// TestCatalogueOfEveryLanguageIsComplete fails on a message of the English catalogue that
// another lacks (a page would show it in English), and on one another catalogue has that the
// English does not (a translation of nothing: a renamed or removed id).
func TestCatalogueOfEveryLanguageIsComplete(t *testing.T) {
	ids := catalogueIDs(t)
	for code, theirs := range ids {
		if code == Default {
			continue
		}
		for _, id := range ids[Default] {
			if _, found := slices.BinarySearch(theirs, id); !found {
				t.Errorf("locales/%s.toml lacks %q, which locales/%s.toml has", code, id, Default)
			}
		}
		for _, id := range theirs {
			if _, found := slices.BinarySearch(ids[Default], id); !found {
				t.Errorf("locales/%s.toml has %q, which locales/%s.toml does not: a renamed or removed message?", code, id, Default)
			}
		}
	}
}

// messageCall is a call of T or N, or a validation problem added by id (AddText), with its
// message id written out, as every call is.
var messageCall = regexp.MustCompile(`\bi18n\.[TN]\(\s*ctx,\s*"([^"]+)"|\.AddText\(\s*"[^"]+",\s*"([^"]+)"`)

// TestCatalogueMessagesAreUsed fails on a message of the English catalogue that no code or
// template of the module names (as a quoted string: the id itself, never built from parts), and
// on a call of T or N whose id the English catalogue lacks.
func TestCatalogueMessagesAreUsed(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var source strings.Builder
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		name := d.Name()
		generated := strings.HasSuffix(name, "_templ.go")
		if d.IsDir() || generated || strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ")) {
			return nil
		}
		b, err := os.ReadFile(path)
		source.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	code := source.String()
	english := catalogueIDs(t)[Default]
	for _, id := range english {
		if !strings.Contains(code, `"`+id+`"`) {
			t.Errorf("locales/%s.toml has %q, which no code or template uses", Default, id)
		}
	}
	for _, call := range messageCall.FindAllStringSubmatch(code, -1) {
		id := call[1] + call[2]
		if _, found := slices.BinarySearch(english, id); !found {
			t.Errorf("%s: locales/%s.toml has no such message", call[0], Default)
		}
	}
}
