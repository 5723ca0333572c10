// Package static embeds Tally's built front-end assets (static/dist, made by `make assets`).
package static

import "embed"

// Dist holds app.css, htmx.min.js and app.js. Only .gitkeep is there before `make assets`.
//
//go:embed all:dist
var Dist embed.FS
