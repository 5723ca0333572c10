package handlers

import (
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
)

// visibleAccountOr404 answers what another family's account answers (models.AccountByID's
// 404) when the request's viewer may not see the account id: a private account kept from
// them. nil otherwise.
func (a *app) visibleAccountOr404(c echo.Context, id uuid.UUID) error {
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if !v.CanSee(id) {
		return apperr.New(apperr.NotFound, "account not found")
	}
	return nil
}
