package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Client is a person's browser without JavaScript: it keeps cookies, does not follow
// redirects (tests assert them), and sends the page's CSRF token with forms.
type Client struct {
	tb   testing.TB
	base string
	http *http.Client
	csrf string
	api  *APIValidator
	// Headers go with every request, such as the X-Forwarded-For of a browser elsewhere.
	Headers map[string]string
}

// NewClient returns a client of the server at baseURL with an empty cookie jar.
func NewClient(tb testing.TB, baseURL string) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{tb: tb, base: baseURL, http: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// At returns a client of the server at baseURL that shares this one's cookies and CSRF
// token: the same browser reaching another instance behind a load balancer.
func (c *Client) At(baseURL string) *Client {
	other := *c
	other.base = baseURL
	return &other
}

// ValidateAPI makes the client check every response to a path under /api/ against v's
// document, failing the test on any response the document does not describe.
func (c *Client) ValidateAPI(v *APIValidator) { c.api = v }

// Response is an answer with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Doc parses the body as HTML.
func (r *Response) Doc(tb testing.TB) *goquery.Document {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
	if err != nil {
		tb.Fatalf("parse HTML: %v", err)
	}
	return doc
}

// TestID returns the trimmed text of the element with data-testid id ("" when absent).
func (r *Response) TestID(tb testing.TB, id string) string {
	tb.Helper()
	return strings.TrimSpace(r.Doc(tb).Find(`[data-testid="` + id + `"]`).First().Text())
}

// Has reports whether an element with data-testid id exists.
func (r *Response) Has(tb testing.TB, id string) bool {
	tb.Helper()
	return r.Doc(tb).Find(`[data-testid="`+id+`"]`).Length() > 0
}

// Location is the redirect target.
func (r *Response) Location() string { return r.Header.Get("Location") }

// JSON decodes the body into v.
func (r *Response) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		tb.Fatalf("decode JSON %q: %v", r.Body, err)
	}
}

// Do sends a request with headers and returns the response.
func (c *Client) Do(method, path string, body io.Reader, headers map[string]string) *Response {
	c.tb.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.tb.Fatalf("new request: %v", err)
	}
	for _, hs := range []map[string]string{c.Headers, headers} {
		for k, v := range hs {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
	if c.api != nil && strings.HasPrefix(req.URL.Path, "/api/") {
		c.api.Validate(c.tb, req, resp.StatusCode, resp.Header, b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		if tok, ok := r.Doc(c.tb).Find(`meta[name="csrf-token"]`).Attr("content"); ok && tok != "" {
			c.csrf = tok
		}
	}
	return r
}

// Get fetches path.
func (c *Client) Get(path string) *Response {
	c.tb.Helper()
	return c.Do(http.MethodGet, path, nil, nil)
}

// PostForm submits a form to path with the CSRF token of the last page (fetching the sign-in
// page first when no page has been seen yet).
func (c *Client) PostForm(path string, values url.Values) *Response {
	c.tb.Helper()
	if c.csrf == "" {
		c.Get("/sessions/new")
	}
	v := url.Values{}
	for k, vals := range values {
		v[k] = vals
	}
	if _, ok := v["_csrf"]; !ok {
		v.Set("_csrf", c.csrf)
	}
	return c.Do(http.MethodPost, path, strings.NewReader(v.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
}

// PostFile submits a multipart form to path, as a browser sends a form with a file input:
// values, the CSRF token of the last page, and content as the file field's file called name.
func (c *Client) PostFile(path string, values url.Values, field, name string, content []byte) *Response {
	c.tb.Helper()
	if c.csrf == "" {
		c.Get("/sessions/new")
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if _, ok := values["_csrf"]; !ok {
		w.WriteField("_csrf", c.csrf)
	}
	for k, vals := range values {
		for _, v := range vals {
			w.WriteField(k, v)
		}
	}
	part, err := w.CreateFormFile(field, name)
	if err != nil {
		c.tb.Fatalf("multipart: %v", err)
	}
	part.Write(content)
	w.Close()
	return c.Do(http.MethodPost, path, &body, map[string]string{"Content-Type": w.FormDataContentType()})
}

// SignIn signs in with email and password and fails the test unless it succeeds.
func (c *Client) SignIn(email, password string) {
	c.tb.Helper()
	r := c.PostForm("/sessions", url.Values{"email": {email}, "password": {password}})
	if r.Status != http.StatusSeeOther {
		c.tb.Fatalf("sign in as %s: status %d, body %s", email, r.Status, r.Body)
	}
}

// Cookie returns the value of the named cookie for the server.
func (c *Client) Cookie(name string) string {
	u, _ := url.Parse(c.base)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// SetCookie puts the named cookie into the client's jar for the server: a browser given it
// some other way (copied from another browser, or forged).
func (c *Client) SetCookie(name, value string) {
	u, _ := url.Parse(c.base)
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// API sends a JSON request with an API key (none when key is "").
func (c *Client) API(method, path, key string, body any) *Response {
	c.tb.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.tb.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(b)
	}
	h := map[string]string{"Content-Type": "application/json"}
	if key != "" {
		h["X-Api-Key"] = key
	}
	return c.Do(method, path, rd, h)
}
