package handlers

import "github.com/labstack/echo/v4"

// adminAuditRoutes registers /admin/sso_audit_logs on the admin group.
func (a *app) adminAuditRoutes(g *echo.Group) {}
