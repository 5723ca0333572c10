// Package fakeenablebanking is an Enable Banking API for tests and for trying Tally by hand: a
// real HTTP peer written from the provider's public API reference, holding banks (ASPSPs),
// their accounts and transactions as the test sets them, and failing on demand.
//
// # In tests
//
//	s := fakeenablebanking.NewTest(t)       // loopback server, its own application key
//	s.AddASPSP(fakeenablebanking.ASPSP{Name: "Testbank", Country: "DE"})
//	s.AddAccount("Testbank", fakeenablebanking.Account{Key: "giro", IBAN: "DE89…", ...})
//	env := map[string]string{"ENABLE_BANKING_APP_ID": s.AppID, "ENABLE_BANKING_PRIVATE_KEY": s.PrivateKeyPEM(),
//		"ENABLE_BANKING_API_URL": s.URL}
//
// Every API request must carry `Authorization: Bearer <JWT>` signed RS256 with the
// application's key: `kid` the application id, `iss` enablebanking.com, `aud`
// api.enablebanking.com, and `exp` at most 24 hours after `iat`. Anything else is 401.
//
// The endpoints, as the provider serves them:
//
//   - GET /aspsps?country=: the country's banks, with maximum_consent_validity and
//     auth_methods (approach REDIRECT, or DECOUPLED for a bank that approves in its app).
//   - POST /auth {access.valid_until, aspsp{name,country}, state, redirect_url, psu_type}:
//     {url, authorization_id}. The url is the fake's authorisation page.
//   - POST /sessions {code}: {session_id, accounts[{uid, account_id{iban}, name, currency,
//     cash_account_type, identification_hash}], aspsp, access{valid_until}}. Each session
//     gives the bank's accounts new uids; identification_hash stays.
//   - GET and DELETE /sessions/{id}.
//   - GET /accounts/{uid}/balances and GET /accounts/{uid}/transactions?date_from=&continuation_key=,
//     a page of PageSize transactions at a time. The continuation key holds characters that
//     must be URL-encoded (+, /, =, a space), so a client that does not encode it loses pages.
//
// The authorisation page (GET {url}) approves with one button and redirects to redirect_url
// with code and state, or with error=access_denied. A decoupled bank's page says to approve
// in the bank's app and refreshes itself until ApproveInApp (or POST /fake/app/{id}/approve,
// its button for people) approves it, then redirects the same way.
//
// Faults: ExpireSessions (the consent ends: 401 EXPIRED_SESSION), RateLimit (429 for the next
// n account reads), and the transactions themselves: signed or unsigned amounts with
// credit_debit_indicator, pending entries without any date, names only in postal addresses.
//
// # By hand
//
//	go run ./banksync/fakeenablebanking/cmd/fakeenablebanking [-addr 127.0.0.1:8788]
//
// writes the application's private key to a file, prints the environment to start Tally with,
// and serves a demo German bank (and a decoupled one) with 90 days of transactions.
package fakeenablebanking
