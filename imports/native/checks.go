package native

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/models"
)

// refSpec is a field holding another record's source id.
type refSpec struct {
	field, target string
	optional      bool // absence only skips the record (RejectedTransfer)
}

// spec is what the preflight checks for one record type (§6.5 plus Tally's value checks).
type spec struct {
	idKind   string // the source-id namespace for duplicate_source_id, "" when ids are not mapped
	required []string
	dates    []string
	numbers  []string
	refs     []refSpec
}

var (
	balanceNumbers = []string{"balance", "cash_balance", "start_cash_balance", "start_non_cash_balance",
		"cash_inflows", "cash_outflows", "non_cash_inflows", "non_cash_outflows", "net_market_flows",
		"cash_adjustments", "non_cash_adjustments", "flows_factor"}
	accountRef = refSpec{field: "account_id", target: "Account"}
)

var specs = map[string]spec{
	"Account": {idKind: "Account", required: []string{"id", "name", "balance", "accountable_type"},
		dates: []string{"opening_balance_date", "opening_balance_on"}, numbers: []string{"balance", "cash_balance"}},
	"Balance": {required: []string{"account_id", "date", "balance"}, dates: []string{"date"},
		numbers: balanceNumbers, refs: []refSpec{accountRef}},
	"Category": {idKind: "Category", required: []string{"id", "name"},
		refs: []refSpec{{field: "parent_id", target: "Category"}}},
	"Tag":      {idKind: "Tag", required: []string{"id", "name"}},
	"Merchant": {idKind: "Merchant", required: []string{"id", "name"}},
	"RecurringTransaction": {idKind: "RecurringTransaction",
		required: []string{"id", "amount", "expected_day_of_month", "last_occurrence_date", "next_expected_date"},
		dates:    []string{"last_occurrence_date", "next_expected_date"},
		numbers:  []string{"amount", "expected_amount_min", "expected_amount_max", "expected_amount_avg", "occurrence_count", "confidence"},
		refs:     []refSpec{accountRef, {field: "merchant_id", target: "Merchant"}, {field: "category_id", target: "Category"}}},
	"Transaction": {idKind: "Transaction", required: []string{"id", "account_id", "date", "amount"},
		dates: []string{"date"}, numbers: []string{"amount"},
		refs: []refSpec{accountRef, {field: "category_id", target: "Category"}, {field: "merchant_id", target: "Merchant"}}},
	"Transfer": {required: []string{"inflow_transaction_id", "outflow_transaction_id"},
		refs: []refSpec{{field: "inflow_transaction_id", target: "Transaction"}, {field: "outflow_transaction_id", target: "Transaction"}}},
	"RejectedTransfer": {required: []string{"inflow_transaction_id", "outflow_transaction_id"},
		refs: []refSpec{{field: "inflow_transaction_id", target: "Transaction", optional: true},
			{field: "outflow_transaction_id", target: "Transaction", optional: true}}},
	"Trade": {required: []string{"account_id", "date", "amount", "qty", "price", "ticker"},
		dates: []string{"date"}, numbers: []string{"amount", "qty", "price"}, refs: []refSpec{accountRef}},
	"Holding": {required: []string{"account_id", "date", "amount", "qty", "price", "ticker"},
		dates: []string{"date"}, numbers: []string{"amount", "qty", "price", "cost_basis"}, refs: []refSpec{accountRef}},
	"Valuation": {required: []string{"account_id", "date", "amount"}, dates: []string{"date"},
		numbers: []string{"amount"}, refs: []refSpec{accountRef}},
	"Budget": {idKind: "Budget", required: []string{"id", "start_date", "end_date"},
		dates: []string{"start_date", "end_date"}, numbers: []string{"budgeted_spending", "expected_income"}},
	"BudgetCategory": {required: []string{"budget_id", "category_id"}, numbers: []string{"budgeted_spending"},
		refs: []refSpec{{field: "budget_id", target: "Budget"}, {field: "category_id", target: "Category"}}},
	// Rule ids are mapped too (§6.3), so Tally also rejects duplicate rule ids.
	"Rule": {idKind: "Rule", required: []string{"id"}, dates: []string{"effective_date"}},
}

// ruleOperands maps the rule condition and action types whose operand names a category,
// merchant or tag to the record type named.
var ruleOperands = map[string]string{
	"transaction_category": "Category", "set_transaction_category": "Category",
	"transaction_merchant": "Merchant", "set_transaction_merchant": "Merchant",
	"transaction_tag": "Tag", "set_transaction_tags": "Tag",
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

type seen struct {
	line  int
	field string
}

// checker runs the cross-line checks over the file's valid records.
type checker struct {
	f   *File
	ids map[string]map[string]seen // record type → source id → where first defined
}

func newChecker(f *File) *checker {
	return &checker{f: f, ids: map[string]map[string]seen{}}
}

func (c *checker) run() {
	// Ids first, so that a reference to a record later in the file resolves: Sure processes
	// by type, not by line.
	for i := range c.f.Records {
		c.collectIDs(&c.f.Records[i])
	}
	names := map[string]map[string]int{}
	valuations := map[string]int{}
	provenance := map[string]int{}
	periods := map[string]int{}
	for i := range c.f.Records {
		r := &c.f.Records[i]
		c.checkRecord(r)
		c.checkProvenance(r, provenance)
		switch r.Type {
		case "Category", "Tag", "Merchant":
			name, _ := r.Data["name"].(string)
			name = strings.TrimSpace(name)
			if name == "" {
				break
			}
			if names[r.Type] == nil {
				names[r.Type] = map[string]int{}
			}
			if first, dup := names[r.Type][name]; dup {
				c.problem(r, CodeDuplicateTaxonomyName, "name", "%s name %q is already used by line %d", r.Type, name, first)
			} else {
				names[r.Type][name] = r.Line
			}
		case "Budget":
			// A family has one budget per period: a second line for it would merge into the first.
			start, ok1 := r.Date("start_date")
			end, ok2 := r.Date("end_date")
			if !ok1 || !ok2 {
				break
			}
			key := start.Format(time.DateOnly) + "|" + end.Format(time.DateOnly)
			if first, dup := periods[key]; dup {
				c.problem(r, CodeDuplicateBudgetPeriod, "start_date", "%s is for %s to %s, the period of the budget on line %d",
					label(r.Type, r.SourceID), start.Format(time.DateOnly), end.Format(time.DateOnly), first)
			} else {
				periods[key] = r.Line
			}
		case "Valuation":
			acct, ok1 := scalarString(r.Data["account_id"])
			ds, _ := r.Data["date"].(string)
			d, ok2 := parseDate(ds)
			if !ok1 || !ok2 || acct == "" {
				break
			}
			key := acct + "\x00" + d.Format(time.DateOnly)
			if first, dup := valuations[key]; dup {
				c.problem(r, CodeDuplicateValuation, "date", "%s duplicates the valuation for account %q on %s first seen on line %d",
					label(r.Type, r.SourceID), acct, d.Format(time.DateOnly), first)
			} else {
				valuations[key] = r.Line
			}
		}
	}
	// Problems from the line pass and from this pass interleave; line order reads best.
	slices.SortStableFunc(c.f.Problems, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
}

// checkProvenance reports an entry whose source and external id another line of the file
// already gives an entry of the same account: one account cannot hold both.
func (c *checker) checkProvenance(r *Record, seenAt map[string]int) {
	if r.Type != "Transaction" && r.Type != "Trade" && r.Type != "Valuation" {
		return
	}
	ext, src, acct := r.String("external_id"), r.String("source"), r.ID("account_id")
	if ext == "" || src == "" || acct == "" {
		return
	}
	key := acct + "\x00" + src + "\x00" + ext
	if first, dup := seenAt[key]; dup {
		c.problem(r, CodeDuplicateExternalID, "external_id", "%s has source %q and external_id %q, which line %d already gives an entry of account %q",
			label(r.Type, r.SourceID), src, ext, first, acct)
		return
	}
	seenAt[key] = r.Line
}

// problem records an error on r's line.
func (c *checker) problem(r *Record, code, field, format string, args ...any) {
	c.f.Problems = append(c.f.Problems, Problem{Code: code, Line: r.Line, Type: r.Type, Field: field,
		Message: fmt.Sprintf("line %d: ", r.Line) + fmt.Sprintf(format, args...)})
}

func (c *checker) warning(r *Record, code, field, format string, args ...any) {
	c.f.Warnings = append(c.f.Warnings, Problem{Code: code, Line: r.Line, Type: r.Type, Field: field,
		Message: fmt.Sprintf("line %d: ", r.Line) + fmt.Sprintf(format, args...)})
}

// defineID registers a source id, reporting a duplicate within the same namespace.
func (c *checker) defineID(r *Record, kind, field, id string) {
	if id == "" {
		return
	}
	m := c.ids[kind]
	if m == nil {
		m = map[string]seen{}
		c.ids[kind] = m
	}
	if chunk, dup := c.f.opts.Known.chunkOf(kind, id); dup {
		c.problem(r, CodeDuplicateSourceID, field, "%s source id %q is already used by chunk %d", kind, id, chunk)
		return
	}
	if first, dup := m[id]; dup {
		where := fmt.Sprintf("line %d", first.line)
		if first.field != "id" {
			where += " " + first.field
		}
		c.problem(r, CodeDuplicateSourceID, field, "%s source id %q is already used by %s", kind, id, where)
		return
	}
	m[id] = seen{line: r.Line, field: field}
	if c.f.defined == nil {
		c.f.defined = map[string]map[string]struct{}{}
	}
	if c.f.defined[kind] == nil {
		c.f.defined[kind] = map[string]struct{}{}
	}
	c.f.defined[kind][id] = struct{}{}
}

func (c *checker) collectIDs(r *Record) {
	s := specs[r.Type]
	if s.idKind == "" {
		return
	}
	if !isBlank(r.Data["id"]) {
		if _, ok := scalarString(r.Data["id"]); !ok {
			c.problem(r, CodeInvalidValue, "id", "%s id must be a string", r.Type)
		}
	}
	c.defineID(r, s.idKind, "id", r.SourceID)
	if r.Type == "Transaction" {
		// Split children are transactions too: transfers may name them (§6.3).
		lines, _, _ := splitLines(r.Data)
		for k, v := range lines {
			if m, ok := v.(map[string]any); ok {
				if id, ok := scalarString(m["id"]); ok {
					c.defineID(r, "Transaction", fmt.Sprintf("split_lines[%d].id", k+1), id)
				}
			}
		}
	}
}

// ref resolves a reference against the file, queueing it for the caller when unresolved.
func (c *checker) ref(r *Record, field, target string, v any, optional bool) {
	id, ok := scalarString(v)
	if !ok {
		c.problem(r, CodeInvalidValue, field, "%s %s must be a string id", label(r.Type, r.SourceID), field)
		return
	}
	if id == "" {
		return
	}
	if _, ok := c.ids[target][id]; ok {
		return
	}
	if _, ok := c.f.opts.Known.chunkOf(target, id); ok {
		return
	}
	c.f.UnresolvedRefs = append(c.f.UnresolvedRefs, Ref{Line: r.Line, Type: r.Type, SourceID: r.SourceID,
		Field: field, Target: target, ID: id, Optional: optional})
}

// tagRefs checks a tag_ids array under prefix ("" or "split_lines[K].").
func (c *checker) tagRefs(r *Record, prefix string, v any) {
	if isBlank(v) {
		return
	}
	arr, ok := v.([]any)
	if !ok {
		c.problem(r, CodeInvalidValue, prefix+"tag_ids", "%s %stag_ids must be an array of tag ids", label(r.Type, r.SourceID), prefix)
		return
	}
	for k, id := range arr {
		c.ref(r, fmt.Sprintf("%stag_ids[%d]", prefix, k+1), "Tag", id, false)
	}
}

func (c *checker) checkRecord(r *Record) {
	s := specs[r.Type]
	d := r.Data
	lbl := label(r.Type, r.SourceID)
	c.clipText(r, lbl)
	missing := map[string]bool{}
	for _, field := range s.required {
		if isBlank(d[field]) {
			missing[field] = true
			c.problem(r, CodeMissingFields, field, "%s is missing required field %s", lbl, field)
		}
	}
	dates := map[string]time.Time{}
	for _, field := range s.dates {
		if isBlank(d[field]) {
			continue
		}
		if t, ok := dateValue(d[field]); ok {
			dates[field] = t
		} else {
			c.problem(r, CodeInvalidDate, field, "%s %s %s is not a date in the form YYYY-MM-DD", lbl, field, show(d[field]))
		}
	}
	amounts := map[string]decimal.Decimal{}
	for _, field := range s.numbers {
		if isBlank(d[field]) {
			continue
		}
		if n, err := numberValue(d[field]); err != "" {
			c.problem(r, CodeInvalidNumber, field, "%s %s %s %s", lbl, field, show(d[field]), err)
		} else {
			amounts[field] = n
		}
	}
	if v, ok := d["currency"]; ok && !isBlank(v) {
		cur, _ := v.(string)
		if !validCurrency(strings.TrimSpace(cur)) {
			c.problem(r, CodeInvalidCurrency, "currency", "%s currency %s is not a three-letter ISO code such as USD", lbl, show(v))
		}
	}
	for _, rs := range s.refs {
		if !isBlank(d[rs.field]) {
			c.ref(r, rs.field, rs.target, d[rs.field], rs.optional)
		}
	}
	c.tagRefs(r, "", d["tag_ids"])

	switch r.Type {
	case "Account":
		c.checkAccount(r, lbl, missing)
	case "RecurringTransaction":
		if v := d["expected_day_of_month"]; !isBlank(v) {
			if n, err := numberValue(v); err != "" || !n.IsInteger() || n.LessThan(decimal.NewFromInt(1)) || n.GreaterThan(decimal.NewFromInt(31)) {
				c.problem(r, CodeInvalidValue, "expected_day_of_month", "%s expected_day_of_month %s must be a whole number from 1 to 31", lbl, show(v))
			}
		}
	case "Transaction":
		amount, ok := amounts["amount"]
		c.checkSplits(r, lbl, amount, ok)
	case "Transfer":
		in, _ := scalarString(d["inflow_transaction_id"])
		out, _ := scalarString(d["outflow_transaction_id"])
		if in != "" && in == out {
			c.problem(r, CodeInvalidValue, "outflow_transaction_id", "%s has the same transaction %q on both sides", lbl, in)
		}
	case "Budget":
		start, ok1 := dates["start_date"]
		end, ok2 := dates["end_date"]
		if ok1 && ok2 && end.Before(start) {
			c.problem(r, CodeInvalidDate, "end_date", "%s end_date %s is before its start_date %s", lbl, end.Format(time.DateOnly), start.Format(time.DateOnly))
		}
	case "Rule":
		c.checkRule(r, lbl)
	}
}

// clipText cuts the record's text to the bounds of what it makes (models.MaxName for a name,
// models.MaxNotes for any other text, split lines' included), with a warning for each text
// it cut: a file is not asked again, so its record is kept, cut.
func (c *checker) clipText(r *Record, lbl string) {
	clip := func(m map[string]any, prefix string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			s, ok := m[k].(string)
			if !ok {
				continue
			}
			limit := models.MaxNotes
			if k == "name" {
				limit = models.MaxName
			}
			if cut, ok := models.Clip(s, limit); ok {
				m[k] = cut
				c.warning(r, CodeTextClipped, prefix+k, "%s", models.ClipNote(lbl+" "+prefix+k, limit))
			}
		}
	}
	clip(r.Data, "")
	if lines, field, _ := splitLines(r.Data); lines != nil {
		for i, l := range lines {
			if m, ok := l.(map[string]any); ok {
				clip(m, fmt.Sprintf("%s[%d].", field, i))
			}
		}
	}
}

func (c *checker) checkAccount(r *Record, lbl string, missing map[string]bool) {
	if missing["accountable_type"] {
		return
	}
	name, _ := r.Data["accountable_type"].(string)
	t, ok := models.AccountTypeByName(strings.TrimSpace(name))
	if !ok {
		names := make([]string, len(models.AccountTypes))
		for i, t := range models.AccountTypes {
			names[i] = t.Name
		}
		c.problem(r, CodeInvalidAccountableType, "accountable_type", "%s has invalid accountable_type %s; it must be one of %s",
			lbl, show(r.Data["accountable_type"]), strings.Join(names, ", "))
		return
	}
	field, sub := "subtype", r.Data["subtype"]
	if acc, ok := r.Data["accountable"].(map[string]any); ok && !isBlank(acc["subtype"]) {
		field, sub = "accountable.subtype", acc["subtype"]
	}
	if isBlank(sub) {
		return
	}
	s, ok := sub.(string)
	if !ok {
		c.problem(r, CodeInvalidAccountableSubtype, field, "%s has a %s subtype that is not text: %s", lbl, t.Name, show(sub))
		return
	}
	// A subtype Tally does not offer is kept as given rather than refused: other apps' exports
	// use subtypes Tally's forms do not list, and the data is the user's.
	if !slices.Contains(t.Subtypes, strings.TrimSpace(s)) {
		offered := "none"
		if len(t.Subtypes) > 0 {
			offered = strings.Join(t.Subtypes, ", ")
		}
		c.warning(r, CodeInvalidAccountableSubtype, field, "%s has %s subtype %s, which Tally does not offer (it offers: %s); it will be kept as given",
			lbl, t.Name, show(sub), offered)
	}
}

// splitLines returns a transaction's split lines under any of Sure's three names.
func splitLines(d map[string]any) (lines []any, field string, present bool) {
	for _, f := range []string{"split_lines", "splitLines", "splits"} {
		if v, ok := d[f]; ok && v != nil {
			arr, _ := v.([]any)
			return arr, f, true
		}
	}
	return nil, "split_lines", false
}

func (c *checker) checkSplits(r *Record, lbl string, amount decimal.Decimal, amountOK bool) {
	lines, field, present := splitLines(r.Data)
	if !present {
		return
	}
	if _, ok := r.Data[field].([]any); !ok {
		c.problem(r, CodeInvalidSplitLines, field, "%s %s must be an array", lbl, field)
		return
	}
	if len(lines) == 0 {
		return
	}
	sum, sumOK := decimal.Zero, amountOK
	for k, v := range lines {
		prefix := fmt.Sprintf("%s[%d]", field, k+1)
		m, ok := v.(map[string]any)
		if !ok {
			c.problem(r, CodeInvalidSplitLine, prefix, "%s split line %d must be a JSON object", lbl, k+1)
			sumOK = false
			continue
		}
		amountField, raw := "amount", m["amount"]
		for _, alt := range []string{"amount_decimal", "amount_money"} {
			if isBlank(raw) && !isBlank(m[alt]) {
				amountField, raw = alt, m[alt]
			}
		}
		if money, ok := raw.(map[string]any); ok { // amount_money may be {"amount": ..., "currency": ...}
			raw = money["amount"]
		}
		if isBlank(raw) {
			c.problem(r, CodeMissingFields, prefix+".amount", "%s split line %d is missing required field amount", lbl, k+1)
			sumOK = false
		} else if n, err := numberValue(raw); err != "" {
			c.problem(r, CodeInvalidNumber, prefix+"."+amountField, "%s split line %d %s %s %s", lbl, k+1, amountField, show(raw), err)
			sumOK = false
		} else {
			sum = sum.Add(n)
		}
		for _, rs := range []refSpec{{field: "category_id", target: "Category"}, {field: "merchant_id", target: "Merchant"}} {
			if !isBlank(m[rs.field]) {
				c.ref(r, prefix+"."+rs.field, rs.target, m[rs.field], false)
			}
		}
		c.tagRefs(r, prefix+".", m["tag_ids"])
	}
	if sumOK && !sum.Equal(amount) {
		c.problem(r, CodeSplitMismatch, field, "%s split line amounts must sum to the transaction amount %s but sum to %s",
			lbl, amount.String(), sum.String())
	}
}

func (c *checker) checkRule(r *Record, lbl string) {
	for _, list := range []string{"conditions", "actions"} {
		v := r.Data[list]
		if isBlank(v) {
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			c.problem(r, CodeInvalidValue, list, "%s %s must be an array", lbl, list)
			continue
		}
		c.checkRuleItems(r, lbl, list, arr)
	}
}

func (c *checker) checkRuleItems(r *Record, lbl, path string, items []any) {
	for k, v := range items {
		p := fmt.Sprintf("%s[%d]", path, k+1)
		m, ok := v.(map[string]any)
		if !ok {
			c.problem(r, CodeInvalidValue, p, "%s %s must be a JSON object", lbl, p)
			continue
		}
		if subs, ok := m["sub_conditions"].([]any); ok {
			c.checkRuleItems(r, lbl, p+".sub_conditions", subs)
		}
		kind, _ := m["condition_type"].(string)
		if kind == "" {
			kind, _ = m["action_type"].(string)
		}
		target, ok := ruleOperands[kind]
		if !ok {
			continue
		}
		// The importer uses value_ref.name, else value when it is a name, else the id (§6.2).
		ref, _ := m["value_ref"].(map[string]any)
		if name, _ := ref["name"].(string); strings.TrimSpace(name) != "" {
			continue
		}
		value, _ := scalarString(m["value"])
		if value != "" && !uuidLike.MatchString(value) {
			continue
		}
		id := value
		if id == "" {
			id, _ = scalarString(ref["id"])
		}
		if id == "" {
			c.warning(r, CodeSkippedMissingReference, p+".value", "%s %s (%s) names no %s: value is empty and value_ref has no name; it will be skipped during import",
				lbl, p, kind, target)
			continue
		}
		c.ref(r, p+".value", target, id, true)
	}
}

// isBlank is Sure's notion of blank: null, an empty or whitespace string, an empty array or
// object, or false.
func isBlank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case bool:
		return !x
	}
	return false
}

// parseDate accepts a date or an RFC 3339 timestamp (Sure exports both), keeping the date.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	if len(s) > 10 && (s[10] == 'T' || s[10] == ' ') {
		if t, err := time.Parse(time.RFC3339Nano, strings.Replace(s, " ", "T", 1)); err == nil {
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), true
		}
	}
	return time.Time{}, false
}

func dateValue(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	return parseDate(s)
}

// maxIntegerDigits and maxDecimals bound numbers: amounts are numeric(19,4), and bounding the
// exponent keeps sums of wildly scaled numbers from allocating without limit.
const (
	maxIntegerDigits = 15
	maxDecimals      = 12
)

// numberValue reads a JSON number or a numeric string; the error is the message's tail.
func numberValue(v any) (decimal.Decimal, string) {
	s, ok := scalarString(v)
	if !ok {
		return decimal.Decimal{}, "is not a number"
	}
	if len(s) > 64 {
		return decimal.Decimal{}, "is not a number of a storable size"
	}
	n, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, "is not a number"
	}
	if n.Exponent() < -100 || n.Exponent() > 100 { // "1e-999999999": rescaling it would never finish
		return decimal.Decimal{}, "is not a number of a storable size"
	}
	if n.Exponent() < -maxDecimals {
		n = n.Round(maxDecimals) // more decimals than any amount has: keep comparison cheap
	}
	if !n.IsZero() && int64(n.NumDigits())+int64(n.Exponent()) > maxIntegerDigits {
		return decimal.Decimal{}, fmt.Sprintf("is too large: at most %d digits before the decimal point", maxIntegerDigits)
	}
	return n, ""
}

func validCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') {
			return false
		}
	}
	return true
}

// show quotes a value for a message: strings in quotes, anything else as JSON would write it.
func show(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 60 {
			x = x[:60] + "…"
		}
		return fmt.Sprintf("%q", x)
	case nil:
		return "null"
	case map[string]any:
		return "(an object)"
	case []any:
		return "(an array)"
	}
	return fmt.Sprint(v)
}
