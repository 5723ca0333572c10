package handlers_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/handlers"
	"tally/models"
	"tally/testkit"
)

func TestOpenAPIDocumentIsServed(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	r := apptest.NewClient(t, srv).Get("/api/v1/openapi.json")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q", ct)
	}
	var head struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title, Version string }
	}
	r.JSON(t, &head)
	if head.OpenAPI != "3.1.0" || head.Info.Title != "Tally API" || head.Info.Version != "v1" {
		t.Fatalf("openapi %q, info %+v", head.OpenAPI, head.Info)
	}
	if r.Body != string(handlers.OpenAPIDocument()) {
		t.Fatal("the served document is not the embedded one")
	}
	if _, err := testkit.LoadAPIValidator([]byte(r.Body)); err != nil {
		t.Fatalf("the served document does not load and validate: %v", err)
	}
}

// knownAPIRoutes are routes the API surely has: they keep the comparison with the router from
// passing vacuously should reading the router's routes go wrong.
var knownAPIRoutes = []string{
	"GET /api/v1/openapi.json",
	"GET /api/v1/accounts", "GET /api/v1/accounts/{id}", "POST /api/v1/accounts",
	"GET /api/v1/imports", "POST /api/v1/imports", "POST /api/v1/imports/preflight",
	"GET /api/v1/imports/{id}", "GET /api/v1/imports/{id}/rows", "GET /api/v1/imports/{id}/file",
	"POST /api/v1/imports/{id}/publish", "POST /api/v1/imports/{id}/revert", "DELETE /api/v1/imports/{id}",
}

// registeredAPIRoutes lists the routes Tally's router has under /api/, as "METHOD /path/{param}".
func registeredAPIRoutes(t *testing.T) []string {
	t.Helper()
	// Registering routes uses none of the dependencies: they are needed only to serve.
	e := handlers.New(handlers.Deps{})
	param := regexp.MustCompile(`:([A-Za-z_]+)`)
	var out []string
	for _, rt := range e.Routes() {
		// Echo adds catch-all routes (for not-found answers under a group); they are not
		// endpoints.
		if !strings.HasPrefix(rt.Path, "/api/") || strings.Contains(rt.Path, "*") {
			continue
		}
		switch rt.Method {
		case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			continue
		}
		out = append(out, rt.Method+" "+param.ReplaceAllString(rt.Path, "{$1}"))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func TestOpenAPIDocumentsEveryAPIRoute(t *testing.T) {
	t.Parallel()
	v := testkit.NewAPIValidator(t, handlers.OpenAPIDocument())
	documented := map[string]bool{}
	for path, item := range v.Doc().Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	registered := registeredAPIRoutes(t)
	for _, route := range knownAPIRoutes {
		if !slices.Contains(registered, route) {
			t.Errorf("the router does not have %s", route)
		}
	}
	for _, route := range registered {
		if !documented[route] {
			t.Errorf("%s is registered but not documented in handlers/openapi.json", route)
		}
	}
	for route := range documented {
		if !slices.Contains(registered, route) {
			t.Errorf("%s is documented but the router does not have it", route)
		}
	}
}

func TestOpenAPIDocumentsAuthentication(t *testing.T) {
	t.Parallel()
	v := testkit.NewAPIValidator(t, handlers.OpenAPIDocument())
	for path, item := range v.Doc().Paths.Map() {
		for method, op := range item.Operations() {
			route := method + " " + path
			if path == "/api/v1/openapi.json" {
				if op.Security == nil || len(*op.Security) != 0 {
					t.Errorf("%s is public, so its security must be []", route)
				}
				continue
			}
			// Either an API key or an OAuth token, each with the same one role.
			if op.Security == nil || len(*op.Security) != 2 || len((*op.Security)[0]["ApiKeyAuth"]) != 1 ||
				len((*op.Security)[1]["OAuth2"]) != 1 || (*op.Security)[0]["ApiKeyAuth"][0] != (*op.Security)[1]["OAuth2"][0] {
				t.Errorf("%s must accept ApiKeyAuth or OAuth2, with the same one role (read or read_write)", route)
				continue
			}
			role := (*op.Security)[0]["ApiKeyAuth"][0]
			if role != models.ScopeRead && role != models.ScopeReadWrite {
				t.Errorf("%s: role %q is not read or read_write", route, role)
			}
			if op.Responses.Status(http.StatusUnauthorized) == nil {
				t.Errorf("%s does not document 401", route)
			}
			if role == models.ScopeReadWrite && op.Responses.Status(http.StatusForbidden) == nil {
				t.Errorf("%s needs read_write but does not document 403", route)
			}
			if op.Description == "" {
				t.Errorf("%s has no description", route)
			}
		}
	}
}

// The roles the document gives each operation are the scopes the server enforces: without a
// key every operation answers 401, and a read key gets 403 exactly where read_write is
// documented. Every answer is also checked against the document by the client.
func TestOpenAPIScopesMatchTheServer(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	readKey := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	c := apptest.NewClient(t, srv)
	v := testkit.NewAPIValidator(t, handlers.OpenAPIDocument())
	for path, item := range v.Doc().Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security == nil || len(*op.Security) == 0 {
				continue
			}
			url := strings.ReplaceAll(path, "{id}", uuid.NewString())
			if r := c.API(method, url, "", nil); r.Status != http.StatusUnauthorized {
				t.Errorf("%s %s without a key answered %d, want 401", method, path, r.Status)
			}
			r := c.API(method, url, readKey, nil)
			forbidden := r.Status == http.StatusForbidden && strings.Contains(r.Body, `"insufficient_scope"`)
			if wantForbidden := (*op.Security)[0]["ApiKeyAuth"][0] == models.ScopeReadWrite; forbidden != wantForbidden {
				t.Errorf("%s %s with a read key answered %d (%s); documented role %v", method, path, r.Status, r.Body, (*op.Security)[0]["ApiKeyAuth"])
			}
		}
	}
}

// tinyAPI is a small OpenAPI 3.1 document for testing the validator itself.
const tinyAPI = `{
  "openapi": "3.1.0",
  "info": {"title": "tiny", "version": "1"},
  "paths": {
    "/api/things/{id}": {
      "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
      "get": {"responses": {"200": {"description": "a thing", "content": {"application/json": {"schema": {
        "type": "object", "required": ["name"], "additionalProperties": false,
        "properties": {"name": {"type": "string"}, "note": {"type": ["string", "null"]}, "id": {"type": "string", "format": "uuid"}}
      }}}}}},
      "delete": {"responses": {"204": {"description": "gone"}}}
    }
  },
  "components": {"schemas": {"ErrorResponse": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}}}
}`

// recordingTB keeps the failures reported to it instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.errors = append(r.errors, msg)
	r.TB.Logf("(expected) %s", msg)
}

func TestAPIValidatorRejectsUndocumentedResponses(t *testing.T) {
	t.Parallel()
	v := testkit.NewAPIValidator(t, []byte(tinyAPI))
	cases := []struct {
		name, method, path string
		status             int
		contentType, body  string
		valid              bool
	}{
		{"documented body", "GET", "/api/things/1", 200, "application/json", `{"name": "a", "note": null}`, true},
		{"nullable field with a value", "GET", "/api/things/1", 200, "application/json; charset=UTF-8", `{"name": "a", "note": "b"}`, true},
		{"version 7 uuid", "GET", "/api/things/1", 200, "application/json", `{"name": "a", "id": "019a0b6e-7c1f-7d3e-9a3b-4c5d6e7f8091"}`, true},
		{"malformed uuid", "GET", "/api/things/1", 200, "application/json", `{"name": "a", "id": "not-a-uuid"}`, false},
		{"missing required field", "GET", "/api/things/1", 200, "application/json", `{"note": "b"}`, false},
		{"null where not nullable", "GET", "/api/things/1", 200, "application/json", `{"name": null}`, false},
		{"wrong type", "GET", "/api/things/1", 200, "application/json", `{"name": 3}`, false},
		{"undocumented field", "GET", "/api/things/1", 200, "application/json", `{"name": "a", "extra": 1}`, false},
		{"not JSON", "GET", "/api/things/1", 200, "application/json", `{`, false},
		{"undocumented content type", "GET", "/api/things/1", 200, "text/html", `<p>hi</p>`, false},
		{"undocumented status", "GET", "/api/things/1", 500, "application/json", `{"error": "x"}`, false},
		{"documented empty response", "DELETE", "/api/things/1", 204, "", ``, true},
		{"body where none is documented", "DELETE", "/api/things/1", 204, "application/json", `{}`, false},
		{"undocumented route answered 404", "GET", "/api/nothing", 404, "application/json", `{"error": "record_not_found"}`, true},
		{"undocumented method answered 404", "POST", "/api/things/1", 404, "application/json", `{"error": "record_not_found"}`, true},
		{"undocumented route answered 200", "GET", "/api/nothing", 200, "application/json", `{"error": "x"}`, false},
		{"undocumented route's 404 is not an ErrorResponse", "GET", "/api/nothing", 404, "application/json", `{"oops": 1}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, "http://tally.test"+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			header := http.Header{}
			if tc.contentType != "" {
				header.Set("Content-Type", tc.contentType)
			}
			rec := &recordingTB{TB: t}
			v.Validate(rec, req, tc.status, header, []byte(tc.body))
			if tc.valid && len(rec.errors) > 0 {
				t.Fatalf("valid response rejected")
			}
			if !tc.valid && len(rec.errors) == 0 {
				t.Fatalf("invalid response accepted")
			}
			for _, msg := range rec.errors {
				if !strings.Contains(msg, tc.method+" "+tc.path+" answered "+strconv.Itoa(tc.status)) {
					t.Errorf("the failure does not name the request and status: %s", msg)
				}
			}
		})
	}
}

func TestAPIValidatorRejectsInvalidDocuments(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"not JSON":       `{`,
		"unknown type":   strings.Replace(tinyAPI, `"type": "object"`, `"type": "thing"`, 1),
		"only null":      strings.Replace(tinyAPI, `["string", "null"]`, `["null"]`, 1),
		"unresolved ref": strings.Replace(tinyAPI, `{"type": "string", "format": "uuid"}`, `{"$ref": "#/components/schemas/Nope"}`, 1),
	} {
		if _, err := testkit.LoadAPIValidator([]byte(doc)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}
