package sso_test

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"

	"tally/sso"
	"tally/sso/ssotest"
)

const (
	samlAppURL      = "https://tally.example"
	samlNSProtocol  = "urn:oasis:names:tc:SAML:2.0:protocol"
	samlNSAssertion = "urn:oasis:names:tc:SAML:2.0:assertion"
	samlNSDSig      = "http://www.w3.org/2000/09/xmldsig#"
)

// samlReplayFake is an in-memory ReplayCache.
type samlReplayFake struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func (c *samlReplayFake) Use(_ context.Context, id string, expires time.Time) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]time.Time{}
	}
	if _, ok := c.seen[id]; ok {
		return false, nil
	}
	c.seen[id] = expires
	return true, nil
}

// samlClock is the system clock moved by an offset: the IdP and crewjam run on the system
// clock, so the service's clock must stay near it.
type samlClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *samlClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *samlClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

type samlOptions struct {
	metadataURL bool // IdP settings from its metadata URL, else the manual fields
	signed      bool // sign AuthnRequests
}

// samlHarness is a provider registered at an in-process IdP, with a clock and replay cache.
type samlHarness struct {
	idp    *ssotest.SAMLIdP
	p      *sso.Provider
	env    sso.Env
	clock  *samlClock
	replay *samlReplayFake
}

func newSAMLHarness(t *testing.T, o samlOptions) *samlHarness {
	t.Helper()
	idp := ssotest.NewSAMLIdP(t)
	idp.PutUser(ssotest.SAMLUser{Name: "alice", Password: "alice-pw", Email: "Alice@Example.com",
		FirstName: "Alice", LastName: "Liddell", Groups: []string{"Finance", "tally-admins"}})
	idp.AddUser("mallory", "mallory@example.com", "mallory-pw", "staff")

	h := &samlHarness{idp: idp, clock: &samlClock{}, replay: &samlReplayFake{}}
	h.p = &sso.Provider{Strategy: sso.StrategySAML, Name: "corp_saml", Key: "corp", Label: "Corp", TrustEmail: true}
	if o.metadataURL {
		h.p.IdPMetadataURL = idp.MetadataURL
	} else {
		h.p.IdPSSOURL, h.p.IdPEntityID, h.p.IdPCertificate = idp.SSOURL, idp.EntityID, idp.CertificatePEM
	}
	if o.signed {
		key, cert, err := sso.GenerateSPKey(h.p.EntityID(samlAppURL))
		if err != nil {
			t.Fatalf("GenerateSPKey: %v", err)
		}
		h.p.SignRequests, h.p.SPPrivateKey, h.p.SPCertificate = true, key, cert
	}
	h.env = sso.Env{AppURL: samlAppURL, HTTP: idp.Client(), Now: h.clock.Now, Assertions: h.replay}
	h.register(t, h.p)
	return h
}

// register gives the IdP p's SP metadata.
func (h *samlHarness) register(t *testing.T, p *sso.Provider) {
	t.Helper()
	md, err := sso.SAMLMetadata(context.Background(), p, h.env)
	if err != nil {
		t.Fatalf("SAMLMetadata: %v", err)
	}
	h.idp.RegisterSP(t, md)
}

func (h *samlHarness) begin(t *testing.T, p *sso.Provider) (string, sso.Flow) {
	t.Helper()
	redirect, f, err := sso.SAML().Begin(context.Background(), p, h.env, sso.PurposeLogin)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	return redirect, f
}

// login starts a flow for p and signs user in at the IdP.
func (h *samlHarness) login(t *testing.T, p *sso.Provider, user, password string) (sso.Flow, ssotest.SAMLPost) {
	t.Helper()
	redirect, f := h.begin(t, p)
	post, err := h.idp.Login(redirect, user, password)
	if err != nil {
		t.Fatalf("IdP login: %v", err)
	}
	return f, post
}

func (h *samlHarness) complete(p *sso.Provider, post ssotest.SAMLPost, f sso.Flow) (*sso.Identity, error) {
	return sso.SAML().Complete(context.Background(), p, h.env, post.Request(), f)
}

// samlWantFailure checks err is a Failure for reason and that no identity came with it.
func samlWantFailure(t *testing.T, id *sso.Identity, err error, reason string) *sso.Failure {
	t.Helper()
	if id != nil {
		t.Fatalf("signed in as %q (%s), want a %s refusal", id.Email, id.Subject, reason)
	}
	f, ok := sso.AsFailure(err)
	if !ok {
		t.Fatalf("error %v is not a Failure, want reason %s", err, reason)
	}
	if f.Reason != reason {
		t.Fatalf("reason %s (%v), want %s", f.Reason, err, reason)
	}
	return f
}

func TestSAMLLogin(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    samlOptions
	}{
		{"manual", samlOptions{}},
		{"manual signed", samlOptions{signed: true}},
		{"metadata URL", samlOptions{metadataURL: true}},
		{"metadata URL signed", samlOptions{metadataURL: true, signed: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newSAMLHarness(t, tc.o)
			redirect, f := h.begin(t, h.p)

			if !strings.HasPrefix(redirect, h.idp.SSOURL+"?") {
				t.Fatalf("redirect %s, want the IdP's SSO URL %s", redirect, h.idp.SSOURL)
			}
			if f.Provider != "corp_saml" || f.Purpose != sso.PurposeLogin || len(f.State) < 40 || f.RequestID == "" {
				t.Fatalf("flow %+v", f)
			}
			if d := time.Since(f.StartedAt); d < 0 || d > time.Minute {
				t.Errorf("flow started at %s", f.StartedAt)
			}
			q := samlParseURL(t, redirect).Query()
			if q.Get("RelayState") != f.State {
				t.Errorf("RelayState %q, want the flow's state", q.Get("RelayState"))
			}

			post, err := h.idp.Login(redirect, "alice", "alice-pw")
			if err != nil {
				t.Fatalf("IdP login: %v", err)
			}
			if post.ACSURL != h.p.CallbackURL(samlAppURL) || post.RelayState != f.State {
				t.Fatalf("the IdP posts to %s with RelayState %q, want %s and the flow's state", post.ACSURL, post.RelayState, h.p.CallbackURL(samlAppURL))
			}

			reqs := h.idp.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the IdP received %d AuthnRequests, want 1", len(reqs))
			}
			got := reqs[0]
			if got.ID != f.RequestID || got.Issuer != h.p.EntityID(samlAppURL) || got.ACSURL != h.p.CallbackURL(samlAppURL) ||
				got.NameIDFormat != string(saml.EmailAddressNameIDFormat) {
				t.Errorf("AuthnRequest %+v", got)
			}
			if tc.o.signed {
				if q.Get("SigAlg") != dsig.RSASHA256SignatureMethod || q.Get("Signature") == "" {
					t.Errorf("redirect SigAlg %q, Signature %q: want an RSA-SHA256 signature", q.Get("SigAlg"), q.Get("Signature"))
				}
				if !got.Signed || !got.SignatureValid {
					t.Errorf("the IdP received signed=%v valid=%v, want a valid signature", got.Signed, got.SignatureValid)
				}
			} else if q.Has("Signature") || q.Has("SigAlg") || got.Signed {
				t.Errorf("unsigned provider sent a signature: %s", redirect)
			}

			id, err := h.complete(h.p, post, f)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := sso.Identity{Provider: "corp_saml", Issuer: h.idp.EntityID, Subject: "Alice@Example.com",
				Email: "alice@example.com", EmailVerified: true, Name: "Alice Liddell", FirstName: "Alice", LastName: "Liddell",
				Groups: []string{"Finance", "tally-admins"}}
			samlCheckIdentity(t, id, want)
			if v, _ := id.Claims["email"].([]string); !slices.Equal(v, []string{"Alice@Example.com"}) {
				t.Errorf("claims[email] = %#v", id.Claims["email"])
			}
			if v, _ := id.Claims["groups"].([]string); !slices.Equal(v, []string{"Finance", "tally-admins"}) {
				t.Errorf("claims[groups] = %#v", id.Claims["groups"])
			}
		})
	}
}

func samlCheckIdentity(t *testing.T, got *sso.Identity, want sso.Identity) {
	t.Helper()
	if got.Provider != want.Provider || got.Issuer != want.Issuer || got.Subject != want.Subject ||
		got.Email != want.Email || got.EmailVerified != want.EmailVerified || got.Name != want.Name ||
		got.FirstName != want.FirstName || got.LastName != want.LastName || !slices.Equal(got.Groups, want.Groups) {
		t.Errorf("identity\n got %+v\nwant %+v", *got, want)
	}
}

// A strict IdP refuses an unsigned request from an SP whose metadata says it signs: this is
// what makes the signed-request tests above mean something.
func TestSAMLIdPEnforcesSignedRequests(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{signed: true})
	unsigned := *h.p
	unsigned.SignRequests = false
	redirect, _ := h.begin(t, &unsigned)
	if _, err := h.idp.Login(redirect, "alice", "alice-pw"); err == nil {
		t.Fatal("the IdP accepted an unsigned request for an SP that signs")
	}

	// A request signed with another key is refused too.
	other := *h.p
	other.SPPrivateKey, other.SPCertificate, _ = sso.GenerateSPKey(h.p.EntityID(samlAppURL))
	redirect, _ = h.begin(t, &other)
	if _, err := h.idp.Login(redirect, "alice", "alice-pw"); err == nil {
		t.Fatal("the IdP accepted a request signed with a key not in the SP's metadata")
	}
}

func TestSAMLIdPWrongPassword(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{})
	redirect, _ := h.begin(t, h.p)
	if _, err := h.idp.Login(redirect, "alice", "wrong"); err == nil || !strings.Contains(err.Error(), "Invalid username or password") {
		t.Fatalf("login with a wrong password: %v", err)
	}
}

func TestSAMLMetadata(t *testing.T) {
	p := &sso.Provider{Strategy: sso.StrategySAML, Name: "corp_saml", Key: "corp", IdPSSOURL: "https://idp.example/sso"}
	env := sso.Env{AppURL: samlAppURL}

	t.Run("unsigned", func(t *testing.T) {
		ed := samlParseMetadata(t, p, env)
		d := ed.SPSSODescriptors[0]
		if d.AuthnRequestsSigned == nil || *d.AuthnRequestsSigned {
			t.Errorf("AuthnRequestsSigned = %v, want false", d.AuthnRequestsSigned)
		}
		if len(d.KeyDescriptors) != 0 {
			t.Errorf("key descriptors %+v, want none", d.KeyDescriptors)
		}
	})

	t.Run("signed", func(t *testing.T) {
		key, cert, err := sso.GenerateSPKey(p.EntityID(samlAppURL))
		if err != nil {
			t.Fatal(err)
		}
		sp := *p
		sp.SignRequests, sp.SPPrivateKey, sp.SPCertificate = true, key, cert
		ed := samlParseMetadata(t, &sp, env)
		d := ed.SPSSODescriptors[0]
		if d.AuthnRequestsSigned == nil || !*d.AuthnRequestsSigned {
			t.Errorf("AuthnRequestsSigned = %v, want true", d.AuthnRequestsSigned)
		}
		if len(d.KeyDescriptors) != 1 || d.KeyDescriptors[0].Use != "signing" {
			t.Fatalf("key descriptors %+v, want one for signing", d.KeyDescriptors)
		}
		block, _ := pem.Decode([]byte(cert))
		x := d.KeyDescriptors[0].KeyInfo.X509Data.X509Certificates
		if len(x) != 1 || x[0].Data != base64.StdEncoding.EncodeToString(block.Bytes) {
			t.Errorf("the metadata's certificate is not the SP certificate")
		}
	})
}

// samlParseMetadata checks what every SP metadata holds and returns it.
func samlParseMetadata(t *testing.T, p *sso.Provider, env sso.Env) *saml.EntityDescriptor {
	t.Helper()
	raw, err := sso.SAMLMetadata(context.Background(), p, env)
	if err != nil {
		t.Fatalf("SAMLMetadata: %v", err)
	}
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal(raw, &ed); err != nil {
		t.Fatalf("metadata does not parse: %v\n%s", err, raw)
	}
	if strings.Contains(string(raw), "validUntil") {
		t.Errorf("metadata expires:\n%s", raw)
	}
	if ed.EntityID != samlAppURL+"/auth/saml/corp" {
		t.Errorf("entityID %q", ed.EntityID)
	}
	if len(ed.SPSSODescriptors) != 1 {
		t.Fatalf("%d SP descriptors", len(ed.SPSSODescriptors))
	}
	d := ed.SPSSODescriptors[0]
	acs := d.AssertionConsumerServices
	if len(acs) != 1 || acs[0].Binding != saml.HTTPPostBinding || acs[0].Location != samlAppURL+"/auth/saml/corp/callback" {
		t.Errorf("ACS %+v, want one HTTP-POST at the callback URL", acs)
	}
	if d.WantAssertionsSigned == nil || !*d.WantAssertionsSigned {
		t.Error("WantAssertionsSigned is not true")
	}
	if !slices.Equal(d.NameIDFormats, []saml.NameIDFormat{saml.EmailAddressNameIDFormat}) {
		t.Errorf("NameID formats %v", d.NameIDFormats)
	}
	return &ed
}

func TestGenerateSPKey(t *testing.T) {
	entityID := samlAppURL + "/auth/saml/0b7c3c2e-5f4a-4c1e-9a51-2f0d6c1d7e11"
	keyPEM, certPEM, err := sso.GenerateSPKey(entityID)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := pem.Decode([]byte(keyPEM))
	cb, _ := pem.Decode([]byte(certPEM))
	if kb == nil || cb == nil || cb.Type != "CERTIFICATE" {
		t.Fatalf("not PEM:\n%s\n%s", keyPEM, certPEM)
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	key, ok := k.(*rsa.PrivateKey)
	if !ok || key.N.BitLen() != 2048 {
		t.Fatalf("key %T, want RSA-2048", k)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != entityID || !key.PublicKey.Equal(cert.PublicKey) {
		t.Errorf("certificate CN %q, or not for the key", cert.Subject.CommonName)
	}
	if years := cert.NotAfter.Sub(time.Now()).Hours() / 24 / 365; years < 9.9 || years > 10.1 {
		t.Errorf("certificate valid for %.1f years, want 10", years)
	}
	if err := cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
}

func TestSAMLNameIDFormat(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{})
	p := *h.p
	p.NameIDFormat = string(saml.PersistentNameIDFormat)
	redirect, _ := h.begin(t, &p)
	resp, err := h.idp.Client().Get(redirect)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	reqs := h.idp.Requests()
	if len(reqs) != 1 || reqs[0].NameIDFormat != string(saml.PersistentNameIDFormat) {
		t.Fatalf("requests %+v, want NameIDPolicy persistent", reqs)
	}
}

func TestSAMLAttributes(t *testing.T) {
	const ms = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/"
	const msGroups = "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups"
	for _, tc := range []struct {
		name       string
		user       ssotest.SAMLUser
		groupsAttr string // the provider's setting
		idpGroups  string // the attribute the IdP puts groups in
		trust      bool
		want       sso.Identity
	}{{
		name: "Azure-style URIs",
		user: ssotest.SAMLUser{NameID: "8f1e2d", Attributes: map[string][]string{
			ms + "emailaddress": {"Bob@Example.COM"}, ms + "givenname": {"Bob"}, ms + "surname": {"Builder"},
			msGroups: {"aad-group-1", "AAD-Group-2"}}},
		trust: true,
		want: sso.Identity{Subject: "8f1e2d", Email: "bob@example.com", EmailVerified: true, Name: "Bob Builder",
			FirstName: "Bob", LastName: "Builder", Groups: []string{"aad-group-1", "AAD-Group-2"}},
	}, {
		name: "givenName and surname, email from the NameID",
		user: ssotest.SAMLUser{NameID: "Carol@Example.com", Attributes: map[string][]string{"givenName": {"Carol"}, "surname": {"Chen"}}},
		want: sso.Identity{Subject: "Carol@Example.com", Email: "carol@example.com", Name: "Carol Chen", FirstName: "Carol", LastName: "Chen"},
	}, {
		name: "display name only, NameID not an email",
		user: ssotest.SAMLUser{NameID: "dave", DisplayName: "Dave D."},
		want: sso.Identity{Subject: "dave", Name: "Dave D."},
	}, {
		name:       "custom groups attribute",
		user:       ssotest.SAMLUser{Email: "erin@example.com", Groups: []string{"ignored"}, Attributes: map[string][]string{"memberOf": {"Tally Admins", "tally-users"}}},
		groupsAttr: "memberOf",
		trust:      true,
		want:       sso.Identity{Subject: "erin@example.com", Email: "erin@example.com", EmailVerified: true, Groups: []string{"Tally Admins", "tally-users"}},
	}, {
		name:       "custom groups attribute missing",
		user:       ssotest.SAMLUser{Email: "frank@example.com", Groups: []string{"under-groups"}},
		groupsAttr: "memberOf",
		want:       sso.Identity{Subject: "frank@example.com", Email: "frank@example.com"},
	}, {
		name:      "IdP uses a custom groups attribute name the provider is set to",
		user:      ssotest.SAMLUser{Email: "gina@example.com", Groups: []string{"Finance"}},
		idpGroups: "Role", groupsAttr: "Role",
		want: sso.Identity{Subject: "gina@example.com", Email: "gina@example.com", Groups: []string{"Finance"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newSAMLHarness(t, samlOptions{})
			tc.user.Name, tc.user.Password = "user", "user-pw"
			h.idp.PutUser(tc.user)
			if tc.idpGroups != "" {
				h.idp.SetGroupsAttribute(tc.idpGroups)
			}
			h.p.GroupsAttribute, h.p.TrustEmail = tc.groupsAttr, tc.trust
			f, post := h.login(t, h.p, "user", "user-pw")
			id, err := h.complete(h.p, post, f)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			tc.want.Provider, tc.want.Issuer = "corp_saml", h.idp.EntityID
			samlCheckIdentity(t, id, tc.want)
			for name, values := range tc.user.Attributes {
				if got, _ := id.Claims[name].([]string); !slices.Equal(got, values) {
					t.Errorf("claims[%s] = %#v, want %v", name, id.Claims[name], values)
				}
			}
		})
	}
}

func TestSAMLRejections(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{})

	t.Run("wrong RelayState", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		post.RelayState = "not-" + f.State
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidState)
	})

	t.Run("no RelayState", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		post.RelayState = ""
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidState)
	})

	t.Run("RelayState only in the query", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		r := httptest.NewRequest(http.MethodPost, post.ACSURL+"?RelayState="+url.QueryEscape(f.State),
			strings.NewReader(url.Values{"SAMLResponse": {post.SAMLResponse}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		id, err := sso.SAML().Complete(context.Background(), h.p, h.env, r, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidState)
	})

	t.Run("flow of another provider", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		f.Provider = "other"
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidState)
	})

	t.Run("flow older than FlowLifetime", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		h.clock.advance(sso.FlowLifetime + time.Minute)
		defer h.clock.advance(-sso.FlowLifetime - time.Minute)
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonExpired)
	})

	t.Run("assertion expired by the service clock", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		// Within the flow's lifetime, well past the assertion's (90 s + 180 s of skew).
		h.clock.advance(10 * time.Minute)
		defer h.clock.advance(-10 * time.Minute)
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("assertion signed by the IdP but expired", func(t *testing.T) {
		h.idp.EditAssertions(func(a *saml.Assertion) {
			past := time.Now().Add(-20 * time.Minute)
			a.IssueInstant = past
			a.Conditions.NotBefore, a.Conditions.NotOnOrAfter = past, past.Add(2*time.Minute)
			a.Subject.SubjectConfirmations[0].SubjectConfirmationData.NotOnOrAfter = past.Add(2 * time.Minute)
		})
		defer h.idp.EditAssertions(nil)
		f, post := h.login(t, h.p, "alice", "alice-pw")
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("assertion for another audience", func(t *testing.T) {
		h.idp.EditAssertions(func(a *saml.Assertion) {
			a.Conditions.AudienceRestrictions = []saml.AudienceRestriction{{Audience: saml.Audience{Value: "https://other-app.example/saml"}}}
		})
		defer h.idp.EditAssertions(nil)
		f, post := h.login(t, h.p, "alice", "alice-pw")
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("response re-targeted from another provider", func(t *testing.T) {
		other := *h.p
		other.Name, other.Key = "other_saml", "other"
		h.register(t, &other)
		_, post := h.login(t, &other, "alice", "alice-pw")
		_, f := h.begin(t, h.p)
		post.RelayState = f.State // the attacker controls the form
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("response to another request", func(t *testing.T) {
		_, post := h.login(t, h.p, "alice", "alice-pw")
		_, f := h.begin(t, h.p)
		post.RelayState = f.State
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("replayed response", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		if _, err := h.complete(h.p, post, f); err != nil {
			t.Fatalf("first Complete: %v", err)
		}
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonReplayed)
	})

	t.Run("no replay cache", func(t *testing.T) {
		f, post := h.login(t, h.p, "alice", "alice-pw")
		env := h.env
		env.Assertions = nil
		id, err := sso.SAML().Complete(context.Background(), h.p, env, post.Request(), f)
		if err == nil || id != nil {
			t.Fatal("signed in without a replay cache")
		}
	})

	t.Run("unsigned assertion", func(t *testing.T) {
		f, post := h.login(t, h.p, "mallory", "mallory-pw")
		doc := samlDecode(t, post)
		for _, sig := range samlFindAll(doc.Root(), samlNSDSig, "Signature") {
			sig.Parent().RemoveChild(sig)
		}
		post.SAMLResponse = samlEncode(t, doc)
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("tampered NameID", func(t *testing.T) {
		f, post := h.login(t, h.p, "mallory", "mallory-pw")
		doc := samlDecode(t, post)
		samlFindAll(doc.Root(), samlNSAssertion, "NameID")[0].SetText("Alice@Example.com")
		post.SAMLResponse = samlEncode(t, doc)
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("tampered attribute, response signature removed", func(t *testing.T) {
		f, post := h.login(t, h.p, "mallory", "mallory-pw")
		doc := samlDecode(t, post)
		samlRemoveChild(doc.Root(), samlNSDSig, "Signature")
		for _, v := range samlFindAll(doc.Root(), samlNSAssertion, "AttributeValue") {
			if v.Text() == "mallory@example.com" {
				v.SetText("alice@example.com")
			}
		}
		post.SAMLResponse = samlEncode(t, doc)
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("signed by another key", func(t *testing.T) {
		rogue := ssotest.NewSAMLIdP(t)
		p := *h.p
		p.IdPCertificate = rogue.CertificatePEM
		f, post := h.login(t, &p, "alice", "alice-pw")
		id, err := h.complete(&p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("issuer is not the configured IdP", func(t *testing.T) {
		p := *h.p
		p.IdPEntityID = "https://idp.other.example/metadata"
		f, post := h.login(t, &p, "alice", "alice-pw")
		id, err := h.complete(&p, post, f)
		samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
	})

	t.Run("IdP error status", func(t *testing.T) {
		_, f := h.begin(t, h.p)
		resp := samlResponse(h, f)
		resp.Status.StatusCode = saml.StatusCode{Value: saml.StatusResponder, StatusCode: &saml.StatusCode{Value: saml.StatusAuthnFailed}}
		post := samlPostOf(t, h, f, resp.Element())
		id, err := h.complete(h.p, post, f)
		samlWantFailure(t, id, err, sso.ReasonDenied)
	})

	t.Run("garbage", func(t *testing.T) {
		_, f := h.begin(t, h.p)
		big := base64.StdEncoding.EncodeToString([]byte("<a>" + strings.Repeat("x", 2<<20) + "</a>"))
		bomb := `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><samlp:Response xmlns:samlp="` + samlNSProtocol + `">&b;</samlp:Response>`
		for name, value := range map[string]string{
			"empty":      "",
			"not base64": "%%%not base64%%%",
			"not XML":    base64.StdEncoding.EncodeToString([]byte("<samlp:Response")),
			"too large":  big,
			"entities":   base64.StdEncoding.EncodeToString([]byte(bomb)),
			"other root": base64.StdEncoding.EncodeToString([]byte(`<html><body>hi</body></html>`)),
		} {
			post := ssotest.SAMLPost{ACSURL: h.p.CallbackURL(samlAppURL), SAMLResponse: value, RelayState: f.State}
			id, err := h.complete(h.p, post, f)
			if fl, ok := sso.AsFailure(err); !ok || fl.Reason != sso.ReasonInvalidResponse || id != nil {
				t.Errorf("%s: %v, want %s", name, err, sso.ReasonInvalidResponse)
			}
		}
	})
}

// TestSAMLUnsignedAssertion builds a response that is right in every respect but the
// signature, then signs it with the IdP's key: only the signed one may sign in.
func TestSAMLUnsignedAssertion(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{})
	_, f := h.begin(t, h.p)

	resp := samlResponse(h, f)
	unsigned := samlPostOf(t, h, f, resp.Element())
	id, err := h.complete(h.p, unsigned, f)
	samlWantFailure(t, id, err, sso.ReasonInvalidResponse)

	resp.Assertion.Signature = samlSign(t, h.idp, resp.Assertion.Element())
	signed := samlPostOf(t, h, f, resp.Element())
	id, err = h.complete(h.p, signed, f)
	if err != nil {
		t.Fatalf("the same response signed by the IdP: %v", err)
	}
	if id.Email != "alice@example.com" {
		t.Fatalf("email %q", id.Email)
	}
}

// A signed assertion that omits parts crewjam dereferences must be refused, not crash: crewjam
// v0.5.1 panics on a missing Subject, Conditions or SubjectConfirmationData.
func TestSAMLSignedButSkeletal(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{})
	for name, strip := range map[string]func(a *saml.Assertion){
		"no conditions": func(a *saml.Assertion) { a.Conditions = nil },
		"no subject":    func(a *saml.Assertion) { a.Subject = nil },
		"no NameID":     func(a *saml.Assertion) { a.Subject.NameID = nil },
		"no subject confirmation data": func(a *saml.Assertion) {
			a.Subject.SubjectConfirmations[0].SubjectConfirmationData = nil
		},
	} {
		_, f := h.begin(t, h.p)
		resp := samlResponse(h, f)
		strip(resp.Assertion)
		resp.Assertion.Signature = samlSign(t, h.idp, resp.Assertion.Element())
		id, err := h.complete(h.p, samlPostOf(t, h, f, resp.Element()), f)
		if fl, ok := sso.AsFailure(err); !ok || fl.Reason != sso.ReasonInvalidResponse || id != nil {
			t.Errorf("%s: %v, want %s", name, err, sso.ReasonInvalidResponse)
		}
	}
}

// TestSAMLSignatureWrapping takes mallory's valid response and adds an assertion claiming
// alice in the ways XML signature wrapping attacks do. None may sign in as alice.
func TestSAMLSignatureWrapping(t *testing.T) {
	h := newSAMLHarness(t, samlOptions{})

	// forge turns a copy of the signed assertion into alice's, unsigned, with id.
	forge := func(signed *etree.Element, id string) *etree.Element {
		a := signed.Copy()
		samlRemoveChild(a, samlNSDSig, "Signature")
		a.CreateAttr("ID", id)
		samlFindAll(a, samlNSAssertion, "NameID")[0].SetText("Alice@Example.com")
		for _, v := range samlFindAll(a, samlNSAssertion, "AttributeValue") {
			if v.Text() == "mallory@example.com" {
				v.SetText("alice@example.com")
			}
		}
		return a
	}

	for _, tc := range []struct {
		name string
		wrap func(resp, signed *etree.Element)
	}{{
		name: "forged assertion first, response signature kept",
		wrap: func(resp, signed *etree.Element) {
			resp.InsertChildAt(signed.Index(), forge(signed, "id-forged"))
		},
	}, {
		name: "forged assertion first, response signature removed",
		wrap: func(resp, signed *etree.Element) {
			samlRemoveChild(resp, samlNSDSig, "Signature")
			resp.InsertChildAt(signed.Index(), forge(signed, "id-forged"))
		},
	}, {
		name: "forged assertion last, response signature removed",
		wrap: func(resp, signed *etree.Element) {
			samlRemoveChild(resp, samlNSDSig, "Signature")
			resp.AddChild(forge(signed, "id-forged"))
		},
	}, {
		name: "signed assertion moved into Extensions, forged one in its place with its signature",
		wrap: func(resp, signed *etree.Element) {
			samlRemoveChild(resp, samlNSDSig, "Signature")
			forged := forge(signed, signed.SelectAttrValue("ID", ""))
			forged.InsertChildAt(1, samlFindChild(signed, samlNSDSig, "Signature").Copy())
			i := signed.Index()
			resp.RemoveChild(signed)
			ext := etree.NewElement("samlp:Extensions")
			ext.AddChild(signed)
			resp.InsertChildAt(1, ext)
			resp.InsertChildAt(i+1, forged)
		},
	}, {
		name: "signed assertion inside the forged one's Advice",
		wrap: func(resp, signed *etree.Element) {
			samlRemoveChild(resp, samlNSDSig, "Signature")
			forged := forge(signed, signed.SelectAttrValue("ID", ""))
			i := signed.Index()
			resp.RemoveChild(signed)
			advice := etree.NewElement("saml:Advice")
			advice.AddChild(signed)
			forged.AddChild(advice)
			resp.InsertChildAt(i, forged)
		},
	}, {
		name: "signed assertion inside the response signature's Object",
		wrap: func(resp, signed *etree.Element) {
			forged := forge(signed, "id-forged")
			i := signed.Index()
			resp.RemoveChild(signed)
			obj := etree.NewElement("ds:Object")
			obj.AddChild(signed)
			samlFindChild(resp, samlNSDSig, "Signature").AddChild(obj)
			resp.InsertChildAt(i, forged)
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f, post := h.login(t, h.p, "mallory", "mallory-pw")
			doc := samlDecode(t, post)
			signed := samlFindChild(doc.Root(), samlNSAssertion, "Assertion")
			tc.wrap(doc.Root(), signed)
			post.SAMLResponse = samlEncode(t, doc)
			id, err := h.complete(h.p, post, f)
			if err == nil && (id.Email != "mallory@example.com" || id.Subject != "mallory@example.com") {
				t.Fatalf("signed in as %s (%s): signature wrapping worked", id.Email, id.Subject)
			}
			samlWantFailure(t, id, err, sso.ReasonInvalidResponse)
		})
	}
}

func TestSAMLIdPMetadata(t *testing.T) {
	t.Run("fetched once and cached", func(t *testing.T) {
		h := newSAMLHarness(t, samlOptions{metadataURL: true})
		for range 2 {
			f, post := h.login(t, h.p, "alice", "alice-pw")
			if _, err := h.complete(h.p, post, f); err != nil {
				t.Fatalf("Complete: %v", err)
			}
		}
		if n := h.idp.MetadataFetches(); n != 1 {
			t.Errorf("metadata fetched %d times, want 1", n)
		}
	})

	t.Run("in an EntitiesDescriptor", func(t *testing.T) {
		h := newSAMLHarness(t, samlOptions{})
		md := samlGet(t, h.idp.Client(), h.idp.MetadataURL)
		md = strings.Replace(md, "<EntityDescriptor", `<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"><EntityDescriptor entityID="https://sp.example" xmlns="urn:oasis:names:tc:SAML:2.0:metadata"></EntityDescriptor><EntityDescriptor`, 1) + "</EntitiesDescriptor>"
		srv := samlServe(t, http.StatusOK, md)
		p := &sso.Provider{Strategy: sso.StrategySAML, Name: "corp_saml", Key: "corp", IdPMetadataURL: srv.URL + "/entities"}
		redirect, _, err := sso.SAML().Begin(context.Background(), p, h.env, sso.PurposeLogin)
		if err != nil || !strings.HasPrefix(redirect, h.idp.SSOURL) {
			t.Fatalf("Begin: %s, %v", redirect, err)
		}
	})

	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"server error", http.StatusInternalServerError, "oops"},
		{"not XML", http.StatusOK, "<html><body>login</body>"},
		{"not metadata", http.StatusOK, "<html><body>login</body></html>"},
		{"SP metadata", http.StatusOK, `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></EntityDescriptor>`},
		{"no signing certificate", http.StatusOK, `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/></IDPSSODescriptor></EntityDescriptor>`},
		{"too large", http.StatusOK, `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><!--` + strings.Repeat("x", 1<<20) + `--></EntityDescriptor>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := samlServe(t, tc.status, tc.body)
			p := &sso.Provider{Strategy: sso.StrategySAML, Name: "corp_saml", Key: "corp", IdPMetadataURL: srv.URL + "/" + strings.ReplaceAll(tc.name, " ", "-")}
			_, _, err := sso.SAML().Begin(context.Background(), p, sso.Env{AppURL: samlAppURL, HTTP: srv.Client()}, sso.PurposeLogin)
			samlWantFailure(t, nil, err, sso.ReasonProviderUnavailable)
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		p := &sso.Provider{Strategy: sso.StrategySAML, Name: "corp_saml", Key: "corp", IdPMetadataURL: srv.URL + "/metadata"}
		_, _, err := sso.SAML().Begin(context.Background(), p, sso.Env{AppURL: samlAppURL}, sso.PurposeLogin)
		samlWantFailure(t, nil, err, sso.ReasonProviderUnavailable)
	})
}

func TestSAMLSettingsErrors(t *testing.T) {
	idp := ssotest.NewSAMLIdP(t)
	key, cert, err := sso.GenerateSPKey("https://tally.example/auth/saml/corp")
	if err != nil {
		t.Fatal(err)
	}
	_, otherCert, err := sso.GenerateSPKey("https://tally.example/auth/saml/corp")
	if err != nil {
		t.Fatal(err)
	}
	base := sso.Provider{Strategy: sso.StrategySAML, Name: "corp_saml", Key: "corp",
		IdPSSOURL: idp.SSOURL, IdPEntityID: idp.EntityID, IdPCertificate: idp.CertificatePEM}
	for name, edit := range map[string]func(p *sso.Provider){
		"IdP certificate not a certificate": func(p *sso.Provider) {
			p.IdPCertificate = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
		},
		"IdP certificate missing":        func(p *sso.Provider) { p.IdPCertificate = "" },
		"IdP entity id missing":          func(p *sso.Provider) { p.IdPEntityID = "" },
		"SP key missing":                 func(p *sso.Provider) { p.SignRequests, p.SPCertificate = true, cert },
		"SP certificate missing":         func(p *sso.Provider) { p.SignRequests, p.SPPrivateKey = true, key },
		"SP certificate for another key": func(p *sso.Provider) { p.SignRequests, p.SPPrivateKey, p.SPCertificate = true, key, otherCert },
	} {
		t.Run(name, func(t *testing.T) {
			p := base
			edit(&p)
			_, _, err := sso.SAML().Begin(context.Background(), &p, sso.Env{AppURL: samlAppURL, HTTP: idp.Client()}, sso.PurposeLogin)
			samlWantFailure(t, nil, err, sso.ReasonProviderUnavailable)
		})
	}

	t.Run("IdP certificate as bare base64", func(t *testing.T) {
		p := base
		block, _ := pem.Decode([]byte(idp.CertificatePEM))
		p.IdPCertificate = base64.StdEncoding.EncodeToString(block.Bytes)
		if _, _, err := sso.SAML().Begin(context.Background(), &p, sso.Env{AppURL: samlAppURL}, sso.PurposeLogin); err != nil {
			t.Fatalf("Begin: %v", err)
		}
	})
}

// samlResponse is a well-formed, unsigned response answering f, for alice, as the harness's
// IdP would issue it.
func samlResponse(h *samlHarness, f sso.Flow) *saml.Response {
	now := time.Now().UTC().Truncate(time.Second)
	acs, entityID := h.p.CallbackURL(samlAppURL), h.p.EntityID(samlAppURL)
	return &saml.Response{
		ID: "id-response-" + f.State[:8], InResponseTo: f.RequestID, Version: "2.0", IssueInstant: now, Destination: acs,
		Issuer: &saml.Issuer{Value: h.idp.EntityID},
		Status: saml.Status{StatusCode: saml.StatusCode{Value: saml.StatusSuccess}},
		Assertion: &saml.Assertion{
			ID: "id-assertion-" + f.State[:8], IssueInstant: now, Version: "2.0",
			Issuer: saml.Issuer{Value: h.idp.EntityID},
			Subject: &saml.Subject{
				NameID: &saml.NameID{Format: string(saml.EmailAddressNameIDFormat), Value: "alice@example.com"},
				SubjectConfirmations: []saml.SubjectConfirmation{{
					Method: "urn:oasis:names:tc:SAML:2.0:cm:bearer",
					SubjectConfirmationData: &saml.SubjectConfirmationData{
						InResponseTo: f.RequestID, NotOnOrAfter: now.Add(time.Minute), Recipient: acs,
					},
				}},
			},
			Conditions: &saml.Conditions{
				NotBefore: now.Add(-time.Minute), NotOnOrAfter: now.Add(time.Minute),
				AudienceRestrictions: []saml.AudienceRestriction{{Audience: saml.Audience{Value: entityID}}},
			},
			AttributeStatements: []saml.AttributeStatement{{Attributes: []saml.Attribute{{
				Name: "email", Values: []saml.AttributeValue{{Type: "xs:string", Value: "alice@example.com"}},
			}}}},
		},
	}
}

// samlSign signs el (enveloped) with the IdP's key, as crewjam's IdP does, and returns the
// Signature element.
func samlSign(t *testing.T, idp *ssotest.SAMLIdP, el *etree.Element) *etree.Element {
	t.Helper()
	ctx, err := dsig.NewSigningContext(idp.Key, [][]byte{idp.Certificate.Raw})
	if err != nil {
		t.Fatal(err)
	}
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	if err := ctx.SetSignatureMethod(dsig.RSASHA256SignatureMethod); err != nil {
		t.Fatal(err)
	}
	signed, err := ctx.SignEnveloped(el)
	if err != nil {
		t.Fatal(err)
	}
	return signed.ChildElements()[len(signed.ChildElements())-1]
}

func samlPostOf(t *testing.T, h *samlHarness, f sso.Flow, resp *etree.Element) ssotest.SAMLPost {
	t.Helper()
	doc := etree.NewDocument()
	doc.SetRoot(resp)
	return ssotest.SAMLPost{ACSURL: h.p.CallbackURL(samlAppURL), SAMLResponse: samlEncode(t, doc), RelayState: f.State}
}

func samlDecode(t *testing.T, post ssotest.SAMLPost) *etree.Document {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(post.SAMLResponse)
	if err != nil {
		t.Fatal(err)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		t.Fatal(err)
	}
	return doc
}

func samlEncode(t *testing.T, doc *etree.Document) string {
	t.Helper()
	raw, err := doc.WriteToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// samlFindAll returns the elements named ns:tag under el, el included, in document order.
func samlFindAll(el *etree.Element, ns, tag string) []*etree.Element {
	var out []*etree.Element
	if el.Tag == tag && el.NamespaceURI() == ns {
		out = append(out, el)
	}
	for _, c := range el.ChildElements() {
		out = append(out, samlFindAll(c, ns, tag)...)
	}
	return out
}

func samlFindChild(el *etree.Element, ns, tag string) *etree.Element {
	for _, c := range el.ChildElements() {
		if c.Tag == tag && c.NamespaceURI() == ns {
			return c
		}
	}
	return nil
}

func samlRemoveChild(el *etree.Element, ns, tag string) {
	if c := samlFindChild(el, ns, tag); c != nil {
		el.RemoveChild(c)
	}
}

func samlServe(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func samlGet(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func samlParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
