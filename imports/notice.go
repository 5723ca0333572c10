package imports

import (
	"fmt"
)

// DuplicatesNotice says in words what an import's rows come to beside what is already in its
// account (named where, "" for rows that name their accounts): before publishing, how many of
// them publishing will skip (m, from AlreadyThere), the likely duplicates apart; after a
// publish that found every row already there, that nothing was new. "" when there is nothing
// to say.
func DuplicatesNotice(d *Detail, m Matches, where string) string {
	if where == "" {
		where = "their accounts"
	}
	valid := d.Stats.ValidRowsCount
	same := m.Duplicates - m.Likely
	var said string
	switch {
	case d.Status == StatusComplete && valid > 0 && d.Stats.DuplicateRowsCount == valid:
		return fmt.Sprintf("Nothing new: all %s already in %s.", rowsWere(valid, "was", "were"), where)
	case same == 0:
	case same == valid:
		return fmt.Sprintf("Nothing new: all %s already in %s, and publishing will skip them.", rowsWere(valid, "is", "are"), where)
	case same == 1:
		said = fmt.Sprintf("1 of the %d rows is already in %s: publishing will skip it.", valid, where)
	default:
		said = fmt.Sprintf("%d of the %d rows are already in %s: publishing will skip them.", same, valid, where)
	}
	switch {
	case m.Likely == 0:
		return said
	case said == "" && m.Likely == 1:
		return fmt.Sprintf("1 of the %d rows is a likely duplicate of a transaction in %s (the same date and amount, another name): publishing will skip it unless you keep it.", valid, where)
	case said == "":
		return fmt.Sprintf("%d of the %d rows are likely duplicates of transactions in %s (the same date and amount, another name): publishing will skip them unless you keep them.", m.Likely, valid, where)
	case m.Likely == 1:
		return said + " 1 more is a likely duplicate (the same date and amount, another name): publishing will skip it unless you keep it."
	}
	return said + fmt.Sprintf(" %d more are likely duplicates (the same date and amount, another name): publishing will skip them unless you keep them.", m.Likely)
}

// rowsWere is "1 row was" or "3 rows were".
func rowsWere(n int, one, many string) string {
	if n == 1 {
		return "1 row " + one
	}
	return fmt.Sprintf("%d rows %s", n, many)
}
