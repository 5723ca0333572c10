package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/imports"
	"tally/internal/apperr"
)

// ImportPresetJSON is ImportPreset.
type ImportPresetJSON struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Country   string   `json:"country"`
	Header    []string `json:"header"`
	HasHeader bool     `json:"has_header"`
	Manual    bool     `json:"manual"`
	Skips     *string  `json:"skips"`
}

// apiImportPresets is GET /api/v1/import_presets.
func (a *app) apiImportPresets(c echo.Context) error {
	out := make([]ImportPresetJSON, len(imports.BankPresets))
	for i, p := range imports.BankPresets {
		out[i] = ImportPresetJSON{ID: p.ID, Name: p.Name, Country: p.Country, Header: p.Header, HasHeader: !p.NoHeader, Manual: p.Manual}
		if p.Skip != nil {
			out[i].Skips = &p.Skip.Reason
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// ImportProfileJSON is ImportProfile.
type ImportProfileJSON struct {
	ID        string                  `json:"id"`
	AccountID string                  `json:"account_id"`
	Name      string                  `json:"name"`
	Header    []string                `json:"header"`
	Settings  imports.ProfileSettings `json:"settings"`
	CreatedAt apiTime                 `json:"created_at"`
	UpdatedAt apiTime                 `json:"updated_at"`
	LastUsed  *apiTime                `json:"last_used_at"`
}

func profileJSON(p *imports.Profile) ImportProfileJSON {
	out := ImportProfileJSON{ID: p.ID.String(), AccountID: p.AccountID.String(), Name: p.Name, Header: p.Headers,
		Settings: p.Settings, CreatedAt: apiTime(p.CreatedAt), UpdatedAt: apiTime(p.UpdatedAt)}
	if p.LastUsed != nil {
		t := apiTime(*p.LastUsed)
		out.LastUsed = &t
	}
	return out
}

// apiImportProfiles is GET /api/v1/import_profiles.
func (a *app) apiImportProfiles(c echo.Context) error {
	var account *uuid.UUID
	if s := c.QueryParam("account_id"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			var v apperr.Validation
			v.Add("account_id", "account_id must be an account's id")
			return v.Err()
		}
		account = &id
	}
	ps, err := imports.Profiles(c.Request().Context(), a.DB, currentUser(c).FamilyID, account)
	if err != nil {
		return err
	}
	out := make([]ImportProfileJSON, len(ps))
	for i := range ps {
		out[i] = profileJSON(&ps[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiImportProfileSave is POST /api/v1/imports/:id/profile.
func (a *app) apiImportProfileSave(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(c.Request().Body).Decode(&body); err != nil {
		return apperr.Wrap(apperr.BadRequest, err, "The request body must be a JSON object: "+err.Error())
	}
	p, err := a.Imports.SaveProfile(c.Request().Context(), im.FamilyID, im.ID, body.Name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": profileJSON(p)})
}

// apiImportProfileDelete is DELETE /api/v1/import_profiles/:id.
func (a *app) apiImportProfileDelete(c echo.Context) error {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return apperr.New(apperr.NotFound, "Import profile not found").WithSlug("not_found")
	}
	if err := a.Imports.DeleteProfile(c.Request().Context(), currentUser(c).FamilyID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
