// Package fakesimplefin is a SimpleFIN Bridge for tests: a real HTTP peer that speaks the
// protocol as the Bridge does (see the team's reference/sure-simplefin.md, §1 and §4), holds a
// dataset the test controls, and fails on demand.
//
// # In tests
//
//	s := fakesimplefin.NewTest(t) // loopback httptest server, closed when the test ends
//	s.LoadSample()                // the reference's §4.6 dataset (or AddConnection, AddAccount, ...)
//	s.SetNow(fakesimplefin.SampleNow)
//	token := s.NewSetupToken()    // base64 of <URL>/simplefin/claim/<code>; claim it once
//	s.Inject(fakesimplefin.Fault{Status: 503, Times: 2})
//	... run the code under test ...
//	reqs := s.Requests()          // every request: method, path, query, Basic-auth user
//
// The endpoints, under the root /simplefin:
//
//   - POST /claim/{code}: no auth, body ignored. 200 text/plain with the access URL and a
//     newline, exactly once per setup token; then 403 "Forbidden (was it already claimed?)".
//     An unknown or expired token is 403 "Forbidden".
//   - GET /info: no auth (as in the protocol), {"versions":["1.0","2.0"]}.
//   - GET /accounts: HTTP Basic from the access URL; missing, wrong or revoked credentials are
//     403 (never 401). Query parameters as the Bridge reads them: start-date (inclusive) and
//     end-date (exclusive) in epoch seconds, pending by presence (pending=0 also includes
//     pending rows), account (repeatable), balances-only=1, and version=2 for the v2 shape
//     (errlist and connections instead of errors and org).
//
// A transaction's time is its posted date, or its transacted_at while pending (posted 0).
// Balances and holdings are "now" whatever the window. Without start-date the window is the
// 30 days before end-date (the Bridge's default is undocumented, only "recent"). A window
// longer than 90 days is capped to its last 90 with a warning, as the Bridge does;
// SetRangeLimit makes it stricter (Tally fetches at most 60 days: DECISIONS "Bank sync").
// From an access URL's 48th /accounts request in 24 hours the answers carry a quota warning,
// and from its 96th it gets 429 (SetQuota); requests naming accounts count apart.
//
// The clock is the wall clock until SetNow or Advance fix it, so token expiry, quotas and
// default windows are testable without sleeping.
//
// # By hand
//
//	go run ./banksync/fakesimplefin/cmd/fakesimplefin [-addr 127.0.0.1:8787] [-fail-every N -fail-with 503|429|reset|timeout|malformed]
//
// starts the fake with three demo accounts (checking, credit card, a brokerage with holdings;
// 90 days of transactions, a few pending), prints a setup token to paste into Tally, and logs
// every request. See that command's documentation.
package fakesimplefin
