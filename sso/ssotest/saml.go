package ssotest

import (
	"bytes"
	"cmp"
	"compress/flate"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crewjam/saml"
	"github.com/crewjam/saml/samlidp"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/net/html"
)

// SAMLIdP is an in-process SAML 2.0 identity provider for tests: crewjam's samlidp on an
// httptest server, with a generated RSA key and certificate. It signs both the Response and
// the Assertion, as most IdPs do.
//
// On top of samlidp it
//   - issues the attributes tests need (email, first_name, last_name, displayName, groups
//     under a configurable name, and any extra ones) from users added with AddUser/PutUser;
//   - honours the NameIDPolicy format of the request;
//   - records every AuthnRequest it receives (Requests), and verifies HTTP-Redirect request
//     signatures against the SP's registered metadata: a request with a bad signature, or an
//     unsigned one from an SP whose metadata says AuthnRequestsSigned, gets 400, as a strict
//     IdP answers;
//   - lets a test edit each assertion before it is signed (EditAssertions), to produce
//     validly signed but unacceptable assertions (wrong audience, expired).
type SAMLIdP struct {
	URL            string // the base URL
	MetadataURL    string // the IdP metadata, with a query unique to this instance
	SSOURL         string // the single sign-on service (HTTP-Redirect and HTTP-POST)
	EntityID       string // the IdP entity id, which samlidp makes its metadata URL
	CertificatePEM string // the signing certificate

	Key         *rsa.PrivateKey
	Certificate *x509.Certificate
	// Server is the underlying crewjam IdP, for tests that need more than this type offers.
	Server *samlidp.Server

	tb  testing.TB
	srv *httptest.Server

	mu         sync.Mutex
	users      map[string]SAMLUser
	sps        map[string]*saml.EntityDescriptor // by entity id
	requests   []SAMLAuthnRequest
	groupsAttr string
	edit       func(*saml.Assertion)
	metadataN  int
}

// SAMLUser is an account at the IdP and what its assertions say.
type SAMLUser struct {
	Name     string // the login name
	Password string
	// Email goes into the "email" attribute, and is the NameID unless NameID is set.
	Email       string
	NameID      string
	FirstName   string // "first_name"
	LastName    string // "last_name"
	DisplayName string // "displayName"
	Groups      []string
	// Attributes are extra attributes, by name.
	Attributes map[string][]string
}

// SAMLAuthnRequest is an AuthnRequest the IdP received by HTTP-Redirect.
type SAMLAuthnRequest struct {
	ID             string
	Issuer         string // the SP entity id
	Destination    string
	ACSURL         string
	NameIDFormat   string
	RelayState     string
	SigAlg         string
	Signed         bool // the URL carried a Signature
	SignatureValid bool // and it verified with the SP's registered signing certificate
}

// SAMLPost is what the browser would POST to the service provider's ACS.
type SAMLPost struct {
	ACSURL       string
	SAMLResponse string
	RelayState   string
}

// Form is the POST body.
func (p SAMLPost) Form() url.Values {
	return url.Values{"SAMLResponse": {p.SAMLResponse}, "RelayState": {p.RelayState}}
}

// Request is the POST to the ACS, as a server-side request.
func (p SAMLPost) Request() *http.Request {
	r := httptest.NewRequest(http.MethodPost, p.ACSURL, strings.NewReader(p.Form().Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// NewSAMLIdP starts an IdP, stopped at the end of the test.
func NewSAMLIdP(tb testing.TB) *SAMLIdP {
	tb.Helper()
	key, cert, certPEM, err := samlSelfSigned("ssotest SAML IdP")
	if err != nil {
		tb.Fatalf("ssotest: IdP key: %v", err)
	}
	idp := &SAMLIdP{
		Key: key, Certificate: cert, CertificatePEM: certPEM, tb: tb,
		users: map[string]SAMLUser{}, sps: map[string]*saml.EntityDescriptor{},
	}
	// Unstarted, so that the handler is complete before the first request can arrive.
	idp.srv = httptest.NewUnstartedServer(idp)
	base, err := url.Parse("http://" + idp.srv.Listener.Addr().String())
	if err != nil {
		tb.Fatalf("ssotest: IdP URL: %v", err)
	}
	idp.Server, err = samlidp.New(samlidp.Options{
		URL: *base, Key: key, Signer: key, Certificate: cert,
		Store:  &samlidp.MemoryStore{},
		Logger: log.New(samlTBWriter{tb}, "samlidp: ", 0),
	})
	if err != nil {
		tb.Fatalf("ssotest: samlidp: %v", err)
	}
	// samlidp v0.5.1 points its login form at /login, which only answers the session as
	// JSON; posting it back to the SSO service continues the sign-in instead.
	idp.Server.IDP.LoginURL = idp.Server.IDP.SSOURL
	idp.Server.IDP.SessionProvider = samlSessions{idp}
	idp.Server.IDP.AssertionMaker = samlAssertionMaker{idp}
	idp.srv.Start()
	tb.Cleanup(idp.srv.Close)

	idp.URL = idp.srv.URL
	// The query makes the URL unique to this IdP: a metadata cache keyed by URL must not hand
	// a later test's IdP, which may get the same port, this one's certificate.
	idp.MetadataURL = idp.Server.IDP.MetadataURL.String() + "?instance=" + rand.Text()
	idp.SSOURL = idp.Server.IDP.SSOURL.String()
	idp.EntityID = idp.Server.IDP.MetadataURL.String()
	return idp
}

// Client is an HTTP client for the IdP's server.
func (idp *SAMLIdP) Client() *http.Client { return idp.srv.Client() }

// ServeHTTP records and checks HTTP-Redirect AuthnRequests, counts metadata fetches, and
// hands everything to samlidp.
func (idp *SAMLIdP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/sso" && r.Method == http.MethodGet:
		if err := idp.inspectRedirect(r); err != nil {
			idp.tb.Logf("ssotest: IdP refuses the AuthnRequest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	case r.URL.Path == "/metadata":
		idp.mu.Lock()
		idp.metadataN++
		idp.mu.Unlock()
	}
	idp.Server.ServeHTTP(w, r)
}

// AddUser adds (or replaces) a user whose NameID and "email" attribute are email.
func (idp *SAMLIdP) AddUser(name, email, password string, groups ...string) {
	idp.PutUser(SAMLUser{Name: name, Email: email, Password: password, Groups: groups})
}

// PutUser adds or replaces a user.
func (idp *SAMLIdP) PutUser(u SAMLUser) {
	idp.tb.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(u.Password), bcrypt.MinCost)
	if err != nil {
		idp.tb.Fatalf("ssotest: password of %s: %v", u.Name, err)
	}
	// samlidp keeps only the credentials; what the assertion says comes from SAMLUser.
	if err := idp.Server.Store.Put("/users/"+u.Name, samlidp.User{Name: u.Name, HashedPassword: hash}); err != nil {
		idp.tb.Fatalf("ssotest: storing %s: %v", u.Name, err)
	}
	idp.mu.Lock()
	defer idp.mu.Unlock()
	idp.users[u.Name] = u
}

// SetGroupsAttribute names the attribute carrying groups (default "groups").
func (idp *SAMLIdP) SetGroupsAttribute(name string) {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	idp.groupsAttr = name
}

// EditAssertions makes the IdP pass every assertion it issues through edit before signing
// it; nil stops editing.
func (idp *SAMLIdP) EditAssertions(edit func(*saml.Assertion)) {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	idp.edit = edit
}

// Requests returns the AuthnRequests received so far.
func (idp *SAMLIdP) Requests() []SAMLAuthnRequest {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	return slices.Clone(idp.requests)
}

// MetadataFetches is how many times the IdP metadata was requested.
func (idp *SAMLIdP) MetadataFetches() int {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	return idp.metadataN
}

// RegisterSP registers a service provider by its metadata (an EntityDescriptor, or an
// EntitiesDescriptor holding one).
func (idp *SAMLIdP) RegisterSP(tb testing.TB, metadataXML []byte) {
	tb.Helper()
	ed, err := samlParseSPMetadata(metadataXML)
	if err != nil {
		tb.Fatalf("ssotest: SP metadata: %v", err)
	}
	sum := sha256.Sum256([]byte(ed.EntityID))
	req, err := http.NewRequest(http.MethodPut, idp.URL+"/services/"+hex.EncodeToString(sum[:8]), bytes.NewReader(metadataXML))
	if err != nil {
		tb.Fatalf("ssotest: %v", err)
	}
	resp, err := idp.Client().Do(req)
	if err != nil {
		tb.Fatalf("ssotest: registering the SP: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		tb.Fatalf("ssotest: registering the SP: HTTP %d", resp.StatusCode)
	}
	idp.mu.Lock()
	defer idp.mu.Unlock()
	idp.sps[ed.EntityID] = ed
}

// RegisterSPFromURL fetches a service provider's metadata and registers it.
func (idp *SAMLIdP) RegisterSPFromURL(tb testing.TB, client *http.Client, metadataURL string) {
	tb.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Get(metadataURL)
	if err != nil {
		tb.Fatalf("ssotest: fetching SP metadata: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("ssotest: fetching SP metadata: HTTP %d, %v", resp.StatusCode, err)
	}
	idp.RegisterSP(tb, body)
}

// Login plays a browser without cookies: it follows redirectURL (an SP's AuthnRequest),
// signs in as user, and returns what the browser would POST to the SP's ACS.
func (idp *SAMLIdP) Login(redirectURL, user, password string) (SAMLPost, error) {
	jar, _ := cookiejar.New(nil)
	return SAMLBrowserLogin(&http.Client{Jar: jar, Timeout: 10 * time.Second}, redirectURL, user, password)
}

// SAMLBrowserLogin plays the browser with client (give it a cookie jar to keep the IdP
// session between logins): it GETs redirectURL, fills in the IdP's login form if one is
// shown (user in its text field, password in its password field), and reads the
// auto-submitting form the IdP answers with. It does not POST that form.
func SAMLBrowserLogin(client *http.Client, redirectURL, user, password string) (SAMLPost, error) {
	page, form, err := samlGetForm(client, redirectURL)
	if err != nil {
		return SAMLPost{}, err
	}
	if form.fields.Get("SAMLResponse") == "" {
		form.fill(user, password)
		page, form, err = samlPostForm(client, page, form)
		if err != nil {
			return SAMLPost{}, err
		}
	}
	if form.fields.Get("SAMLResponse") == "" {
		return SAMLPost{}, fmt.Errorf("ssotest: the IdP answered no SAMLResponse (login refused?): %s", form.text)
	}
	acs, err := page.Parse(form.action)
	if err != nil {
		return SAMLPost{}, fmt.Errorf("ssotest: the response form's action: %w", err)
	}
	return SAMLPost{ACSURL: acs.String(), SAMLResponse: form.fields.Get("SAMLResponse"), RelayState: form.fields.Get("RelayState")}, nil
}

// samlSessions adds what the assertion says about the user to samlidp's session: the
// NameID, in the requested format, and the attributes.
type samlSessions struct{ idp *SAMLIdP }

func (s samlSessions) GetSession(w http.ResponseWriter, r *http.Request, req *saml.IdpAuthnRequest) *saml.Session {
	session := s.idp.Server.GetSession(w, r, req)
	if session == nil {
		return nil
	}
	s.idp.mu.Lock()
	u, ok := s.idp.users[session.UserName]
	groupsAttr := cmp.Or(s.idp.groupsAttr, "groups")
	s.idp.mu.Unlock()
	if !ok {
		http.Error(w, "unknown user", http.StatusForbidden)
		return nil
	}
	out := *session
	out.NameID = cmp.Or(u.NameID, u.Email, u.Name)
	out.NameIDFormat = string(saml.UnspecifiedNameIDFormat)
	if p := req.Request.NameIDPolicy; p != nil && p.Format != nil && *p.Format != "" {
		out.NameIDFormat = *p.Format
	}
	out.CustomAttributes = u.attributes(groupsAttr)
	return &out
}

// attributes are the user's assertion attributes, with groups under groupsAttr.
func (u SAMLUser) attributes(groupsAttr string) []saml.Attribute {
	var attrs []saml.Attribute
	add := func(name string, values ...string) {
		if len(values) == 0 || (len(values) == 1 && values[0] == "") {
			return
		}
		a := saml.Attribute{Name: name, NameFormat: "urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified"}
		for _, v := range values {
			a.Values = append(a.Values, saml.AttributeValue{Type: "xs:string", Value: v})
		}
		attrs = append(attrs, a)
	}
	add("email", u.Email)
	add("first_name", u.FirstName)
	add("last_name", u.LastName)
	add("displayName", u.DisplayName)
	add(groupsAttr, u.Groups...)
	names := make([]string, 0, len(u.Attributes))
	for name := range u.Attributes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		add(name, u.Attributes[name]...)
	}
	return attrs
}

// samlAssertionMaker is crewjam's default, then the test's edit.
type samlAssertionMaker struct{ idp *SAMLIdP }

func (m samlAssertionMaker) MakeAssertion(req *saml.IdpAuthnRequest, session *saml.Session) error {
	if err := (saml.DefaultAssertionMaker{}).MakeAssertion(req, session); err != nil {
		return err
	}
	m.idp.mu.Lock()
	edit := m.idp.edit
	m.idp.mu.Unlock()
	if edit != nil {
		edit(req.Assertion)
	}
	return nil
}

// inspectRedirect records an HTTP-Redirect AuthnRequest and checks its signature. A request
// that does not decode is left for samlidp to refuse.
func (idp *SAMLIdP) inspectRedirect(r *http.Request) error {
	q := r.URL.Query()
	ar, err := samlInflateRequest(q.Get("SAMLRequest"))
	if err != nil {
		return nil
	}
	rec := SAMLAuthnRequest{
		ID: ar.ID, Destination: ar.Destination, ACSURL: ar.AssertionConsumerServiceURL,
		RelayState: q.Get("RelayState"), SigAlg: q.Get("SigAlg"), Signed: q.Get("Signature") != "",
	}
	if ar.Issuer != nil {
		rec.Issuer = ar.Issuer.Value
	}
	if p := ar.NameIDPolicy; p != nil && p.Format != nil {
		rec.NameIDFormat = *p.Format
	}
	idp.mu.Lock()
	sp := idp.sps[rec.Issuer]
	idp.mu.Unlock()

	var sigErr error
	if rec.Signed {
		sigErr = samlVerifyRedirect(r.URL.RawQuery, q, sp)
		rec.SignatureValid = sigErr == nil
	}
	idp.mu.Lock()
	idp.requests = append(idp.requests, rec)
	idp.mu.Unlock()

	switch {
	case sigErr != nil:
		return sigErr
	case !rec.Signed && sp != nil && samlWantsSigned(sp):
		return errors.New("the SP's metadata says its requests are signed, and this one is not")
	}
	return nil
}

// samlInflateRequest decodes an HTTP-Redirect SAMLRequest (base64 of raw DEFLATE), bounded.
func samlInflateRequest(s string) (*saml.AuthnRequest, error) {
	compressed, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(compressed)), 1<<20))
	if err != nil {
		return nil, err
	}
	var ar saml.AuthnRequest
	if err := xml.Unmarshal(data, &ar); err != nil {
		return nil, err
	}
	return &ar, nil
}

// samlVerifyRedirect checks an HTTP-Redirect binding signature (SAML bindings §3.4.4.1): over
// "SAMLRequest=…&RelayState=…&SigAlg=…" exactly as the values appear, URL-encoded, in the query.
func samlVerifyRedirect(rawQuery string, q url.Values, sp *saml.EntityDescriptor) error {
	if sp == nil {
		return errors.New("signed request from an unregistered SP")
	}
	raw := map[string]string{}
	for part := range strings.SplitSeq(rawQuery, "&") {
		k, v, _ := strings.Cut(part, "=")
		if _, dup := raw[k]; !dup {
			raw[k] = v
		}
	}
	signed := "SAMLRequest=" + raw["SAMLRequest"]
	if v, ok := raw["RelayState"]; ok {
		signed += "&RelayState=" + v
	}
	signed += "&SigAlg=" + raw["SigAlg"]

	hashes := map[string]crypto.Hash{
		"http://www.w3.org/2000/09/xmldsig#rsa-sha1":        crypto.SHA1,
		"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": crypto.SHA256,
		"http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": crypto.SHA512,
	}
	h, ok := hashes[q.Get("SigAlg")]
	if !ok {
		return fmt.Errorf("unsupported SigAlg %q", q.Get("SigAlg"))
	}
	sig, err := base64.StdEncoding.DecodeString(q.Get("Signature"))
	if err != nil {
		return fmt.Errorf("signature is not base64: %w", err)
	}
	digest := samlDigest(h, []byte(signed))
	for _, cert := range samlSigningCerts(sp) {
		if pub, ok := cert.PublicKey.(*rsa.PublicKey); ok && rsa.VerifyPKCS1v15(pub, h, digest, sig) == nil {
			return nil
		}
	}
	return errors.New("the request signature does not verify with the SP's signing certificate")
}

func samlDigest(h crypto.Hash, data []byte) []byte {
	switch h {
	case crypto.SHA1:
		d := sha1.Sum(data)
		return d[:]
	case crypto.SHA512:
		d := sha512.Sum512(data)
		return d[:]
	default:
		d := sha256.Sum256(data)
		return d[:]
	}
}

func samlSigningCerts(sp *saml.EntityDescriptor) []*x509.Certificate {
	var certs []*x509.Certificate
	for _, d := range sp.SPSSODescriptors {
		for _, k := range d.KeyDescriptors {
			if k.Use != "" && k.Use != "signing" {
				continue
			}
			for _, c := range k.KeyInfo.X509Data.X509Certificates {
				der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(c.Data), ""))
				if err != nil {
					continue
				}
				if cert, err := x509.ParseCertificate(der); err == nil {
					certs = append(certs, cert)
				}
			}
		}
	}
	return certs
}

func samlWantsSigned(sp *saml.EntityDescriptor) bool {
	for _, d := range sp.SPSSODescriptors {
		if d.AuthnRequestsSigned != nil && *d.AuthnRequestsSigned {
			return true
		}
	}
	return false
}

func samlParseSPMetadata(data []byte) (*saml.EntityDescriptor, error) {
	var ed saml.EntityDescriptor
	err := xml.Unmarshal(data, &ed)
	if err == nil {
		return &ed, nil
	}
	var eds saml.EntitiesDescriptor
	if xml.Unmarshal(data, &eds) == nil {
		for i := range eds.EntityDescriptors {
			if len(eds.EntityDescriptors[i].SPSSODescriptors) > 0 {
				return &eds.EntityDescriptors[i], nil
			}
		}
	}
	return nil, err
}

// samlForm is the first form of a page.
type samlForm struct {
	action  string
	fields  url.Values
	userKey string // the first text or email input
	passKey string // the first password input
	text    string // the page's text, for error messages
}

func (f *samlForm) fill(user, password string) {
	if f.userKey != "" {
		f.fields.Set(f.userKey, user)
	}
	if f.passKey != "" {
		f.fields.Set(f.passKey, password)
	}
}

func samlGetForm(client *http.Client, u string) (*url.URL, *samlForm, error) {
	resp, err := client.Get(u)
	if err != nil {
		return nil, nil, fmt.Errorf("ssotest: GET %s: %w", u, err)
	}
	return samlReadForm(resp)
}

func samlPostForm(client *http.Client, page *url.URL, f *samlForm) (*url.URL, *samlForm, error) {
	action, err := page.Parse(f.action)
	if err != nil {
		return nil, nil, fmt.Errorf("ssotest: the login form's action: %w", err)
	}
	resp, err := client.PostForm(action.String(), f.fields)
	if err != nil {
		return nil, nil, fmt.Errorf("ssotest: POST %s: %w", action, err)
	}
	return samlReadForm(resp)
}

func samlReadForm(resp *http.Response) (*url.URL, *samlForm, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("ssotest: %s answered HTTP %d: %s", resp.Request.URL, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	f, err := samlParseForm(body)
	if err != nil {
		return nil, nil, err
	}
	return resp.Request.URL, f, nil
}

// samlParseForm reads the first <form> of an HTML page: its action and inputs.
func samlParseForm(page []byte) (*samlForm, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	f := &samlForm{fields: url.Values{}}
	var text strings.Builder
	inForm, seenForm := false, false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "form" && !seenForm {
			seenForm, inForm = true, true
			f.action = samlAttr(n, "action")
			defer func() { inForm = false }()
		}
		if inForm && n.Type == html.ElementNode && n.Data == "input" {
			f.addInput(n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	f.text = strings.Join(strings.Fields(text.String()), " ")
	if !seenForm {
		return nil, fmt.Errorf("ssotest: the page has no form: %s", f.text)
	}
	return f, nil
}

func (f *samlForm) addInput(n *html.Node) {
	name := samlAttr(n, "name")
	if name == "" {
		return
	}
	switch strings.ToLower(samlAttr(n, "type")) {
	case "submit", "button", "image", "reset":
		return
	case "password":
		if f.passKey == "" {
			f.passKey = name
		}
	case "", "text", "email":
		if f.userKey == "" {
			f.userKey = name
		}
	}
	f.fields.Add(name, samlAttr(n, "value"))
}

func samlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// samlSelfSigned makes an RSA-2048 key and a self-signed certificate.
func samlSelfSigned(cn string) (*rsa.PrivateKey, *x509.Certificate, string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, "", err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, "", err
	}
	return key, cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}

// samlTBWriter sends samlidp's log to the test's log.
type samlTBWriter struct{ tb testing.TB }

func (w samlTBWriter) Write(p []byte) (int, error) {
	w.tb.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}
