package sso

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml"
	xrv "github.com/mattermost/xml-roundtrip-validator"
	dsig "github.com/russellhaering/goxmldsig"
)

// The SAML strategy is a service provider built on crewjam/saml: an HTTP-Redirect
// AuthnRequest (signed when the provider says so), and an HTTP-POST response at the ACS that
// crewjam verifies (signature, issuer, audience, destination, InResponseTo, time conditions).
// Around crewjam this file adds what a sign-in needs on top: the flow's RelayState and age,
// one assertion per response, expiry against the service's clock, and replay protection.
//
// Clock skew: crewjam's package defaults (saml.MaxClockSkew = 180s on NotBefore and
// NotOnOrAfter, saml.MaxIssueDelay = 90s after IssueInstant) are kept as they are. They are
// globals shared with every other user of the library in the process, so they are only read.

const (
	// samlMaxMetadata bounds an IdP metadata document: real ones are a few kilobytes, large
	// federation aggregates are not something a single provider should point at.
	samlMaxMetadata = 1 << 20
	// samlMaxResponse bounds a decoded SAMLResponse; the form around it may be a third larger.
	samlMaxResponse = 1 << 20
	samlMaxForm     = samlMaxResponse*4/3 + 64<<10
	// samlMetadataTTL is how long a fetched IdP metadata document is reused, so that a sign-in
	// does not fetch it twice (Begin and Complete) and a certificate rollover is picked up soon.
	samlMetadataTTL = 5 * time.Minute
)

// Attribute names, first match wins (as in Sure, plus the Azure display name).
var (
	samlEmailAttrs  = []string{"email", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}
	samlFirstAttrs  = []string{"first_name", "givenName", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"}
	samlLastAttrs   = []string{"last_name", "surname", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"}
	samlNameAttrs   = []string{"displayName", "name", "http://schemas.microsoft.com/identity/claims/displayname"}
	samlGroupsAttrs = []string{"groups", "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups"}
)

// samlDefaultHTTP fetches metadata when Env has no client: never without a timeout.
var samlDefaultHTTP = &http.Client{Timeout: 15 * time.Second}

type samlStrategy struct{}

// SAML returns the SAML strategy.
func SAML() Strategy { return samlStrategy{} }

// Begin builds the AuthnRequest and returns the IdP's HTTP-Redirect URL carrying it.
func (samlStrategy) Begin(ctx context.Context, p *Provider, env Env, purpose string) (string, Flow, error) {
	sp, err := samlServiceProvider(ctx, p, env, true)
	if err != nil {
		return "", Flow{}, err
	}
	ssoURL := sp.GetSSOBindingLocation(saml.HTTPRedirectBinding)
	if ssoURL == "" {
		return "", Flow{}, fail(ReasonProviderUnavailable, msgUnavailable, errors.New("saml: the IdP has no HTTP-Redirect single sign-on service"))
	}
	req, err := sp.MakeAuthenticationRequest(ssoURL, saml.HTTPRedirectBinding, saml.HTTPPostBinding)
	if err != nil {
		return "", Flow{}, fmt.Errorf("saml: authn request: %w", err)
	}
	state := randomToken()
	// Redirect signs the query string (SAMLRequest, RelayState, SigAlg) when SignatureMethod
	// is set. It appends RelayState unescaped, which is why the state is base64url.
	u, err := req.Redirect(state, sp)
	if err != nil {
		return "", Flow{}, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("saml: redirect: %w", err))
	}
	f := Flow{Provider: p.Name, State: state, RequestID: req.ID, Purpose: purpose, StartedAt: samlNow(env)}
	return u.String(), f, nil
}

// Complete verifies the IdP's POST to the ACS and returns who signed in.
func (samlStrategy) Complete(ctx context.Context, p *Provider, env Env, r *http.Request, f Flow) (*Identity, error) {
	form, err := samlCallbackForm(r, p, env, f)
	if err != nil {
		return nil, err
	}
	raw, err := samlDecodeResponse(form.Get("SAMLResponse"))
	if err != nil {
		return nil, fail(ReasonInvalidResponse, msgInvalid, err)
	}
	sp, err := samlServiceProvider(ctx, p, env, true)
	if err != nil {
		return nil, err
	}
	assertion, err := samlVerify(sp, raw, f.RequestID)
	if err != nil {
		return nil, err
	}
	now := samlNow(env)
	if err := samlCheckExpiry(assertion, now); err != nil {
		return nil, fail(ReasonInvalidResponse, msgInvalid, err)
	}
	if err := samlUseOnce(ctx, env, assertion, now); err != nil {
		return nil, err
	}
	return samlIdentity(p, assertion)
}

// samlCallbackForm reads the ACS form (bounded) and checks that it belongs to flow f: the
// RelayState is the flow's state, and the flow is recent. Only the POST body counts: the
// HTTP-POST binding carries nothing in the query.
func samlCallbackForm(r *http.Request, p *Provider, env Env, f Flow) (url.Values, error) {
	if r.PostForm == nil && r.Body != nil {
		r.Body = http.MaxBytesReader(nil, r.Body, samlMaxForm)
	}
	if err := r.ParseForm(); err != nil {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("saml: reading the ACS form: %w", err))
	}
	form := r.PostForm
	relay := form.Get("RelayState")
	if f.Provider != p.Name || f.State == "" || f.RequestID == "" || relay == "" ||
		subtle.ConstantTimeCompare([]byte(relay), []byte(f.State)) != 1 {
		return nil, fail(ReasonInvalidState, msgTryAgain, errors.New("saml: the response's RelayState is not this sign-in's"))
	}
	if samlNow(env).Sub(f.StartedAt) > FlowLifetime {
		return nil, fail(ReasonExpired, "The sign-in took too long. Please try again.", nil)
	}
	return form, nil
}

// samlDecodeResponse base64-decodes the SAMLResponse field, refusing oversized ones before
// decoding them.
func samlDecodeResponse(field string) ([]byte, error) {
	if field == "" {
		return nil, errors.New("saml: the ACS form has no SAMLResponse")
	}
	if base64.StdEncoding.DecodedLen(len(field)) > samlMaxResponse+3 {
		return nil, errors.New("saml: the SAMLResponse is too large")
	}
	raw, err := base64.StdEncoding.DecodeString(field)
	if err != nil {
		return nil, fmt.Errorf("saml: the SAMLResponse is not base64: %w", err)
	}
	return raw, nil
}

// samlVerify has crewjam check the response for the request it answers, after refusing
// responses with more than one assertion anywhere in them.
//
// crewjam returns the first assertion that verifies, which is right, but a response carrying
// several is the shape of every signature-wrapping attack and never what an IdP sends for an
// SP-initiated sign-in; refusing it outright (as ruby-saml does) leaves no room for a parser
// disagreement about which assertion was meant.
func samlVerify(sp *saml.ServiceProvider, raw []byte, requestID string) (a *saml.Assertion, err error) {
	n, err := samlCountAssertions(raw)
	if err != nil {
		return nil, fail(ReasonInvalidResponse, msgInvalid, err)
	}
	if n > 1 {
		// None is left to crewjam: an error status carries no assertion.
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("saml: the response carries %d assertions, want one", n))
	}
	// crewjam dereferences optional elements (Subject, Conditions) of an assertion whose
	// signature verified; a trusted but odd IdP must not take the server down with it.
	defer func() {
		if v := recover(); v != nil {
			a, err = nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("saml: malformed assertion: %v", v))
		}
	}()
	// The ACS URL stands for the URL the response was posted to: behind a proxy the request's
	// own URL is not the public one, and crewjam accepts the ACS URL as Destination anyway.
	a, err = sp.ParseXMLResponse(raw, []string{requestID}, sp.AcsURL)
	if err != nil {
		return nil, samlParseFailure(err)
	}
	return a, nil
}

// samlParseFailure turns crewjam's error into a Failure. crewjam's InvalidResponseError says
// only "Authentication failed"; the reason is in PrivateErr, for the log, never the person.
// An IdP answering with a non-success status is a denial rather than a forgery.
func samlParseFailure(err error) error {
	var ire *saml.InvalidResponseError
	if errors.As(err, &ire) && ire.PrivateErr != nil {
		err = ire.PrivateErr
	}
	var status saml.ErrBadStatus
	if errors.As(err, &status) {
		return fail(ReasonDenied, "The sign-in provider did not let you in. Please try again, or contact your administrator.",
			fmt.Errorf("saml: the IdP answered status %q", status.Status))
	}
	return fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("saml: %w", err))
}

// samlCountAssertions counts Assertion and EncryptedAssertion elements anywhere in the
// document, so that one wrapped inside Extensions, Advice or a Signature's Object counts too.
func samlCountAssertions(raw []byte) (int, error) {
	if err := xrv.Validate(bytes.NewReader(raw)); err != nil {
		return 0, fmt.Errorf("saml: the response is not well-formed XML: %w", err)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		return 0, fmt.Errorf("saml: the response is not XML: %w", err)
	}
	if doc.Root() == nil {
		return 0, errors.New("saml: the response is empty")
	}
	n := 0
	stack := []*etree.Element{doc.Root()}
	for len(stack) > 0 {
		el := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if (el.Tag == "Assertion" || el.Tag == "EncryptedAssertion") && el.NamespaceURI() == "urn:oasis:names:tc:SAML:2.0:assertion" {
			n++
		}
		stack = append(stack, el.ChildElements()...)
	}
	return n, nil
}

// samlCheckExpiry checks the assertion's lifetime against the service's clock. crewjam has
// already checked it against the system clock; Env.Now is the clock the rest of sign-in runs
// on, so an assertion that is stale by it is refused too. Only expiry is checked here: the
// "not yet valid" side stays with crewjam, with its skew allowance.
func samlCheckExpiry(a *saml.Assertion, now time.Time) error {
	if a.IssueInstant.Add(saml.MaxIssueDelay).Before(now) {
		return fmt.Errorf("saml: the assertion was issued at %s, too long ago", a.IssueInstant.Format(time.RFC3339))
	}
	if c := a.Conditions; c != nil && !c.NotOnOrAfter.IsZero() && c.NotOnOrAfter.Add(saml.MaxClockSkew).Before(now) {
		return fmt.Errorf("saml: the assertion expired at %s", c.NotOnOrAfter.Format(time.RFC3339))
	}
	if a.Subject != nil {
		for _, sc := range a.Subject.SubjectConfirmations {
			if d := sc.SubjectConfirmationData; d != nil && !d.NotOnOrAfter.IsZero() && d.NotOnOrAfter.Add(saml.MaxClockSkew).Before(now) {
				return fmt.Errorf("saml: the subject confirmation expired at %s", d.NotOnOrAfter.Format(time.RFC3339))
			}
		}
	}
	return nil
}

// samlUseOnce records the assertion's id, refusing one already used. The id is kept until the
// assertion can no longer be accepted: IssueInstant + MaxIssueDelay bounds that whatever its
// conditions say, and the clock skew allowance is added for instances whose clocks differ.
func samlUseOnce(ctx context.Context, env Env, a *saml.Assertion, now time.Time) error {
	if a.ID == "" {
		return fail(ReasonInvalidResponse, msgInvalid, errors.New("saml: the assertion has no ID"))
	}
	if env.Assertions == nil {
		// Without a replay cache a captured response could be replayed: refuse rather than
		// sign in unprotected.
		return errors.New("saml: no assertion replay cache configured")
	}
	expires := a.IssueInstant.Add(saml.MaxIssueDelay + saml.MaxClockSkew)
	if floor := now.Add(saml.MaxClockSkew); expires.Before(floor) {
		expires = floor
	}
	// Ids are unique per IdP only; prefixing the issuer keeps two IdPs from colliding.
	fresh, err := env.Assertions.Use(ctx, a.Issuer.Value+" "+a.ID, expires)
	if err != nil {
		return fmt.Errorf("saml: assertion replay cache: %w", err)
	}
	if !fresh {
		return fail(ReasonReplayed, msgTryAgain, fmt.Errorf("saml: assertion %s was already used", a.ID))
	}
	return nil
}

// samlAttributes are an assertion's attributes by Name, and by FriendlyName for lookups.
type samlAttributes struct {
	byName     map[string][]string
	byFriendly map[string][]string
}

func samlCollectAttributes(a *saml.Assertion) samlAttributes {
	at := samlAttributes{byName: map[string][]string{}, byFriendly: map[string][]string{}}
	for _, st := range a.AttributeStatements {
		for _, attr := range st.Attributes {
			values := make([]string, 0, len(attr.Values))
			for _, v := range attr.Values {
				if v.NameID != nil {
					values = append(values, v.NameID.Value)
				} else {
					values = append(values, v.Value)
				}
			}
			at.byName[attr.Name] = append(at.byName[attr.Name], values...)
			if attr.FriendlyName != "" {
				at.byFriendly[attr.FriendlyName] = append(at.byFriendly[attr.FriendlyName], values...)
			}
		}
	}
	return at
}

// values returns the first of names that has a non-blank value, matching Name before
// FriendlyName, with blank values dropped.
func (at samlAttributes) values(names ...string) []string {
	for _, index := range []map[string][]string{at.byName, at.byFriendly} {
		for _, name := range names {
			var out []string
			for _, v := range index[name] {
				if strings.TrimSpace(v) != "" {
					out = append(out, v)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

func (at samlAttributes) first(names ...string) string {
	if v := at.values(names...); len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	return ""
}

func (at samlAttributes) claims() map[string]any {
	out := make(map[string]any, len(at.byName))
	for name, values := range at.byName {
		out[name] = values
	}
	return out
}

// samlIdentity maps a verified assertion to the normalised Identity.
func samlIdentity(p *Provider, a *saml.Assertion) (*Identity, error) {
	if a.Subject == nil || a.Subject.NameID == nil || strings.TrimSpace(a.Subject.NameID.Value) == "" {
		return nil, fail(ReasonInvalidResponse, msgInvalid, errors.New("saml: the assertion has no NameID"))
	}
	nameID := strings.TrimSpace(a.Subject.NameID.Value)
	at := samlCollectAttributes(a)

	email := at.first(samlEmailAttrs...)
	if email == "" && samlIsEmail(nameID) {
		email = nameID
	}
	email = strings.ToLower(email)

	first, last := at.first(samlFirstAttrs...), at.first(samlLastAttrs...)
	name := strings.TrimSpace(first + " " + last)
	if name == "" {
		name = at.first(samlNameAttrs...)
	}

	groupAttrs := samlGroupsAttrs
	if p.GroupsAttribute != "" {
		groupAttrs = []string{p.GroupsAttribute}
	}

	var contexts []string
	for _, st := range a.AuthnStatements {
		if ref := st.AuthnContext.AuthnContextClassRef; ref != nil && strings.TrimSpace(ref.Value) != "" {
			contexts = append(contexts, strings.TrimSpace(ref.Value))
		}
	}

	return &Identity{
		AuthContexts:  contexts,
		Provider:      p.Name,
		Issuer:        a.Issuer.Value,
		Subject:       nameID,
		Email:         email,
		EmailVerified: email != "" && p.TrustEmail,
		Name:          name,
		FirstName:     first,
		LastName:      last,
		Groups:        at.values(groupAttrs...),
		Claims:        at.claims(),
	}, nil
}

// samlIsEmail reports whether s is a bare address (no display name, no angle brackets).
func samlIsEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && addr.Name == ""
}

// SAMLMetadata returns the SP metadata XML for the provider (EntityDescriptor with the ACS = p.CallbackURL(appURL), HTTP-POST binding; when p.SignRequests, AuthnRequestsSigned=true and the SP certificate in a KeyDescriptor use="signing").
func SAMLMetadata(ctx context.Context, p *Provider, env Env) ([]byte, error) {
	sp, err := samlServiceProvider(ctx, p, env, false)
	if err != nil {
		return nil, err
	}
	md := sp.Metadata()
	for i := range md.SPSSODescriptors {
		samlTrimSPDescriptor(&md.SPSSODescriptors[i])
	}
	raw, err := xml.Marshal(md)
	if err != nil {
		return nil, fmt.Errorf("saml: metadata: %w", err)
	}
	// crewjam stamps validUntil = now + 48h. Admins upload this document into IdP consoles
	// once; IdPs that honour validUntil would then silently stop trusting the SP two days
	// later. The document only changes with the provider's settings, so it carries none.
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		return nil, fmt.Errorf("saml: metadata: %w", err)
	}
	doc.Root().RemoveAttr("validUntil")
	for _, d := range doc.Root().ChildElements() {
		d.RemoveAttr("validUntil")
	}
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	doc.InsertChildAt(0, doc.Child[len(doc.Child)-1])
	doc.Indent(2)
	return doc.WriteToBytes()
}

// samlTrimSPDescriptor keeps what this SP does: responses by HTTP-POST only (crewjam also
// offers the artifact binding, which Complete does not take), and the certificate for
// signing only (crewjam also offers it for encryption, which would invite IdPs to encrypt
// assertions with CBC key transport the Sign-requests setting never asked for).
func samlTrimSPDescriptor(d *saml.SPSSODescriptor) {
	var acs []saml.IndexedEndpoint
	for _, e := range d.AssertionConsumerServices {
		if e.Binding == saml.HTTPPostBinding {
			acs = append(acs, e)
		}
	}
	d.AssertionConsumerServices = acs
	var keys []saml.KeyDescriptor
	for _, k := range d.KeyDescriptors {
		if k.Use == "signing" {
			keys = append(keys, k)
		}
	}
	d.KeyDescriptors = keys
}

// samlServiceProvider builds the crewjam service provider for p. withIdP loads the IdP's
// settings too (from its metadata URL or the manual fields); the SP metadata does not need
// them, and must not fail because the IdP is down.
func samlServiceProvider(ctx context.Context, p *Provider, env Env, withIdP bool) (*saml.ServiceProvider, error) {
	acs, err := url.Parse(p.CallbackURL(env.AppURL))
	if err != nil {
		return nil, fmt.Errorf("saml: ACS URL: %w", err)
	}
	metadata, err := url.Parse(p.MetadataURL(env.AppURL))
	if err != nil {
		return nil, fmt.Errorf("saml: metadata URL: %w", err)
	}
	sp := &saml.ServiceProvider{
		EntityID:          p.EntityID(env.AppURL),
		AcsURL:            *acs,
		MetadataURL:       *metadata,
		AuthnNameIDFormat: saml.EmailAddressNameIDFormat,
		HTTPClient:        samlHTTPClient(env),
	}
	if p.NameIDFormat != "" {
		sp.AuthnNameIDFormat = saml.NameIDFormat(p.NameIDFormat)
	}
	if p.SignRequests {
		key, cert, err := samlSPKeyPair(p.SPPrivateKey, p.SPCertificate)
		if err != nil {
			return nil, fail(ReasonProviderUnavailable, msgUnavailable, err)
		}
		sp.Key, sp.Certificate = key, cert
		sp.SignatureMethod = dsig.RSASHA256SignatureMethod
	}
	if withIdP {
		if sp.IDPMetadata, err = samlIdPMetadata(ctx, p, env); err != nil {
			return nil, fail(ReasonProviderUnavailable, msgUnavailable, err)
		}
	}
	return sp, nil
}

// samlSPKeyPair parses the SP's signing key and certificate, and checks they belong together:
// a mismatch would only show as every IdP refusing the requests.
func samlSPKeyPair(keyPEM, certPEM string) (*rsa.PrivateKey, *x509.Certificate, error) {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return nil, nil, errors.New("saml: the SP private key is not PEM")
	}
	var key *rsa.PrivateKey
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		key = k
	} else if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, nil, fmt.Errorf("saml: the SP private key is %T, want RSA", k)
		}
		key = rk
	} else {
		return nil, nil, fmt.Errorf("saml: the SP private key does not parse: %w", err)
	}
	certs, err := samlParseCertificates(certPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("saml: SP certificate: %w", err)
	}
	if !key.PublicKey.Equal(certs[0].PublicKey) {
		return nil, nil, errors.New("saml: the SP certificate is not for the SP private key")
	}
	return key, certs[0], nil
}

// samlParseCertificates reads one or more certificates: PEM blocks, or the bare base64 of a
// DER certificate as IdP consoles often show it.
func samlParseCertificates(s string) ([]*x509.Certificate, error) {
	rest := []byte(strings.TrimSpace(s))
	if len(rest) == 0 {
		return nil, errors.New("no certificate")
	}
	var ders [][]byte
	if bytes.HasPrefix(rest, []byte("-----BEGIN")) {
		for {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			if block.Type == "CERTIFICATE" {
				ders = append(ders, block.Bytes)
			}
		}
	} else {
		der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(rest)), ""))
		if err != nil {
			return nil, errors.New("not PEM or base64")
		}
		ders = append(ders, der)
	}
	if len(ders) == 0 {
		return nil, errors.New("no CERTIFICATE block")
	}
	certs := make([]*x509.Certificate, 0, len(ders))
	for _, der := range ders {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	return certs, nil
}

// samlIdPMetadata is the IdP's entity descriptor: fetched from the metadata URL when one is
// set, else built from the manual settings.
func samlIdPMetadata(ctx context.Context, p *Provider, env Env) (*saml.EntityDescriptor, error) {
	if p.IdPMetadataURL != "" {
		return samlMetadataCache.get(ctx, p, env)
	}
	return samlManualMetadata(p)
}

// samlManualMetadata builds an IdP entity descriptor from the SSO URL, entity id and
// certificate settings. Every certificate given is trusted, which allows a rollover.
func samlManualMetadata(p *Provider) (*saml.EntityDescriptor, error) {
	if p.IdPSSOURL == "" {
		return nil, errors.New("saml: no IdP SSO URL or metadata URL")
	}
	if p.IdPEntityID == "" {
		// crewjam requires the assertion's Issuer to equal the IdP's entity id.
		return nil, errors.New("saml: no IdP entity ID")
	}
	certs, err := samlParseCertificates(p.IdPCertificate)
	if err != nil {
		return nil, fmt.Errorf("saml: IdP certificate: %w", err)
	}
	var x509s []saml.X509Certificate
	for _, c := range certs {
		x509s = append(x509s, saml.X509Certificate{Data: base64.StdEncoding.EncodeToString(c.Raw)})
	}
	return &saml.EntityDescriptor{
		EntityID: p.IdPEntityID,
		IDPSSODescriptors: []saml.IDPSSODescriptor{{
			SSODescriptor: saml.SSODescriptor{RoleDescriptor: saml.RoleDescriptor{
				ProtocolSupportEnumeration: "urn:oasis:names:tc:SAML:2.0:protocol",
				KeyDescriptors: []saml.KeyDescriptor{{
					Use:     "signing",
					KeyInfo: saml.KeyInfo{X509Data: saml.X509Data{X509Certificates: x509s}},
				}},
			}},
			SingleSignOnServices: []saml.Endpoint{{Binding: saml.HTTPRedirectBinding, Location: p.IdPSSOURL}},
		}},
	}, nil
}

// samlMetadataStore keeps fetched IdP metadata for samlMetadataTTL, by URL. Failures are not
// kept: the next sign-in tries again.
type samlMetadataStore struct {
	mu      sync.Mutex
	entries map[string]samlCachedMetadata
}

type samlCachedMetadata struct {
	ed      *saml.EntityDescriptor // shared, read-only
	fetched time.Time
}

var samlMetadataCache = &samlMetadataStore{entries: map[string]samlCachedMetadata{}}

func (s *samlMetadataStore) get(ctx context.Context, p *Provider, env Env) (*saml.EntityDescriptor, error) {
	key := p.IdPMetadataURL + "\x00" + p.IdPEntityID
	s.mu.Lock()
	e, ok := s.entries[key]
	s.mu.Unlock()
	// The cache is process-wide, so it runs on the system clock, not Env's.
	if ok && time.Since(e.fetched) < samlMetadataTTL {
		return e.ed, nil
	}
	ed, err := samlFetchMetadata(ctx, samlHTTPClient(env), p.IdPMetadataURL, p.IdPEntityID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, old := range s.entries {
		if time.Since(old.fetched) >= samlMetadataTTL {
			delete(s.entries, k)
		}
	}
	s.entries[key] = samlCachedMetadata{ed: ed, fetched: time.Now()}
	return ed, nil
}

// samlFetchMetadata GETs and parses IdP metadata, reading at most samlMaxMetadata bytes.
func samlFetchMetadata(ctx context.Context, hc *http.Client, metadataURL, entityID string) (*saml.EntityDescriptor, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metadataURL, nil)
	if err != nil {
		return nil, fmt.Errorf("saml: IdP metadata URL: %w", err)
	}
	req.Header.Set("Accept", "application/samlmetadata+xml, application/xml, text/xml")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("saml: fetching IdP metadata: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("saml: fetching IdP metadata: HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, samlMaxMetadata+1))
	if err != nil {
		return nil, fmt.Errorf("saml: reading IdP metadata: %w", err)
	}
	if len(body) > samlMaxMetadata {
		return nil, fmt.Errorf("saml: IdP metadata is larger than %d bytes", samlMaxMetadata)
	}
	return samlParseIdPMetadata(body, entityID)
}

// samlParseIdPMetadata reads an EntityDescriptor, or an EntitiesDescriptor holding the IdP
// (the one with entityID, when set). The result must be usable: an IdP SSO descriptor with a
// signing certificate.
func samlParseIdPMetadata(data []byte, entityID string) (*saml.EntityDescriptor, error) {
	if err := xrv.Validate(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("saml: IdP metadata is not well-formed XML: %w", err)
	}
	var root struct{ XMLName xml.Name }
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("saml: IdP metadata is not XML: %w", err)
	}
	var candidates []saml.EntityDescriptor
	switch root.XMLName.Local {
	case "EntityDescriptor":
		var ed saml.EntityDescriptor
		if err := xml.Unmarshal(data, &ed); err != nil {
			return nil, fmt.Errorf("saml: IdP metadata: %w", err)
		}
		candidates = append(candidates, ed)
	case "EntitiesDescriptor":
		var eds saml.EntitiesDescriptor
		if err := xml.Unmarshal(data, &eds); err != nil {
			return nil, fmt.Errorf("saml: IdP metadata: %w", err)
		}
		candidates = eds.EntityDescriptors
	default:
		return nil, fmt.Errorf("saml: IdP metadata has a <%s> root, want EntityDescriptor", root.XMLName.Local)
	}
	for i := range candidates {
		ed := &candidates[i]
		if len(ed.IDPSSODescriptors) == 0 || (entityID != "" && ed.EntityID != entityID) {
			continue
		}
		if !samlHasSigningCert(ed) {
			return nil, fmt.Errorf("saml: IdP metadata for %s has no signing certificate", ed.EntityID)
		}
		return ed, nil
	}
	if entityID != "" {
		return nil, fmt.Errorf("saml: IdP metadata has no identity provider %q", entityID)
	}
	return nil, errors.New("saml: IdP metadata has no identity provider")
}

func samlHasSigningCert(ed *saml.EntityDescriptor) bool {
	for _, d := range ed.IDPSSODescriptors {
		for _, k := range d.KeyDescriptors {
			if (k.Use == "" || k.Use == "signing") && len(k.KeyInfo.X509Data.X509Certificates) > 0 {
				return true
			}
		}
	}
	return false
}

// GenerateSPKey makes a new RSA-2048 private key and a self-signed certificate (10 years, CN = entity id) as PEM, for "Sign requests".
func GenerateSPKey(entityID string) (keyPEM, certPEM string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", fmt.Errorf("saml: generating the SP key: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	keyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
	certPEM, err = selfSign(key, entityID)
	return keyPEM, certPEM, err
}

// CertificateFor makes the self-signed certificate of an SP private key an administrator
// pasted (PEM, PKCS#1 or PKCS#8 RSA), for the SP metadata.
func CertificateFor(keyPEM, entityID string) (string, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(keyPEM)))
	if block == nil {
		return "", errors.New("the private key is not PEM")
	}
	var key *rsa.PrivateKey
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		key = k
	} else if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return "", errors.New("the private key is not an RSA key")
		}
		key = rk
	} else {
		return "", errors.New("the private key does not parse")
	}
	return selfSign(key, entityID)
}

func selfSign(key *rsa.PrivateKey, entityID string) (string, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: entityID},
		NotBefore:             now.Add(-time.Hour), // tolerate an IdP whose clock is behind
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", fmt.Errorf("saml: self-signing the SP certificate: %w", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}

func samlNow(env Env) time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

func samlHTTPClient(env Env) *http.Client {
	if env.HTTP != nil {
		return env.HTTP
	}
	return samlDefaultHTTP
}
