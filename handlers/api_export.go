package handlers

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/imports"
	"tally/internal/apperr"
	"tally/views"
)

// exportAdmin lets only the family's admins export through the API (members get a 403 that
// says why); the page's download link answers members 404, as every admin page does.
var exportAdmin = adminsOnly(apperr.Forbidden, "Only an admin of the family can export its data")

// streamExport sends the family's export as it is read: a large family's download starts at
// once and the browser shows its progress, and the server holds no more of it than a buffer.
// It is read in one read-only repeatable-read transaction, so the file is one moment's data.
// A failure after the first bytes closes the connection before the chunked body ends: the
// download fails, instead of ending as a truncated file that looks complete. It holds what the
// person exporting may see (imports.Export): no private account kept from them.
func (a *app) streamExport(c echo.Context) error {
	u := currentUser(c)
	ctx := c.Request().Context()
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	name := strings.NewReplacer(`"`, "", " ", "-").Replace(u.Family.Name)
	res := c.Response()
	started := false
	err = a.DB.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		res.Header().Set("Content-Disposition", `attachment; filename="tally-`+name+`-`+time.Now().UTC().Format("2006-01-02")+`.ndjson"`)
		res.Header().Set(echo.HeaderContentType, "application/x-ndjson")
		_, err := imports.Export(ctx, tx, v, writerFunc(func(p []byte) (int, error) {
			if !started {
				started = true
				res.WriteHeader(http.StatusOK)
			}
			return res.Write(p)
		}))
		return err
	})
	switch {
	case err == nil && !started:
		// An empty family: the headers are still to send.
		res.WriteHeader(http.StatusOK)
	case err != nil && started:
		a.Log.ErrorContext(ctx, "export failed after it started; the download is cut off", "error", err, "family_id", u.FamilyID)
		panic(http.ErrAbortHandler)
	}
	return err
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// exportPage is GET /settings/export: what the family's export holds, and its download.
func (a *app) exportPage(c echo.Context) error {
	u := currentUser(c)
	p := views.ExportPage{Admin: u.IsAdmin(), Family: u.Family.Name}
	if p.Admin {
		v, err := a.viewer(c)
		if err != nil {
			return err
		}
		p.Partial = v.HidesAny()
		if p.Counts, err = imports.ExportCounts(c.Request().Context(), a.DB, v); err != nil {
			return err
		}
	}
	return a.render(c, http.StatusOK, views.SettingsExportPage(p))
}
