package handlers

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tally/imports"
	"tally/internal/apperr"
)

// apiExport is GET /api/v1/export: the family's data as native NDJSON, for its admins only.
// The file is built before it is sent, so that a failure is an error response rather than a
// truncated file that looks complete.
func (a *app) apiExport(c echo.Context) error {
	u := currentUser(c)
	if !u.IsAdmin() {
		return apperr.New(apperr.Forbidden, "Only an admin of the family can export its data")
	}
	var buf bytes.Buffer
	if _, err := imports.Export(c.Request().Context(), a.DB, u.FamilyID, &buf); err != nil {
		return err
	}
	name := strings.NewReplacer(`"`, "", " ", "-").Replace(u.Family.Name)
	c.Response().Header().Set("Content-Disposition", `attachment; filename="tally-`+name+`-`+time.Now().UTC().Format("2006-01-02")+`.ndjson"`)
	return c.Blob(http.StatusOK, "application/x-ndjson", buf.Bytes())
}
