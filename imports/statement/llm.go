package statement

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// LLM extracts a statement with a language model behind an OpenAI-compatible chat completions
// endpoint, for statements whose layout Parse cannot read. Its answer is checked as strictly
// as a file would be and reconciled the same way, so a model's mistake shows up as a problem
// rather than as wrong data.
type LLM struct {
	BaseURL string // e.g. "https://api.example.com/v1"; "/chat/completions" is added
	APIKey  string // sent as a bearer token; never part of an error
	Model   string
	HTTP    *http.Client // nil means a client without a timeout: pass a context with a deadline
}

// Bounds on one extraction.
const (
	llmChunkChars = 12_000   // text sent per request, about 3,000 tokens
	maxLLMChunks  = 100      // requests per statement
	maxReplyBytes = 10 << 20 // one endpoint answer
)

// llmPrompt tells the model what to return. Amounts follow this package's convention, and
// balances are asked for as printed so that they can be reconciled like Parse's.
const llmPrompt = `You read bank and credit card statements. Reply with one JSON object and nothing else:
{"opening_balance": number or null, "closing_balance": number or null, "currency": ISO 4217 code or null,
 "transactions": [{"date": "YYYY-MM-DD", "description": string, "amount": number}]}
Rules:
- amount is negative for money going out of the account (withdrawals, purchases, fees, card charges, interest charged)
  and positive for money coming in (deposits, salary, refunds, payments made to a credit card).
- opening_balance and closing_balance are the statement's opening/previous and closing/new balances as printed;
  for a credit card they are the amounts owed. Use null when this text does not show them.
- Balance lines, totals and "brought forward"/"carried forward" lines are not transactions.
- Dates printed without a year take the year of the statement period.
- The text may be one part of a longer statement: report only what this part shows, in the order printed.`

// Extract sends the pages' text to the model, in parts of about 12,000 characters, and
// merges the answers: the opening balance from the first part that has one, the closing
// balance from the last, the transactions in order. Kind and period are read from the text
// as Parse reads them.
//
// Errors are ExtractErrors. Their messages (Error) can be shown to users: they never hold the
// endpoint's URL, the API key or what the endpoint answered, except for the few words of the
// model's reply that say what it got wrong ("transaction 3: amount ..."). The internal detail
// (ExtractError.Err) has the HTTP status, the start of the answer and the URL, for logs, with
// the API key removed. Every failure of the endpoint or of its answer matches ErrUpstream;
// a timeout or cancellation also matches context.DeadlineExceeded or context.Canceled.
func (l *LLM) Extract(ctx context.Context, pages []string) (*Statement, error) {
	if l == nil || strings.TrimSpace(l.BaseURL) == "" || strings.TrimSpace(l.Model) == "" {
		return nil, &ExtractError{Kind: ErrKindInternal, Public: "the LLM extractor needs a base URL and a model"}
	}
	chunks := chunkPages(pages, llmChunkChars)
	if len(chunks) == 0 {
		return nil, ErrNoText
	}
	if len(chunks) > maxLLMChunks {
		return nil, &ExtractError{Kind: ErrKindTooComplex, Public: fmt.Sprintf("the statement's text is too long to send "+
			"to a model (%d parts of %d characters; at most %d)", len(chunks), llmChunkChars, maxLLMChunks)}
	}
	replies := make([]llmReply, 0, len(chunks))
	for i, chunk := range chunks {
		reply, err := l.ask(ctx, chunk)
		if err != nil {
			var e *ExtractError
			if len(chunks) > 1 && errors.As(err, &e) {
				err = &ExtractError{Kind: e.Kind, Public: fmt.Sprintf("part %d of %d: %s", i+1, len(chunks), e.Public), Err: e.Err}
			}
			return nil, err
		}
		replies = append(replies, reply)
	}
	return buildFromReplies(pages, replies), nil
}

// llmError is the internal detail of an Extract error. Its message has the API key removed;
// it unwraps only to context errors, so that callers can tell a timeout from a bad answer.
type llmError struct {
	msg   string
	cause error
}

func (e *llmError) Error() string { return e.msg }
func (e *llmError) Unwrap() error { return e.cause }

// fail builds an Extract error: public for users, and detail, with the API key taken out,
// for logs. cause is kept, for errors.Is, when it is a context error.
func (l *LLM) fail(kind string, cause error, public string, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if l.APIKey != "" {
		msg = strings.ReplaceAll(msg, l.APIKey, "[redacted]")
		public = strings.ReplaceAll(public, l.APIKey, "[redacted]") // it may quote the model's reply
	}
	if cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		cause = nil
	}
	return &ExtractError{Kind: kind, Public: public, Err: &llmError{msg: msg, cause: cause}}
}

// transportError explains a failed request or read: the context ended, the endpoint timed
// out, or it could not be reached. err, which names the URL, is kept for the log only.
func (l *LLM) transportError(ctx context.Context, err error, doing string) error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return l.fail(ErrKindUpstream, ctx.Err(), "the request to the model was cancelled", "%s: %v", doing, err)
	case ctx.Err() != nil:
		return l.fail(ErrKindUpstream, ctx.Err(), "the model did not answer in time", "%s: %v", doing, err)
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return l.fail(ErrKindUpstream, nil, "the model did not answer in time", "%s: %v", doing, err)
	}
	return l.fail(ErrKindUpstream, nil, "the model endpoint could not be reached", "%s: %v", doing, err)
}

// statusError explains an HTTP error status; the answer's body goes to the log only.
func (l *LLM) statusError(resp *http.Response, raw []byte) error {
	code := resp.StatusCode
	var public string
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		public = fmt.Sprintf("the model endpoint refused the API key (HTTP %d)", code)
	case code == http.StatusTooManyRequests:
		public = "the model endpoint is limiting requests (HTTP 429); try again later"
	case code >= 500:
		public = fmt.Sprintf("the model endpoint failed (HTTP %d)", code)
	default:
		public = fmt.Sprintf("the model endpoint rejected the request (HTTP %d)", code)
	}
	return l.fail(ErrKindUpstream, nil, public, "the model endpoint answered %s: %s", resp.Status, snippet(raw))
}

// ask sends one part of the text and returns the model's validated answer.
func (l *LLM) ask(ctx context.Context, text string) (llmReply, error) {
	body, err := json.Marshal(map[string]any{
		"model": l.Model,
		"messages": []map[string]string{
			{"role": "system", "content": llmPrompt},
			{"role": "user", "content": text},
		},
		"response_format": map[string]string{"type": "json_object"},
		"temperature":     0,
	})
	if err != nil {
		return llmReply{}, l.fail(ErrKindInternal, nil, "the model request could not be built", "building the model request: %v", err)
	}
	url := strings.TrimRight(strings.TrimSpace(l.BaseURL), "/") + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return llmReply{}, l.fail(ErrKindInternal, nil, "the model endpoint is not configured correctly",
			"the model endpoint URL is not valid: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if l.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	client := l.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return llmReply{}, l.transportError(ctx, err, "asking the model")
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return llmReply{}, l.transportError(ctx, err, "reading the model's answer")
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return llmReply{}, l.statusError(resp, raw)
	}
	if len(raw) > maxReplyBytes {
		msg := fmt.Sprintf("the model's answer is larger than %d MB", maxReplyBytes>>20)
		return llmReply{}, l.fail(ErrKindUpstream, nil, msg, "%s", msg)
	}
	content, err := completionContent(raw)
	if err != nil {
		var re *replyError
		if errors.As(err, &re) {
			return llmReply{}, l.fail(ErrKindUpstream, nil, re.public, "%s", re.detail)
		}
		return llmReply{}, l.fail(ErrKindUpstream, nil, "the model endpoint's answer could not be read", "%v", err)
	}
	reply, err := parseReply(content)
	if err != nil {
		return llmReply{}, l.fail(ErrKindUpstream, nil, "the model's reply: "+err.Error(),
			"the model's reply: %v; it began: %s", err, snippet([]byte(content)))
	}
	return reply, nil
}

// replyError is what is wrong with an endpoint's answer: public for users, detail (with the
// start of the answer) for logs.
type replyError struct{ public, detail string }

func (e *replyError) Error() string { return e.detail }

// completionContent takes the message out of a chat completions answer.
func completionContent(raw []byte) (string, error) {
	var resp struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return "", &replyError{"the model endpoint's answer is not valid JSON",
			fmt.Sprintf("the model endpoint's answer is not valid JSON (%v): %s", err, snippet(raw))}
	}
	if resp.Error != nil {
		return "", &replyError{"the model endpoint reported an error",
			"the model endpoint reported an error: " + snippet([]byte(resp.Error.Message))}
	}
	if len(resp.Choices) == 0 || strings.TrimSpace(resp.Choices[0].Message.Content) == "" {
		return "", &replyError{"the model endpoint's answer has no message", "the model endpoint's answer has no message: " + snippet(raw)}
	}
	return resp.Choices[0].Message.Content, nil
}

// snippet is the start of a body, on one line, for the internal detail of an error.
func snippet(raw []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(raw), "?")), " ")
	if len(s) > 300 {
		s = cutAtRune(s, 300) + "…"
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// llmReply is one validated answer.
type llmReply struct {
	opening, closing *decimal.Decimal
	currency         string
	txns             []llmTxn
}

type llmTxn struct {
	date        time.Time
	description string
	amount      decimal.Decimal
}

// parseReply validates the model's JSON: every transaction must have a YYYY-MM-DD date that
// exists, a description and a numeric amount; balances are numbers or null. Errors name the
// transaction, so a person can see what the model got wrong.
func parseReply(content string) (llmReply, error) {
	var wire struct {
		Opening      json.RawMessage `json:"opening_balance"`
		Closing      json.RawMessage `json:"closing_balance"`
		Currency     *string         `json:"currency"`
		Transactions *[]struct {
			Date        *string         `json:"date"`
			Description *string         `json:"description"`
			Amount      json.RawMessage `json:"amount"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(stripFences(content)), &wire); err != nil {
		return llmReply{}, fmt.Errorf("not valid JSON of the expected shape: %v", err)
	}
	if wire.Transactions == nil {
		return llmReply{}, errors.New(`it has no "transactions" list`)
	}
	var reply llmReply
	var err error
	if reply.opening, err = jsonAmount(wire.Opening, true); err != nil {
		return llmReply{}, fmt.Errorf("opening_balance: %v", err)
	}
	if reply.closing, err = jsonAmount(wire.Closing, true); err != nil {
		return llmReply{}, fmt.Errorf("closing_balance: %v", err)
	}
	if wire.Currency != nil {
		if reply.currency, err = isoCode(*wire.Currency); err != nil {
			return llmReply{}, err
		}
	}
	for i, w := range *wire.Transactions {
		n := i + 1
		if w.Date == nil {
			return llmReply{}, fmt.Errorf("transaction %d has no date", n)
		}
		date, err := time.Parse("2006-01-02", strings.TrimSpace(*w.Date))
		if err != nil {
			return llmReply{}, fmt.Errorf("transaction %d: date %q is not a YYYY-MM-DD date", n, clip(*w.Date, 40))
		}
		if w.Description == nil || strings.TrimSpace(*w.Description) == "" {
			return llmReply{}, fmt.Errorf("transaction %d (%s) has no description", n, *w.Date)
		}
		desc := cleanText(*w.Description)
		amount, err := jsonAmount(w.Amount, false)
		if err != nil {
			return llmReply{}, fmt.Errorf("transaction %d (%s %q): amount: %v", n, *w.Date, clip(desc, 60), err)
		}
		reply.txns = append(reply.txns, llmTxn{date, desc, *amount})
	}
	return reply, nil
}

// stripFences removes a Markdown code fence some models put around JSON even when asked not to.
func stripFences(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		rest = strings.TrimLeftFunc(strings.TrimPrefix(rest, "json"), unicode.IsSpace)
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	return s
}

// Bounds on an amount from the model: no ledger holds more than 15 digits before the decimal
// point, and a longer text is not an amount.
const (
	maxAmountDigits = 15
	maxAmountChars  = 40
)

// jsonAmount reads a JSON number, or a string holding a plain decimal number ("-12.34"). An
// amount with more than 15 digits before the decimal point is refused; one with more than two
// decimals (a float's "2295.4999999999995") is rounded to two, half away from zero.
func jsonAmount(raw json.RawMessage, nullable bool) (*decimal.Decimal, error) {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		if nullable {
			return nil, nil
		}
		return nil, errors.New("missing")
	}
	if strings.HasPrefix(text, `"`) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s is not a number", clip(text, maxAmountChars))
		}
		text = strings.TrimSpace(s)
	}
	if len(text) > maxAmountChars {
		return nil, fmt.Errorf("%q is too long for an amount", clip(text, maxAmountChars))
	}
	d, err := decimal.NewFromString(text)
	if err != nil || strings.ContainsAny(text, "eE") {
		return nil, fmt.Errorf("%q is not a number", text)
	}
	whole, _, _ := strings.Cut(strings.TrimLeft(text, "+-"), ".")
	if digits := len(strings.TrimLeft(whole, "0")); digits > maxAmountDigits {
		return nil, fmt.Errorf("%s has %d digits before the decimal point (at most %d)", text, digits, maxAmountDigits)
	}
	d = d.Round(2)
	return &d, nil
}

// clip shortens s to about n bytes, for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutAtRune(s, n) + "…"
}

// isoCode validates a currency code the model gave; empty stays empty.
func isoCode(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	if len(s) != 3 || strings.IndexFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return "", fmt.Errorf("currency %q is not an ISO 4217 code", s)
	}
	return s, nil
}

// chunkPages joins the pages' text into parts of at most size characters, cutting between
// pages where it can and between lines where a page is longer. Each page is introduced by a
// marker so the model knows where it is.
func chunkPages(pages []string, size int) []string {
	var chunks []string
	var b strings.Builder
	for i, p := range pages[:min(len(pages), maxPages)] {
		if strings.TrimSpace(p) == "" {
			continue
		}
		for _, piece := range splitLong(fmt.Sprintf("--- page %d ---\n%s\n", i+1, p), size) {
			if b.Len() > 0 && b.Len()+len(piece) > size {
				chunks = append(chunks, b.String())
				b.Reset()
			}
			b.WriteString(piece)
		}
	}
	if b.Len() > 0 {
		chunks = append(chunks, b.String())
	}
	return chunks
}

// splitLong cuts s into pieces of at most size bytes, at line ends when it can.
func splitLong(s string, size int) []string {
	var pieces []string
	for len(s) > size {
		cut := strings.LastIndexByte(s[:size], '\n') + 1
		if cut <= 0 {
			cut = len(cutAtRune(s, size))
			if cut == 0 {
				_, cut = utf8.DecodeRuneInString(s)
			}
		}
		pieces = append(pieces, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		pieces = append(pieces, s)
	}
	return pieces
}

// buildFromReplies merges the answers into a statement: kind, period and (failing the model's)
// currency are read from the text as Parse reads them, and each line is traced back to the
// text line that prints its amount. A line whose amount the text does not print is flagged:
// the model may have made it up or misread it.
func buildFromReplies(pages []string, replies []llmReply) *Statement {
	base := Parse(pages, Options{})
	st := &Statement{Kind: base.Kind, PeriodStart: base.PeriodStart, PeriodEnd: base.PeriodEnd, Currency: base.Currency}
	for _, r := range replies {
		if st.Opening == nil {
			st.Opening = r.opening
		}
		if r.closing != nil {
			st.Closing = r.closing
		}
		if r.currency != "" && st.Currency == "" {
			st.Currency = r.currency
		}
	}
	lines := slices.Collect(newPageText(pages).lines())
	idx := indexAmounts(lines)
	used := map[int]bool{}
	for _, r := range replies {
		for _, t := range r.txns {
			line := Line{Date: t.date, Description: t.description, Amount: t.amount}
			if at, ok := idx.find(lines, t, used); ok {
				used[at] = true
				line.Page, line.LineNo, line.Raw = lines[at].page, lines[at].no, lines[at].raw
			} else {
				line.Problems = append(line.Problems, fmt.Sprintf("the model returned this line, but its amount %s "+
					"does not appear in the statement's text", formatMoney(t.amount.Abs())))
			}
			st.Lines = append(st.Lines, line)
		}
	}
	reconcile(st, 0)
	return st
}

// amountIndex maps each figure printed in the text ("1234.56") to the lines that print it.
type amountIndex map[string][]int

func indexAmounts(lines []textLine) amountIndex {
	idx := amountIndex{}
	for i, l := range lines {
		for _, w := range l.words {
			if m, ok := parseMoney(w.text); ok {
				key := m.abs.StringFixed(2)
				if n := len(idx[key]); n == 0 || idx[key][n-1] != i {
					idx[key] = append(idx[key], i)
				}
			}
		}
	}
	return idx
}

// find returns the first unused line printing t's amount, preferring one that also has the
// first word of its description.
func (idx amountIndex) find(lines []textLine, t llmTxn, used map[int]bool) (int, bool) {
	candidates := idx[t.amount.Abs().StringFixed(2)]
	first := strings.ToLower(strings.SplitN(t.description, " ", 2)[0])
	fallback := -1
	for _, i := range candidates {
		if used[i] {
			continue
		}
		if first != "" && strings.Contains(strings.ToLower(lines[i].raw), first) {
			return i, true
		}
		if fallback < 0 {
			fallback = i
		}
	}
	return fallback, fallback >= 0
}
