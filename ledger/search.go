package ledger

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/models"
)

// searchWord is one word of a search: found in a transaction's name or notes (its
// search_text, through entries_search_idx), its merchant's name, or, when it reads as money, its amount.
// A word with an umlaut, or with ae, oe or ue, is also found spelled the other way (see
// spelledOut).
type searchWord struct {
	text string
	// amounts are the ledger amounts the word stands for: 13.99 is money out or in of 13.99,
	// -13.99 money out (as the lists and bank statements show it), +13.99 money in.
	amounts []decimal.Decimal
	// merchants are the family's merchants whose name has the word.
	merchants []uuid.UUID
}

// searchWords splits a search into its words, each with the amounts it stands for and the
// family's merchants whose name has it: those are found first, in one query, so that the
// planner sees them as values and can read their entries through entries_merchant_idx.
func searchWords(ctx context.Context, idb bun.IDB, familyID uuid.UUID, query string) (searchWordList, error) {
	var fields []string
	for _, w := range searchTerms(query) {
		// A currency symbol alone ("13,99 €") says nothing a transaction's text would hold.
		if strings.TrimFunc(w, func(r rune) bool { return unicode.Is(unicode.Sc, r) }) != "" {
			fields = append(fields, w)
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	words := make(searchWordList, len(fields))
	for i, w := range fields {
		words[i] = searchWord{text: w, amounts: searchAmounts(w)}
	}
	var found []struct {
		I   int         `bun:"i"`
		IDs []uuid.UUID `bun:"ids,array"`
	}
	err := idb.NewRaw(`SELECT w.i - 1 AS i, array_agg(m.id) AS ids
		FROM unnest(?::text[]) WITH ORDINALITY AS w (word, i)
		JOIN merchants m ON m.family_id = ?
			AND (search_fold(m.name) LIKE search_pattern(w.word) OR search_fold_de(m.name) LIKE search_pattern_de(w.word))
		GROUP BY w.i`, pgdialect.Array(fields), familyID).Scan(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("merchants of a search: %w", err)
	}
	for _, f := range found {
		words[f.I].merchants = f.IDs
	}
	return words, nil
}

// searchTerms splits a search into its words, a quoted phrase ("shop 2") being one.
func searchTerms(query string) []string {
	var terms []string
	var term strings.Builder
	quoted := false
	end := func() {
		if t := strings.TrimSpace(term.String()); t != "" {
			terms = append(terms, t)
		}
		term.Reset()
	}
	for _, r := range query {
		switch {
		case r == '"':
			end()
			quoted = !quoted
		case unicode.IsSpace(r) && !quoted:
			end()
		default:
			term.WriteRune(r)
		}
	}
	end()
	return terms
}

// searchAmounts are the ledger amounts a word of a search stands for, none when it is not
// money: "13.99", "13,99", "1.234,56", "-13.99", "+13.99", "€13.99" or "13,99 €" (the
// symbol in the same word).
func searchAmounts(word string) []decimal.Decimal {
	sign := 0
	switch {
	case strings.HasPrefix(word, "-"), strings.HasPrefix(word, "−"): // as the lists show money out
		sign = 1
	case strings.HasPrefix(word, "+"):
		sign = -1
	}
	digits := strings.TrimFunc(strings.TrimLeft(word, "+-−"), func(r rune) bool { return unicode.Is(unicode.Sc, r) })
	if digits == "" || digits[0] < '0' || digits[0] > '9' {
		return nil
	}
	// Two decimals, as most currencies have: a search is over every account's currency.
	n, err := models.ParseAmount(digits, "")
	if err != nil {
		return nil
	}
	switch {
	case sign != 0:
		return []decimal.Decimal{n.Mul(decimal.NewFromInt(int64(sign)))}
	case n.IsZero():
		return []decimal.Decimal{n}
	}
	return []decimal.Decimal{n, n.Neg()}
}

// short reports whether the word is one or two letters or digits, and nothing else.
func (w searchWord) short() bool {
	n := 0
	for _, r := range w.text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
		n++
	}
	return n < 3
}

// spelledOut reports whether the word may be German spelled another way: it has an umlaut,
// which banks often write out (ü as ue), or ae, oe or ue, which people without a German
// keyboard type for one. Such a word is found in either spelling ("gruenwald" finds
// "Grünwald", "grünwald" finds "Gruenwald"): the rows whose search_text matches
// search_umlaut_regex, through entries_search_idx, whose name and notes with the umlauts
// spelled out (search_fold_de) hold the word spelled out. ß and ss need nothing: search_fold
// writes ß as ss.
func (w searchWord) spelledOut() bool {
	lower := strings.ToLower(w.text)
	return strings.ContainsAny(lower, "äöü") || strings.Contains(lower, "ae") || strings.Contains(lower, "oe") || strings.Contains(lower, "ue")
}

// searchWordList is a search's words, all of which a transaction has.
type searchWordList []searchWord

// where narrows q, a select of the family's transactions e, to those with every word.
func (words searchWordList) where(q *bun.SelectQuery) {
	for _, w := range words {
		q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			switch {
			case w.short():
				// The index has no trigram for one or two letters or digits, and would return
				// every transaction: such a word is a filter on the rows the others find.
				q.Where("strpos(e.search_text, search_fold(?)) > 0", w.text)
				if w.spelledOut() {
					q.WhereOr("strpos(search_fold_de(e.name || ' ' || e.notes), search_fold_de(?)) > 0", w.text)
				}
			default:
				q.Where("e.search_text LIKE search_pattern(?)", w.text)
				if w.spelledOut() {
					q.WhereOr("e.search_text ~ search_umlaut_regex(?) AND search_fold_de(e.name || ' ' || e.notes) LIKE search_pattern_de(?)",
						w.text, w.text)
				}
			}
			if len(w.merchants) > 0 {
				q.WhereOr("e.merchant_id IN (?)", bun.In(w.merchants))
			}
			if len(w.amounts) > 0 {
				q.WhereOr("e.amount IN (?)", bun.In(w.amounts))
			}
			return q
		})
	}
}
