package ynab

import (
	"strings"

	"tally/imports/movein"
)

// frequencies are YNAB's frequencies of a scheduled transaction.
var frequencies = map[string]movein.Repeat{
	"never":           {Unit: movein.UnitOnce, Every: 1, Times: 1},
	"daily":           {Unit: movein.UnitDay, Every: 1, Times: 1},
	"weekly":          {Unit: movein.UnitWeek, Every: 1, Times: 1},
	"everyOtherWeek":  {Unit: movein.UnitWeek, Every: 2, Times: 1},
	"twiceAMonth":     {Unit: movein.UnitMonth, Every: 1, Times: 2},
	"every4Weeks":     {Unit: movein.UnitWeek, Every: 4, Times: 1},
	"monthly":         {Unit: movein.UnitMonth, Every: 1, Times: 1},
	"everyOtherMonth": {Unit: movein.UnitMonth, Every: 2, Times: 1},
	"every3Months":    {Unit: movein.UnitMonth, Every: 3, Times: 1},
	"every4Months":    {Unit: movein.UnitMonth, Every: 4, Times: 1},
	"twiceAYear":      {Unit: movein.UnitMonth, Every: 6, Times: 1},
	"yearly":          {Unit: movein.UnitYear, Every: 1, Times: 1},
	"everyOtherYear":  {Unit: movein.UnitYear, Every: 2, Times: 1},
}

// schedules reads the scheduled transactions that are not deleted.
func (a *assembler) schedules() error {
	parts := map[string]int{}
	for _, s := range a.raw.scheduledSubs {
		if !s.Deleted {
			parts[s.ScheduledID]++
		}
	}
	for _, r := range a.raw.scheduled {
		if r.Deleted {
			continue
		}
		name := strings.TrimSpace(r.Memo)
		if p := a.payeeByID[r.PayeeID]; p != nil {
			name = p.Name
		}
		repeat, ok := frequencies[r.Frequency]
		start, okStart := date(r.DateFirst)
		switch {
		case !ok:
			a.b.Note(movein.NotKept, movein.EntitySchedule, r.ID, name, "its frequency %q is none of YNAB's", r.Frequency)
			continue
		case !okStart:
			a.b.Note(movein.NotKept, movein.EntitySchedule, r.ID, name, "its first date %q is no date", r.DateFirst)
			continue
		case a.accountByID[r.AccountID] == nil:
			a.b.Note(movein.NotKept, movein.EntitySchedule, r.ID, name, "its account %q is not in the file", r.AccountID)
			continue
		}
		repeat.Source = r.Frequency
		next, _ := date(r.DateNext)
		s := movein.Schedule{ID: r.ID, Name: name, AccountID: r.AccountID, PayeeID: a.payee(r.PayeeID), CategoryID: a.category(r.CategoryID),
			Amount: amount(r.Amount), Repeat: repeat, Start: start, Next: next, Active: true, Notes: r.Memo}
		s.Min, s.Max = s.Amount, s.Amount
		if n := parts[r.ID]; n > 0 {
			s.CategoryID = ""
			a.b.Note(movein.KeptAs, movein.EntitySchedule, r.ID, name, "its split into %d parts is kept as one amount without a category", n)
		}
		a.b.Schedules = append(a.b.Schedules, s)
	}
	return nil
}
