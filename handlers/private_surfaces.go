package handlers

import (
	"slices"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/models"
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

// seenAccounts keeps of accts (the family's) those the request's viewer may see: the lists a
// page offers to choose from name no account kept from them.
func (a *app) seenAccounts(c echo.Context, accts []models.Account) ([]models.Account, error) {
	v, err := a.viewer(c)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(accts, func(x models.Account) bool { return !v.CanSee(x.ID) }), nil
}
