package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/dates"
)

// decodeStrict reads the request's JSON object into v, refusing fields v does not have: a
// 400 saying what the body must be (what, such as "a category").
func decodeStrict(c echo.Context, v any, what string) error {
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apperr.Wrap(apperr.BadRequest, err, "The request body must be "+what+" as a JSON object: "+err.Error())
	}
	return nil
}

// nullableID reads a JSON field that holds an id or null, recording a problem on field: nil
// when the field was absent, a nil id when it was null.
func nullableID(v *apperr.Validation, field string, raw json.RawMessage) **uuid.UUID {
	if len(raw) == 0 {
		return nil
	}
	var id *uuid.UUID
	if !bytes.Equal(raw, []byte("null")) {
		var s string
		parsed, err := uuid.Nil, json.Unmarshal(raw, &s)
		if err == nil {
			parsed, err = uuid.Parse(s)
		}
		if err != nil {
			v.Add(field, field+" must be an id or null")
		}
		id = &parsed
	}
	return &id
}

// queryID reads an optional id from the query parameter name, recording a problem on it.
func queryID(v *apperr.Validation, query url.Values, name string) *uuid.UUID {
	s := query.Get(name)
	if s == "" {
		return nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		v.Add(name, fmt.Sprintf("%s %q is not an id", name, s))
		return nil
	}
	return &id
}

// queryDate reads an optional date (YYYY-MM-DD, dates.Day) from the query parameter name,
// recording a problem on it.
func queryDate(v *apperr.Validation, query url.Values, name string) *time.Time {
	s := query.Get(name)
	if s == "" {
		return nil
	}
	d, err := dates.Day(name, s)
	if err != nil {
		v.Merge(err)
		return nil
	}
	return &d
}
