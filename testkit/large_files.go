package testkit

import (
	"fmt"
	"strings"
	"time"
)

// The large files below are what the memory tests and benchmarks of the file readers upload:
// each is as dense as its format is in real exports, filled to size bytes, and comes with how
// many rows it makes.

// LargeQIF is a QIF bank account of records of about 32 bytes.
func LargeQIF(size int) (content []byte, records int) {
	var b strings.Builder
	b.WriteString("!Type:Bank\n")
	for ; b.Len() < size-100; records++ {
		fmt.Fprintf(&b, "D03/02/2026\nT-%d.%02d\nPShop %d\n^\n", 1+records%50, records%100, records%1000)
	}
	return []byte(b.String()), records
}

// LargeAppExport is a transaction export of a budgeting app as the app writes it: typ is
// ExternalAppAImport (Mint), ExternalAppBImport (Actual Budget) or ExternalAppCImport (YNAB).
func LargeAppExport(typ string, size int) (content []byte, rows int) {
	header, line := map[string]string{
		"ExternalAppAImport": "Date,Description,Original Description,Amount,Transaction Type,Category,Account Name,Labels,Notes\n",
		"ExternalAppBImport": "Account,Date,Payee,Notes,Category_Group,Category,Amount,Split_Amount,Cleared\n",
		"ExternalAppCImport": "Account,Flag,Date,Payee,Category Group/Category,Category Group,Category,Memo,Outflow,Inflow,Cleared\n",
	}[typ], map[string]func(int) string{
		"ExternalAppAImport": func(i int) string {
			return fmt.Sprintf("%s,Shop %d,SHOP %d STORE,%d.%02d,debit,Groceries,Mint Checking,food,\n", day(i, "01/02/2006"), i%1000, i%1000, 1+i%500, i%100)
		},
		"ExternalAppBImport": func(i int) string {
			return fmt.Sprintf("Actual Checking,%s,Shop %d,,Food,Groceries,-%d.%02d,,true\n", day(i, time.DateOnly), i%1000, 1+i%500, i%100)
		},
		"ExternalAppCImport": func(i int) string {
			return fmt.Sprintf("YNAB Checking,,%s,Shop %d,Food: Groceries,Food,Groceries,,$%d.%02d,$0.00,Cleared\n", day(i, "01/02/2006"), i%1000, 1+i%500, i%100)
		},
	}[typ]
	if line == nil {
		panic("LargeAppExport: no export of type " + typ)
	}
	return filled(size, header, line)
}

// LargeCategories is a CategoryImport file: a category of its own on every line, under one
// of 20 parents.
func LargeCategories(size int) (content []byte, rows int) {
	return filled(size, "name,color,parent_category,lucide_icon\n", func(i int) string {
		return fmt.Sprintf("Category %d,#407706,Parent %d,shopping-basket\n", i, i%20)
	})
}

// LargeMerchants is a MerchantImport file of a merchant on every line.
func LargeMerchants(size int) (content []byte, rows int) {
	return filled(size, "name,color,website\n", func(i int) string {
		return fmt.Sprintf("Merchant %d,#ffffff,merchant%d.test\n", i, i)
	})
}

// LargeRules is a RuleImport file of rules that each set a category by a name condition.
func LargeRules(size int) (content []byte, rows int) {
	return filled(size, "name,resource_type,active,effective_date,conditions,actions\n", func(i int) string {
		return fmt.Sprintf(`Rule %d,transaction,true,2024-01-01,[{"condition_type":"transaction_name","operator":"like","value":"shop %d"}],`+
			`[{"action_type":"set_transaction_category","value":"Category %d"}]`+"\n", i, i, i%20)
	})
}

// filled is header and then line(0), line(1), ... up to size bytes.
func filled(size int, header string, line func(int) string) ([]byte, int) {
	var b strings.Builder
	b.WriteString(header)
	n := 0
	for next := line(0); b.Len()+len(next) <= size; next = line(n) {
		b.WriteString(next)
		n++
	}
	return []byte(b.String()), n
}

func day(i int, layout string) string {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700).Format(layout)
}
