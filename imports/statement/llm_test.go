package statement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const (
	testKey   = "sk-test-0123456789"
	testModel = "statement-reader-1"
)

// fakeModel is an OpenAI-compatible endpoint that checks each request and answers with the
// next canned reply. A reply is the message content, or a whole HTTP answer when status is set.
type fakeModel struct {
	t       *testing.T
	mu      sync.Mutex
	replies []fakeReply
	texts   []string // the user text of each request
}

type fakeReply struct {
	content string
	status  int
	body    string
}

func newFakeModel(t *testing.T, replies ...fakeReply) (*fakeModel, *httptest.Server) {
	f := &fakeModel{t: t, replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		f.t.Errorf("Authorization = %q, want the bearer token", got)
	}
	var req struct {
		Model          string `json:"model"`
		ResponseFormat struct {
			Type string `json:"type"`
		} `json:"response_format"`
		Messages []struct {
			Role, Content string
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	if req.Model != testModel || req.ResponseFormat.Type != "json_object" {
		f.t.Errorf("model %q, response_format %q; want %q, json_object", req.Model, req.ResponseFormat.Type, testModel)
	}
	if n := len(req.Messages); n != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		f.t.Errorf("messages = %+v, want a system and a user message", req.Messages)
	} else {
		f.texts = append(f.texts, req.Messages[1].Content)
	}
	if len(f.replies) == 0 {
		f.t.Errorf("more requests than canned replies")
		http.Error(w, "no reply", http.StatusInternalServerError)
		return
	}
	reply := f.replies[0]
	f.replies = f.replies[1:]
	if reply.status != 0 {
		w.WriteHeader(reply.status)
		io.WriteString(w, reply.body)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": reply.content}}},
	})
}

// llmPages is the text of the single-column test statement, as pdftotext lays it out.
var llmPages = []string{`FIRST EXAMPLE BANK
Statement period: 01/01/2024 - 01/31/2024
Opening balance                                     1,000.00
Date          Description                 Amount     Balance
01/02/2024    PAYROLL ACME CORP         2,500.00    3,500.00
01/03/2024    RENT JANUARY             -1,200.00    2,300.00
01/05/2024    COFFEE SHOP #123             -4.50    2,295.50
Closing balance                                     2,295.50
`}

func TestLLMExtract(t *testing.T) {
	fake, srv := newFakeModel(t, fakeReply{content: `{"opening_balance": 1000.00, "closing_balance": "2295.50",
		"currency": "usd", "transactions": [
		{"date": "2024-01-02", "description": "PAYROLL ACME CORP", "amount": 2500},
		{"date": "2024-01-03", "description": "RENT  JANUARY", "amount": -1200.00},
		{"date": "2024-01-05", "description": "COFFEE SHOP #123", "amount": "-4.50"}]}`})
	l := &LLM{BaseURL: srv.URL + "/v1/", APIKey: testKey, Model: testModel, HTTP: srv.Client()}
	st, err := l.Extract(context.Background(), llmPages)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	checkStatement(t, st, wantStatement{
		kind: KindBank, opening: "1000", closing: "2295.5", currency: "USD", reconciled: true,
		periodStart: "2024-01-01", periodEnd: "2024-01-31",
		lines: []wantLine{
			{1, "2024-01-02", "PAYROLL ACME CORP", "2500", "", ""},
			{1, "2024-01-03", "RENT JANUARY", "-1200", "", ""},
			{1, "2024-01-05", "COFFEE SHOP #123", "-4.5", "", ""},
		},
	})
	if st.Lines[1].LineNo != 6 || !strings.Contains(st.Lines[1].Raw, "RENT JANUARY") {
		t.Errorf("line 2 traced to line %d %q, want line 6", st.Lines[1].LineNo, st.Lines[1].Raw)
	}
	if len(fake.texts) != 1 || !strings.Contains(fake.texts[0], "PAYROLL ACME CORP") {
		t.Errorf("the statement text was not sent: %q", fake.texts)
	}
}

func TestLLMExtractFlagsWhatTheTextDoesNotSupport(t *testing.T) {
	_, srv := newFakeModel(t, fakeReply{content: "```json\n" + `{"opening_balance": 1000, "closing_balance": 2295.50,
		"currency": null, "transactions": [
		{"date": "2024-01-02", "description": "PAYROLL ACME CORP", "amount": 2500},
		{"date": "2024-01-03", "description": "RENT JANUARY", "amount": -1200},
		{"date": "2024-01-05", "description": "COFFEE SHOP #123", "amount": -4.50},
		{"date": "2024-01-06", "description": "TAXI", "amount": -17.25}]}` + "\n```"})
	l := &LLM{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: testModel}
	st, err := l.Extract(context.Background(), llmPages)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if st.Reconciled {
		t.Errorf("a made-up line reconciled")
	}
	taxi := st.Lines[3]
	if taxi.Page != 0 || len(taxi.Problems) != 1 || !strings.Contains(taxi.Problems[0], "17.25 does not appear") {
		t.Errorf("made-up line = page %d, problems %q", taxi.Page, taxi.Problems)
	}
	if want := "17.25 is unaccounted for"; !strings.Contains(strings.Join(st.Problems, "\n"), want) {
		t.Errorf("problems %q, want one saying %q", st.Problems, want)
	}
}

func TestLLMExtractSendsLongTextInParts(t *testing.T) {
	var page1, page2 strings.Builder
	page1.WriteString("Opening balance 10.00\n01/02/2024  FIRST DEPOSIT   5.00\n")
	for page1.Len() < 9000 {
		page1.WriteString("Terms and conditions apply to every account and every transaction.\n")
	}
	page2.WriteString("01/20/2024  SECOND DEPOSIT   7.00\nClosing balance 22.00\n")
	for page2.Len() < 9000 {
		page2.WriteString("Please check this statement and tell us about anything wrong.\n")
	}
	fake, srv := newFakeModel(t,
		fakeReply{content: `{"opening_balance": 10, "closing_balance": null, "transactions": [
			{"date": "2024-01-02", "description": "FIRST DEPOSIT", "amount": 5}]}`},
		fakeReply{content: `{"opening_balance": null, "closing_balance": 22, "transactions": [
			{"date": "2024-01-20", "description": "SECOND DEPOSIT", "amount": 7}]}`})
	l := &LLM{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: testModel}
	st, err := l.Extract(context.Background(), []string{page1.String(), page2.String()})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if len(fake.texts) != 2 {
		t.Fatalf("sent %d requests, want 2", len(fake.texts))
	}
	for i, text := range fake.texts {
		if len(text) > llmChunkChars {
			t.Errorf("request %d sent %d characters, more than %d", i+1, len(text), llmChunkChars)
		}
		if want := fmt.Sprintf("--- page %d ---", i+1); !strings.HasPrefix(text, want) {
			t.Errorf("request %d starts %q, want %q", i+1, text[:20], want)
		}
	}
	checkStatement(t, st, wantStatement{kind: KindBank, opening: "10", closing: "22", reconciled: true, lines: []wantLine{
		{1, "2024-01-02", "FIRST DEPOSIT", "5", "", ""},
		{2, "2024-01-20", "SECOND DEPOSIT", "7", "", ""},
	}})
}

func TestLLMExtractErrors(t *testing.T) {
	tests := []struct {
		name   string
		reply  fakeReply
		want   []string // substrings of the public message
		detail []string // substrings of the detail for the log
	}{
		{"server error", fakeReply{status: 500, body: `{"error": "upstream failed for key ` + testKey + `"}`},
			[]string{"failed (HTTP 500)"}, []string{"500 Internal Server Error", "upstream failed", "[redacted]"}},
		{"unauthorized", fakeReply{status: 401, body: "invalid api key " + testKey}, []string{"refused the API key (HTTP 401)"},
			[]string{"invalid api key [redacted]"}},
		{"rate limited", fakeReply{status: 429, body: "slow down"}, []string{"HTTP 429"}, []string{"slow down"}},
		{"malformed endpoint answer", fakeReply{status: 200, body: `{"choices": [`}, []string{"not valid JSON"},
			[]string{`{"choices": [`}},
		{"malformed content", fakeReply{content: `{"transactions": [{"date": "2024-01-02",`}, []string{"not valid JSON"}, nil},
		{"content not an object", fakeReply{content: `["2024-01-02"]`}, []string{"not valid JSON"}, nil},
		{"no transactions list", fakeReply{content: `{"opening_balance": 5}`}, []string{`no "transactions" list`}, nil},
		{"bad date", fakeReply{content: `{"transactions": [
			{"date": "2024-01-02", "description": "A", "amount": 1},
			{"date": "2024-13-01", "description": "B", "amount": 1}]}`},
			[]string{"transaction 2", `"2024-13-01" is not a YYYY-MM-DD date`}, nil},
		{"date in another format", fakeReply{content: `{"transactions": [{"date": "01/02/2024", "description": "A", "amount": 1}]}`},
			[]string{"transaction 1", `"01/02/2024"`}, nil},
		{"bad amount", fakeReply{content: `{"transactions": [{"date": "2024-01-02", "description": "COFFEE", "amount": "4,50 EUR"}]}`},
			[]string{"transaction 1", "COFFEE", `"4,50 EUR" is not a number`}, nil},
		{"amount too large", fakeReply{content: `{"transactions": [
			{"date": "2024-01-02", "description": "A", "amount": 1},
			{"date": "2024-01-03", "description": "HUGE", "amount": -1234567890123456.5}]}`},
			[]string{"transaction 2", "HUGE", "16 digits before the decimal point (at most 15)"}, nil},
		{"amount too long", fakeReply{content: `{"transactions": [{"date": "2024-01-02", "description": "A", "amount": "` +
			strings.Repeat("1", 5000) + `"}]}`}, []string{"transaction 1", "too long for an amount"}, nil},
		{"missing amount", fakeReply{content: `{"transactions": [{"date": "2024-01-02", "description": "COFFEE"}]}`},
			[]string{"transaction 1", "amount: missing"}, nil},
		{"missing description", fakeReply{content: `{"transactions": [{"date": "2024-01-02", "amount": 1}]}`},
			[]string{"transaction 1", "no description"}, nil},
		{"bad balance", fakeReply{content: `{"opening_balance": true, "transactions": []}`}, []string{"opening_balance"}, nil},
		{"balance too large", fakeReply{content: `{"closing_balance": "9999999999999999", "transactions": []}`},
			[]string{"closing_balance", "16 digits"}, nil},
		{"bad currency", fakeReply{content: `{"currency": "dollars", "transactions": []}`}, []string{`"DOLLARS" is not an ISO 4217 code`}, nil},
		{"model error", fakeReply{status: 200, body: `{"error": {"message": "context length exceeded"}}`},
			[]string{"the model endpoint reported an error"}, []string{"context length exceeded"}},
		{"no choices", fakeReply{status: 200, body: `{"choices": []}`}, []string{"no message"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, srv := newFakeModel(t, tt.reply)
			l := &LLM{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: testModel}
			_, err := l.Extract(context.Background(), llmPages)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var e *ExtractError
			if !errors.As(err, &e) || !errors.Is(err, ErrUpstream) {
				t.Fatalf("error %#v is not an upstream ExtractError", err)
			}
			for _, w := range tt.detail {
				if !strings.Contains(e.Detail(), w) {
					t.Errorf("detail %q does not contain %q", e.Detail(), w)
				}
			}
			checkSafe(t, err, srv.URL, tt.reply.body)
		})
	}
}

// checkSafe checks that an error's message holds neither the API key, nor the endpoint's URL,
// nor the body it answered, and that its detail does not hold the key either.
func checkSafe(t *testing.T, err error, url, body string) {
	t.Helper()
	msg := err.Error()
	host := strings.TrimPrefix(url, "http://")
	if strings.Contains(msg, testKey) || strings.Contains(msg, host) || body != "" && strings.Contains(msg, body) {
		t.Errorf("error %q shows the key, the endpoint or its answer", msg)
	}
	var e *ExtractError
	if errors.As(err, &e) && strings.Contains(e.Detail(), testKey) {
		t.Errorf("detail %q contains the API key", e.Detail())
	}
}

func TestLLMExtractUnreachableEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	l := &LLM{BaseURL: url + "/v1?key=" + testKey, APIKey: testKey, Model: testModel}
	_, err := l.Extract(context.Background(), llmPages)
	if !errors.Is(err, ErrUpstream) || !strings.Contains(err.Error(), "could not be reached") {
		t.Fatalf("error = %v, want an upstream error saying the endpoint could not be reached", err)
	}
	checkSafe(t, err, url, "")
	var e *ExtractError
	if errors.As(err, &e) && !strings.Contains(e.Detail(), strings.TrimPrefix(url, "http://")) {
		t.Errorf("detail %q does not name the endpoint, for the log", e.Detail())
	}
}

func TestLLMExtractRoundsAmounts(t *testing.T) {
	_, srv := newFakeModel(t, fakeReply{content: `{"opening_balance": 1000.004, "closing_balance": 2295.4999999999995,
		"transactions": [
		{"date": "2024-01-02", "description": "PAYROLL ACME CORP", "amount": "2500.001"},
		{"date": "2024-01-03", "description": "RENT JANUARY", "amount": -1199.995},
		{"date": "2024-01-05", "description": "COFFEE SHOP #123", "amount": -4.5}]}`})
	l := &LLM{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: testModel}
	st, err := l.Extract(context.Background(), llmPages)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	checkStatement(t, st, wantStatement{
		kind: KindBank, opening: "1000", closing: "2295.5", reconciled: true,
		periodStart: "2024-01-01", periodEnd: "2024-01-31",
		lines: []wantLine{
			{1, "2024-01-02", "PAYROLL ACME CORP", "2500", "", ""},
			{1, "2024-01-03", "RENT JANUARY", "-1200", "", ""},
			{1, "2024-01-05", "COFFEE SHOP #123", "-4.5", "", ""},
		},
	})
}

func TestLLMExtractHonoursContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	l := &LLM{BaseURL: srv.URL, APIKey: testKey, Model: testModel}
	errc := make(chan error, 1)
	go func() {
		_, err := l.Extract(ctx, llmPages)
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) || !errors.Is(err, ErrUpstream) || strings.Contains(err.Error(), testKey) {
		t.Errorf("error = %v, want context.Canceled without the key", err)
	}
}

func TestLLMExtractNeedsConfiguration(t *testing.T) {
	for _, l := range []*LLM{nil, {Model: "m"}, {BaseURL: "http://127.0.0.1:1"}} {
		if _, err := l.Extract(context.Background(), llmPages); err == nil {
			t.Errorf("%+v: no error", l)
		}
	}
	l := &LLM{BaseURL: "http://127.0.0.1:1", Model: "m"}
	if _, err := l.Extract(context.Background(), []string{" \n "}); !errors.Is(err, ErrNoText) {
		t.Errorf("blank pages: error = %v, want ErrNoText", err)
	}
}

func TestChunkPages(t *testing.T) {
	long := strings.Repeat("x", 25_000) // one line longer than a part
	chunks := chunkPages([]string{"short page", long, "", "last"}, llmChunkChars)
	total := 0
	for i, c := range chunks {
		if len(c) > llmChunkChars {
			t.Errorf("part %d has %d characters", i, len(c))
		}
		total += strings.Count(c, "x")
	}
	if total != len(long) {
		t.Errorf("parts hold %d of the %d characters", total, len(long))
	}
	if !strings.Contains(chunks[len(chunks)-1], "--- page 4 ---\nlast") {
		t.Errorf("last part = %q", chunks[len(chunks)-1])
	}
}
