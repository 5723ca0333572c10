// Package static embeds Tally's built front-end assets (static/dist, made by `make assets`).
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// Dist holds app.css, htmx.min.js and app.js. Only .gitkeep is there before `make assets`.
//
//go:embed all:dist
var Dist embed.FS

var (
	versionsOnce sync.Once
	versions     map[string]string
)

// URL returns the address of the asset called name, with a fingerprint of its content so that
// browsers fetch a new build instead of a cached old one.
func URL(name string) string {
	versionsOnce.Do(func() {
		versions = map[string]string{}
		entries, _ := fs.ReadDir(Dist, "dist")
		for _, e := range entries {
			b, err := Dist.ReadFile("dist/" + e.Name())
			if err != nil {
				continue
			}
			sum := sha256.Sum256(b)
			versions[e.Name()] = hex.EncodeToString(sum[:4])
		}
	})
	return "/static/" + name + "?v=" + versions[name]
}
