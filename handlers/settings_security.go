package handlers

import "github.com/labstack/echo/v4"

// securityRoutes registers /settings/security on the signed-in group.
func (a *app) securityRoutes(g *echo.Group) {}
