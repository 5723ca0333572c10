// Package i18n is Tally's interface in the people's languages: one catalogue per language
// (locales/<code>.toml, embedded), its messages by id, with placeholders and CLDR plural
// forms, and the language of a request carried in its context.
//
// The catalogues are read by go-i18n (github.com/nicksnyder/go-i18n/v2): message ids, CLDR
// plural rules for every language, and text/template placeholders a translator may reorder.
// Every catalogue is parsed once, at start: a message without placeholders is a map read, and
// one with them executes a template go-i18n parsed the first time it was used.
package i18n

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/pelletier/go-toml/v2"
	"golang.org/x/text/language"
)

// Default is the language of a page nobody chose one for, of a family that chose none, and
// the one every other catalogue falls back to for a message it lacks.
const Default = "en"

//go:embed locales/*.toml
var files embed.FS

// Language is one language Tally speaks: its code (the catalogue's file name, a BCP 47 tag)
// and its name in itself ("Deutsch"), as a chooser offers it.
type Language struct {
	Code, Name string
}

// catalogue is one language's messages, ready to read.
type catalogue struct {
	Language
	// plain holds the messages without placeholders or plural forms (the English text where
	// this catalogue lacks one): what most calls read.
	plain map[string]string
	// localizer executes the others, with this language's plural rules.
	localizer *i18n.Localizer
}

var (
	catalogues = map[string]*catalogue{}
	// languages are the languages, Default first, then by code.
	languages []Language
	matcher   language.Matcher
)

func init() {
	if err := load(files); err != nil {
		panic("i18n: " + err.Error())
	}
}

// load reads every catalogue of fsys (locales/*.toml) into catalogues, languages and matcher.
func load(fsys fs.FS) error {
	bundle := i18n.NewBundle(language.MustParse(Default))
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	names, err := fs.Glob(fsys, "locales/*.toml")
	if err != nil {
		return err
	}
	parsed := map[string]*i18n.MessageFile{}
	for _, name := range names {
		f, err := bundle.LoadMessageFileFS(fsys, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		parsed[strings.TrimSuffix(path.Base(name), ".toml")] = f
	}
	if parsed[Default] == nil {
		return fmt.Errorf("no catalogue for the default language %q", Default)
	}
	codes := make([]string, 0, len(parsed))
	for code := range parsed {
		codes = append(codes, code)
	}
	slices.SortFunc(codes, func(a, b string) int {
		switch {
		case a == Default:
			return -1
		case b == Default:
			return 1
		}
		return strings.Compare(a, b)
	})
	tags := make([]language.Tag, len(codes))
	for i, code := range codes {
		tags[i] = language.MustParse(code)
		c := &catalogue{Language: Language{Code: code}, plain: map[string]string{}, localizer: i18n.NewLocalizer(bundle, code)}
		for _, id := range []string{Default, code} { // English first, this language over it
			for _, m := range parsed[id].Messages {
				if m.One == "" && m.Few == "" && m.Many == "" && m.Two == "" && m.Zero == "" && !strings.Contains(m.Other, "{{") {
					c.plain[m.ID] = m.Other
				} else {
					delete(c.plain, m.ID)
				}
			}
		}
		c.Name = c.plain["language.name"]
		catalogues[code] = c
		languages = append(languages, c.Language)
	}
	matcher = language.NewMatcher(tags)
	return nil
}

// Languages are the languages Tally speaks, the default first.
func Languages() []Language { return languages }

// Texts are the messages of the language code without placeholders or plural forms, by id,
// the English text where its catalogue lacks one: what the checks of the pages compare with.
func Texts(code string) map[string]string {
	if c := catalogues[code]; c != nil {
		return maps.Clone(c.plain)
	}
	return nil
}

// Supported says whether code names a language Tally speaks.
func Supported(code string) bool { return catalogues[code] != nil }

// maxAcceptLanguage bounds the header Match reads: a browser's is a few dozen bytes, and
// parsing one grows faster than its length (a 1 MB header took most of a second), so that
// a longer one, which only a client bent on the cost sends, is read as none.
const maxAcceptLanguage = 512

// Match is the language Tally speaks that best fits a browser's Accept-Language header
// ("de-AT,de;q=0.9,en;q=0.8" is "de"), or Default when none does, or when the header is
// longer than any browser's (maxAcceptLanguage).
func Match(acceptLanguage string) string {
	if len(acceptLanguage) > maxAcceptLanguage {
		return Default
	}
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return Default
	}
	if _, i, confidence := matcher.Match(tags...); confidence != language.No {
		return languages[i].Code
	}
	return Default
}

type langKey struct{}

// WithLanguage returns ctx in which messages are read in the language code (Default when
// Tally does not speak it).
func WithLanguage(ctx context.Context, code string) context.Context {
	if !Supported(code) {
		code = Default
	}
	return context.WithValue(ctx, langKey{}, code)
}

// LanguageOf is the language of ctx: the one WithLanguage put in it, else Default.
func LanguageOf(ctx context.Context) string {
	if code, ok := ctx.Value(langKey{}).(string); ok {
		return code
	}
	return Default
}

func catalogueOf(ctx context.Context) *catalogue { return catalogues[LanguageOf(ctx)] }

// T is the message id in the language of ctx, its placeholders filled from data, given as
// name and value pairs: T(ctx, "dashboard.greeting", "Name", "Anna"). A message missing from
// the language is the English one; an id no catalogue has is itself (the lint check
// TestEveryMessageIsInEveryCatalogue keeps that from shipping).
func T(ctx context.Context, id string, data ...any) string {
	c := catalogueOf(ctx)
	if len(data) == 0 {
		if s, ok := c.plain[id]; ok {
			return s
		}
	}
	return c.localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: pairs(data)})
}

// N is the message id for count things in the language of ctx, in the plural form the
// language's CLDR rules give count ("1 Buchung", "2 Buchungen"); its placeholders are filled
// from data as T's are, and {{.Count}} is count.
func N(ctx context.Context, id string, count int, data ...any) string {
	values := pairs(data)
	values["Count"] = count
	return catalogueOf(ctx).localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: values})
}

func (c *catalogue) localize(lc *i18n.LocalizeConfig) string {
	s, err := c.localizer.Localize(lc)
	if s == "" && err != nil {
		return lc.MessageID
	}
	return s
}

// pairs is data (name, value, name, value ...) as a template's data.
func pairs(data []any) map[string]any {
	values := make(map[string]any, len(data)/2+1)
	for i := 0; i+1 < len(data); i += 2 {
		name, _ := data[i].(string)
		values[name] = data[i+1]
	}
	return values
}
