package i18n

import (
	"context"
	"strings"
	"testing"
)

func TestMessagesInTheirLanguage(t *testing.T) {
	en, de := WithLanguage(context.Background(), "en"), WithLanguage(context.Background(), "de")
	for _, tc := range []struct {
		ctx       context.Context
		got, want string
	}{
		{en, T(en, "nav.transactions"), "Transactions"},
		{de, T(de, "nav.transactions"), "Buchungen"},
		{de, T(de, "layout.sign_out_named", "Name", "Anna"), "Anna abmelden"},
		{en, T(en, "layout.sign_out_named", "Name", "Anna"), "Sign out Anna"},
		// No language in the context is the default's; one Tally does not speak, too.
		{context.Background(), T(context.Background(), "nav.transactions"), "Transactions"},
		{de, T(WithLanguage(context.Background(), "xx"), "nav.transactions"), "Transactions"},
		// An id no catalogue has shows itself, so that it is seen.
		{de, T(de, "no.such.message"), "no.such.message"},
	} {
		if tc.got != tc.want {
			t.Errorf("in %s: %q, want %q", LanguageOf(tc.ctx), tc.got, tc.want)
		}
	}
}

// TestPluralsFollowTheLanguagesRules counts by CLDR rules: German and English have one and
// other, and a count of zero is "other" in both.
func TestPluralsFollowTheLanguagesRules(t *testing.T) {
	de := WithLanguage(context.Background(), "de")
	const id = "profile.password_changed_signed_out"
	for n, want := range map[int]string{
		0: "Dein Passwort ist geändert. 0 andere Sitzungen wurden abgemeldet.",
		1: "Dein Passwort ist geändert. 1 andere Sitzung wurde abgemeldet.",
		2: "Dein Passwort ist geändert. 2 andere Sitzungen wurden abgemeldet.",
	} {
		if got := N(de, id, n); got != want {
			t.Errorf("%d in German: %q, want %q", n, got, want)
		}
	}
	if got := N(context.Background(), id, 1); got != "Your password is changed. 1 other session was signed out." {
		t.Errorf("1 in English: %q", got)
	}
}

func TestMatchReadsAcceptLanguage(t *testing.T) {
	for header, want := range map[string]string{
		"de-DE,de;q=0.9,en;q=0.8": "de", "de-AT": "de", "de-CH,fr;q=0.5": "de", "en-GB,en;q=0.9": "en",
		"qaa-QA,de;q=0.5": "de", "ja": "en", "": "en", "garbage;;;": "en",
		// Longer than any browser's: not read, whatever it asks for (its parsing would cost
		// more than the page).
		strings.Repeat("de,", 200): "en",
	} {
		if got := Match(header); got != want {
			t.Errorf("Accept-Language %q: %q, want %q", header, got, want)
		}
	}
}

func TestLanguagesNameThemselves(t *testing.T) {
	got := Languages()
	if len(got) < 2 || got[0] != (Language{"en", "English"}) || !Supported("de") || Supported("xx") {
		t.Fatalf("languages %v", got)
	}
	for _, l := range got {
		if l.Code == "de" && l.Name != "Deutsch" {
			t.Errorf("German names itself %q", l.Name)
		}
	}
}
