package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/i18n"
	"tally/views"
	"tally/webhooks"
)

// webhookRoutes registers /settings/webhooks: family admins only (anyone else gets a 404).
// Making an endpoint or a secret asks for the second factor again, as an API key does: either
// sends the family's events somewhere new.
func (a *app) webhookRoutes(g *echo.Group) {
	if a.Webhooks == nil {
		return
	}
	w := g.Group("/settings/webhooks", requireFamilyAdmin)
	w.GET("", a.webhooksIndex)
	w.POST("", a.webhookCreate, a.stepUp("step_up_action.add_webhook", nil))
	w.GET("/:id", a.webhookShow)
	w.POST("/:id/pause", a.webhookPause)
	w.POST("/:id/resume", a.webhookResume)
	w.POST("/:id/rotate_secret", a.webhookRotateSecret, a.stepUp("step_up_action.new_webhook_secret", nil))
	w.POST("/:id/delete", a.webhookDelete)
	w.POST("/:id/deliveries/:delivery_id/redeliver", a.webhookRedeliver)
}

func (a *app) webhooksIndex(c echo.Context) error {
	return a.renderWebhooks(c, http.StatusOK, views.Webhooks{Events: webhooks.EventTypes})
}

func (a *app) renderWebhooks(c echo.Context, status int, p views.Webhooks) error {
	list, err := a.Webhooks.List(c.Request().Context(), currentUser(c).FamilyID)
	if err != nil {
		return err
	}
	p.Endpoints = list
	return a.render(c, status, views.WebhooksPage(p))
}

// webhookCreate is POST /settings/webhooks. The secret is shown in the answer to the POST
// rather than after a redirect, so that it is never stored anywhere, not even in the session.
func (a *app) webhookCreate(c echo.Context) error {
	form := formOf(c, "url", "description")
	values, _ := c.FormParams()
	events := values["events"]
	if events == nil {
		events = []string{}
	}
	url, description := form.Value("url"), form.Value("description")
	ep, secret, err := a.Webhooks.Create(c.Request().Context(), currentUser(c).FamilyID, a.webhookActor(c),
		webhooks.Input{URL: &url, Description: &description, Events: &events})
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.renderWebhooks(c, status, views.Webhooks{Form: form, Events: events})
		}
		return err
	}
	return a.renderWebhooks(c, http.StatusCreated, views.Webhooks{Created: ep, Secret: secret, Events: webhooks.EventTypes})
}

func (a *app) webhookShow(c echo.Context) error { return a.renderWebhook(c, http.StatusOK, "") }

// renderWebhook shows the endpoint of the path with its deliveries, and secret when it is new.
func (a *app) renderWebhook(c echo.Context, status int, secret string) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	ep, list, err := a.Webhooks.Deliveries(c.Request().Context(), v, id)
	if err != nil {
		return err
	}
	return a.render(c, status, views.WebhookPage(views.WebhookDetail{Endpoint: *ep, Deliveries: list, Secret: secret}))
}

func (a *app) webhookPause(c echo.Context) error {
	return a.webhookSetActive(c, false, i18n.T(inLanguage(c), "webhooks.paused_flash"))
}

func (a *app) webhookResume(c echo.Context) error {
	return a.webhookSetActive(c, true, i18n.T(inLanguage(c), "webhooks.resumed_flash"))
}

func (a *app) webhookSetActive(c echo.Context, active bool, done string) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ep, err := a.Webhooks.Update(c.Request().Context(), currentUser(c).FamilyID, id, a.webhookActor(c), webhooks.Input{Active: &active})
	if err != nil {
		return err
	}
	a.flash(c, "success", done)
	return redirect(c, "/settings/webhooks/"+ep.ID.String())
}

// webhookRotateSecret shows the new secret in its answer, as webhookCreate does.
func (a *app) webhookRotateSecret(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	_, secret, err := a.Webhooks.RotateSecret(c.Request().Context(), currentUser(c).FamilyID, id, a.webhookActor(c))
	if err != nil {
		return err
	}
	return a.renderWebhook(c, http.StatusOK, secret)
}

func (a *app) webhookDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := a.Webhooks.Delete(c.Request().Context(), currentUser(c).FamilyID, id, a.webhookActor(c)); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "webhooks.deleted_flash"))
	return redirect(c, "/settings/webhooks")
}

func (a *app) webhookRedeliver(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	deliveryID, err := pathParamID(c, "delivery_id")
	if err != nil {
		return err
	}
	to := "/settings/webhooks/" + id.String()
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if _, err := a.Webhooks.Redeliver(c.Request().Context(), v, id, deliveryID); err != nil {
		return a.refuseTo(c, to, err)
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "webhooks.redelivered_flash"))
	return redirect(c, to)
}
