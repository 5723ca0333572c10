package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// APIValidator checks HTTP responses against an OpenAPI document: the route, the status and
// the body must all be documented.
type APIValidator struct {
	doc    *openapi3.T
	router routers.Router
}

// uuidFormat is any RFC 9562 UUID: kin-openapi's predefined pattern accepts versions 1 to 5
// only, and Tally's ids are version 7.
const uuidFormat = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// defineFormats registers the formats kin-openapi does not check by default; the registry is
// global, so it is written once, before any validator exists.
var defineFormats = sync.OnceFunc(func() {
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(uuidFormat))
})

// NewAPIValidator builds a validator from an OpenAPI 3.1 document, failing the test when the
// document does not load or is invalid.
func NewAPIValidator(tb testing.TB, doc []byte) *APIValidator {
	tb.Helper()
	v, err := LoadAPIValidator(doc)
	if err != nil {
		tb.Fatalf("OpenAPI document: %v", err)
	}
	return v
}

// LoadAPIValidator builds a validator from an OpenAPI 3.1 document, or says why it cannot.
//
// kin-openapi v0.133.0 reads 3.1 type arrays such as ["string", "null"] and validates values
// against them, but its document check rejects "null" as a type. So, once loaded, the
// document's nullable types are rewritten to the equivalent 3.0 form (nullable: true), which
// the document check accepts and value validation treats the same way.
func LoadAPIValidator(doc []byte) (*APIValidator, error) {
	// The export answers NDJSON, which kin-openapi has no decoder for: its body is text.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
	defineFormats()
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := nullTypesToNullable(t); err != nil {
		return nil, err
	}
	// legacy.NewRouter validates the document first, and its errors name the route that
	// failed to match, unlike gorillamux's. kin-openapi does not know OpenAPI 3.1's top-level
	// webhooks (the events Tally sends), and keeps them aside unchecked.
	router, err := legacy.NewRouter(t, openapi3.EnableSchemaFormatValidation(), openapi3.AllowExtraSiblingFields("webhooks"))
	if err != nil {
		return nil, err
	}
	return &APIValidator{doc: t, router: router}, nil
}

// Doc returns the loaded document, for tests that inspect its operations.
func (v *APIValidator) Doc() *openapi3.T { return v.doc }

// Validate fails the test unless the response to req (its status, header and body) is one
// the document describes. A request to a route the document does not have passes only when
// it was answered 404, since then the server agrees the route does not exist; its body must
// still be the document's ErrorResponse, when the document has one.
func (v *APIValidator) Validate(tb testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	tb.Helper()
	if err := v.check(req, status, header, body); err != nil {
		tb.Errorf("OpenAPI: %s %s answered %d, which the document does not describe: %v\nbody: %s",
			req.Method, req.URL.Path, status, err, truncate(body, 2000))
	}
}

func (v *APIValidator) check(req *http.Request, status int, header http.Header, body []byte) error {
	// HEAD is answered as GET without a body.
	lookup := req
	if req.Method == http.MethodHead {
		lookup = req.Clone(context.Background())
		lookup.Method = http.MethodGet
	}
	route, params, err := v.router.FindRoute(lookup)
	if err != nil {
		var routeErr *routers.RouteError
		if !errors.As(err, &routeErr) {
			return err
		}
		if status != http.StatusNotFound {
			return fmt.Errorf("route not documented (%v)", err)
		}
		return v.checkUndocumented(header, body)
	}
	resp := route.Operation.Responses.Status(status)
	if resp == nil {
		resp = route.Operation.Responses.Default()
	}
	if resp == nil {
		return fmt.Errorf("status %d is not documented for %s %s", status, route.Method, route.Path)
	}
	// kin-openapi skips the body of a response documented without content; such a response
	// must have no body at all.
	if len(resp.Value.Content) == 0 && len(body) > 0 {
		return fmt.Errorf("status %d of %s %s is documented without a body, but it has one", status, route.Method, route.Path)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// checkUndocumented validates a 404 from a route the document does not have against its
// ErrorResponse schema.
func (v *APIValidator) checkUndocumented(header http.Header, body []byte) error {
	if v.doc.Components == nil || v.doc.Components.Schemas["ErrorResponse"] == nil {
		return nil
	}
	schema := v.doc.Components.Schemas["ErrorResponse"].Value
	if mt, _, _ := mime.ParseMediaType(header.Get("Content-Type")); mt != "application/json" {
		return fmt.Errorf("404 of an undocumented route has content type %q, not application/json", header.Get("Content-Type"))
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("404 of an undocumented route: %w", err)
	}
	if err := schema.VisitJSON(value, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("404 of an undocumented route is not an ErrorResponse: %w", err)
	}
	return nil
}

// nullTypesToNullable rewrites every schema whose type list includes "null" to list the other
// types and set nullable, in place; see LoadAPIValidator for why.
func nullTypesToNullable(t *openapi3.T) error {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef) error
	walk = func(ref *openapi3.SchemaRef) error {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return nil
		}
		s := ref.Value
		seen[s] = true
		if s.Type != nil && s.Type.Includes(openapi3.TypeNull) {
			others := slices.DeleteFunc(slices.Clone(s.Type.Slice()), func(t string) bool { return t == openapi3.TypeNull })
			if len(others) == 0 {
				// An empty type list would allow any value, not only null.
				return fmt.Errorf("a schema whose only type is null is not supported by this validator")
			}
			types := openapi3.Types(others)
			s.Type = &types
			s.Nullable = true
		}
		children := []*openapi3.SchemaRef{s.Items, s.Not}
		children = append(children, s.OneOf...)
		children = append(children, s.AnyOf...)
		children = append(children, s.AllOf...)
		for _, p := range s.Properties {
			children = append(children, p)
		}
		if s.AdditionalProperties.Schema != nil {
			children = append(children, s.AdditionalProperties.Schema)
		}
		for _, c := range children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	var roots []*openapi3.SchemaRef
	content := func(c openapi3.Content) {
		for _, mt := range c {
			roots = append(roots, mt.Schema)
		}
	}
	params := func(ps openapi3.Parameters) {
		for _, p := range ps {
			if p.Value != nil {
				roots = append(roots, p.Value.Schema)
				content(p.Value.Content)
			}
		}
	}
	headers := func(hs openapi3.Headers) {
		for _, h := range hs {
			if h.Value != nil {
				roots = append(roots, h.Value.Schema)
				content(h.Value.Content)
			}
		}
	}
	if c := t.Components; c != nil {
		for _, s := range c.Schemas {
			roots = append(roots, s)
		}
		for _, p := range c.Parameters {
			params(openapi3.Parameters{p})
		}
		headers(c.Headers)
		for _, r := range c.Responses {
			if r.Value != nil {
				content(r.Value.Content)
				headers(r.Value.Headers)
			}
		}
		for _, b := range c.RequestBodies {
			if b.Value != nil {
				content(b.Value.Content)
			}
		}
	}
	if t.Paths != nil {
		for _, item := range t.Paths.Map() {
			params(item.Parameters)
			for _, op := range item.Operations() {
				params(op.Parameters)
				if op.RequestBody != nil && op.RequestBody.Value != nil {
					content(op.RequestBody.Value.Content)
				}
				if op.Responses != nil {
					for _, r := range op.Responses.Map() {
						if r.Value != nil {
							content(r.Value.Content)
							headers(r.Value.Headers)
						}
					}
				}
			}
		}
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return err
		}
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
