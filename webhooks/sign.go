package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Headers of every delivery.
const (
	// HeaderSignature is "t=<unix seconds>,v1=<hex HMAC-SHA256>" (Sign).
	HeaderSignature = "Tally-Signature"
	// HeaderEventID is the event's id: the same on every delivery of it, retries and
	// redeliveries included, so receivers can ignore one they have already handled.
	HeaderEventID = "Tally-Event-Id"
	// HeaderEventType is the event's type, also in the body.
	HeaderEventType = "Tally-Event-Type"
)

// Signature is the hex HMAC-SHA256, keyed with the whole secret (whsec_ included), of the
// timestamp in unix seconds, a dot, and the body exactly as sent: "<t>.<body>".
func Signature(secret string, t int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// Sign returns the Tally-Signature header of body sent at t: "t=<unix seconds>,v1=<Signature>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := t.Unix()
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + Signature(secret, ts, body)
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("the signature does not match the body")
	ErrStale        = errors.New("the signature's timestamp is too far from now")
)

// Verify checks a Tally-Signature header: one of its v1 signatures must be body's under
// secret, and its timestamp within tolerance of now (which refuses a replay of an old
// request). It is what a receiver does; Tally's tests use it as one.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts int64
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return ErrBadSignature
			}
			ts = n
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if ts == 0 || len(sigs) == 0 {
		return ErrBadSignature
	}
	want := []byte(Signature(secret, ts, body))
	ok := false
	for _, sig := range sigs {
		ok = ok || hmac.Equal([]byte(sig), want)
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrStale
	}
	return nil
}
