package handlers

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIJSON is the OpenAPI 3.1 document of /api/v1; it is embedded so the binary serves the
// document it was built with.
//
//go:embed openapi.json
var openAPIJSON []byte

// OpenAPIDocument returns the OpenAPI 3.1 document of the /api/v1 surface.
func OpenAPIDocument() []byte { return openAPIJSON }

// apiOpenAPI serves the OpenAPI document; it is public so that clients can discover the API
// before they have a key.
func (a *app) apiOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIJSON)
}
