package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/webhooks"
)

// WebhookJSON is Webhook in the OpenAPI document; with its secret, WebhookWithSecret.
type WebhookJSON struct {
	ID           string   `json:"id"`
	URL          string   `json:"url"`
	Description  string   `json:"description"`
	Events       []string `json:"events"`
	Active       bool     `json:"active"`
	Status       string   `json:"status"`
	FailingSince *apiTime `json:"failing_since"`
	CreatedAt    apiTime  `json:"created_at"`
	UpdatedAt    apiTime  `json:"updated_at"`
	Secret       string   `json:"secret,omitempty"`
}

func webhookJSON(ep *webhooks.Endpoint) WebhookJSON {
	return WebhookJSON{ID: ep.ID.String(), URL: ep.URL, Description: ep.Description, Events: ep.Events, Active: ep.Active,
		Status: ep.Status(), FailingSince: (*apiTime)(ep.FailingSince), CreatedAt: apiTime(ep.CreatedAt), UpdatedAt: apiTime(ep.UpdatedAt)}
}

// WebhookDeliveryJSON is WebhookDelivery in the OpenAPI document.
type WebhookDeliveryJSON struct {
	ID             string   `json:"id"`
	EventID        string   `json:"event_id"`
	EventType      string   `json:"event_type"`
	Status         string   `json:"status"`
	Attempts       int      `json:"attempts"`
	ResponseStatus *int     `json:"response_status"`
	ResponseBody   *string  `json:"response_body"`
	Error          *string  `json:"error"`
	DurationMS     *int     `json:"duration_ms"`
	RedeliveryOf   *string  `json:"redelivery_of"`
	CreatedAt      apiTime  `json:"created_at"`
	LastAttemptAt  *apiTime `json:"last_attempt_at"`
	NextAttemptAt  *apiTime `json:"next_attempt_at"`
	CompletedAt    *apiTime `json:"completed_at"`
}

func webhookDeliveryJSON(d *webhooks.Delivery) WebhookDeliveryJSON {
	out := WebhookDeliveryJSON{ID: d.ID.String(), EventID: d.EventID.String(), EventType: d.EventType, Status: d.Status,
		Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, ResponseBody: d.ResponseBody, Error: d.Error, DurationMS: d.DurationMS,
		CreatedAt: apiTime(d.CreatedAt), LastAttemptAt: (*apiTime)(d.LastAttemptAt), NextAttemptAt: (*apiTime)(d.NextAttemptAt),
		CompletedAt: (*apiTime)(d.CompletedAt)}
	if d.RedeliveryOf != nil {
		s := d.RedeliveryOf.String()
		out.RedeliveryOf = &s
	}
	return out
}

// requireAPIAdmin lets only the family's admins through: a webhook sends the family's events
// wherever it points. Anyone else gets a 403 (the API's webhooks are documented, not hidden).
var requireAPIAdmin = adminsOnly(apperr.Forbidden, "Only an admin of the family can manage its webhooks")

// webhookActor is the signed-in user (or API client's user) changing a webhook, for the
// audit log.
func (a *app) webhookActor(c echo.Context) webhooks.Actor {
	return webhooks.Actor{UserID: currentUser(c).ID, Meta: a.meta(c)}
}

// webhookRequest is the body of POST and PATCH /api/v1/webhooks: every field optional on
// PATCH.
type webhookRequest struct {
	URL         *string   `json:"url"`
	Description *string   `json:"description"`
	Events      *[]string `json:"events"`
	Active      *bool     `json:"active"`
}

func decodeWebhook(c echo.Context) (webhooks.Input, error) {
	var req webhookRequest
	if err := decodeStrict(c, &req, "a webhook"); err != nil {
		return webhooks.Input{}, err
	}
	return webhooks.Input{URL: req.URL, Description: req.Description, Events: req.Events, Active: req.Active}, nil
}

// apiWebhooks is GET /api/v1/webhooks: the family's endpoints.
func (a *app) apiWebhooks(c echo.Context) error {
	list, err := a.Webhooks.List(c.Request().Context(), currentUser(c).FamilyID)
	if err != nil {
		return err
	}
	out := make([]WebhookJSON, len(list))
	for i := range list {
		out[i] = webhookJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiWebhookCreate is POST /api/v1/webhooks: the answer holds the signing secret, this once.
func (a *app) apiWebhookCreate(c echo.Context) error {
	in, err := decodeWebhook(c)
	if err != nil {
		return err
	}
	ep, secret, err := a.Webhooks.Create(c.Request().Context(), currentUser(c).FamilyID, a.webhookActor(c), in)
	if err != nil {
		return err
	}
	out := webhookJSON(ep)
	out.Secret = secret
	return c.JSON(http.StatusCreated, map[string]any{"data": out})
}

// apiWebhookShow is GET /api/v1/webhooks/{id}.
func (a *app) apiWebhookShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ep, err := a.Webhooks.Get(c.Request().Context(), currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": webhookJSON(ep)})
}

// apiWebhookUpdate is PATCH /api/v1/webhooks/{id}.
func (a *app) apiWebhookUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	in, err := decodeWebhook(c)
	if err != nil {
		return err
	}
	ep, err := a.Webhooks.Update(c.Request().Context(), currentUser(c).FamilyID, id, a.webhookActor(c), in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": webhookJSON(ep)})
}

// apiWebhookDelete is DELETE /api/v1/webhooks/{id}.
func (a *app) apiWebhookDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := a.Webhooks.Delete(c.Request().Context(), currentUser(c).FamilyID, id, a.webhookActor(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiWebhookRotateSecret is POST /api/v1/webhooks/{id}/rotate_secret: a new secret, shown
// this once; the old one stops working at once.
func (a *app) apiWebhookRotateSecret(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ep, secret, err := a.Webhooks.RotateSecret(c.Request().Context(), currentUser(c).FamilyID, id, a.webhookActor(c))
	if err != nil {
		return err
	}
	out := webhookJSON(ep)
	out.Secret = secret
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiWebhookDeliveries is GET /api/v1/webhooks/{id}/deliveries: the newest 50.
func (a *app) apiWebhookDeliveries(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	_, list, err := a.Webhooks.Deliveries(c.Request().Context(), v, id)
	if err != nil {
		return err
	}
	out := make([]WebhookDeliveryJSON, len(list))
	for i := range list {
		out[i] = webhookDeliveryJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiWebhookRedeliver is POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver: the
// delivery's event again, as a new delivery queued now.
func (a *app) apiWebhookRedeliver(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	deliveryID, err := pathParamID(c, "delivery_id")
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	d, err := a.Webhooks.Redeliver(c.Request().Context(), v, id, deliveryID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"data": webhookDeliveryJSON(d)})
}
