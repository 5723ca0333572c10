package statement

// Test statements in four layouts. Each returns the PDF's pages as rows; the expected
// results are in pdf_test.go.

// Columns of the single-amount layout (mm): date, description, amount edge, balance edge.
const (
	colDate    = 15
	colDesc    = 42
	colAmount  = 140
	colBalance = 180
)

// singleColumnBank is a one-page checking statement with a signed amount column and a running
// balance, written in the ways US banks write negative amounts: "-1,200.00", "(60.00)" and
// "12.00-". The coffee shop's description runs on to a second line. With skipElectric, the
// statement misses a line and so does not reconcile.
func singleColumnBank(skipElectric bool) [][]pdfRow {
	tx := func(date, desc, amount, balance string) pdfRow {
		return pdfRow{at(colDate, date), at(colDesc, desc), upTo(colAmount, amount), upTo(colBalance, balance)}
	}
	rows := []pdfRow{
		{at(colDate, "FIRST EXAMPLE BANK")},
		{at(colDate, "Checking account statement")},
		{at(colDate, "Statement period: 01/01/2024 - 01/31/2024"), at(130, "Account: ****1234")},
		blank,
		{at(colDate, "Opening balance"), upTo(colBalance, "1,000.00")},
		blank,
		{at(colDate, "Date"), at(colDesc, "Description"), upTo(colAmount, "Amount"), upTo(colBalance, "Balance")},
		tx("01/02/2024", "PAYROLL ACME CORP", "2,500.00", "3,500.00"),
		tx("01/03/2024", "RENT JANUARY", "-1,200.00", "2,300.00"),
		tx("01/05/2024", "COFFEE SHOP #123", "-4.50", "2,295.50"),
		{at(colDesc, "SEATTLE WA")},
	}
	if !skipElectric {
		rows = append(rows, tx("01/10/2024", "ELECTRIC COMPANY", "-120.25", "2,175.25"))
	}
	rows = append(rows,
		tx("01/15/2024", "ATM WITHDRAWAL", "(60.00)", "2,115.25"),
		tx("01/20/2024", "REFUND ONLINE STORE", "35.99", "2,151.24"),
		tx("01/31/2024", "MONTHLY FEE", "12.00-", "2,139.24"),
		blank,
		pdfRow{at(colDate, "Total deposits"), upTo(colAmount, "2,535.99")},
		pdfRow{at(colDate, "Total withdrawals"), upTo(colAmount, "1,396.75")},
		pdfRow{at(colDate, "Closing balance"), upTo(colBalance, "2,139.24")},
	)
	return [][]pdfRow{footer(rows, "Page 1 of 1")}
}

// debitCreditBank is a UK current account statement with day-first dates, separate "Money
// out" and "Money in" columns of unsigned amounts, and a balance column. Its opening balance
// is a "Balance brought forward" row, and one day's second transaction carries no date.
func debitCreditBank() [][]pdfRow {
	const out, in = 128, 155
	tx := func(date, desc, moneyOut, moneyIn, balance string) pdfRow {
		row := pdfRow{at(colDate, date), at(colDesc, desc), upTo(colBalance, balance)}
		if moneyOut != "" {
			row = append(row, upTo(out, moneyOut))
		}
		if moneyIn != "" {
			row = append(row, upTo(in, moneyIn))
		}
		return row
	}
	rows := []pdfRow{
		{at(colDate, "NORTHWIND BANK PLC")},
		{at(colDate, "Current account statement")},
		{at(colDate, "Statement period 01/03/2024 to 31/03/2024")},
		{at(colDate, "Sort code 12-34-56   Account 87654321")},
		blank,
		{at(colDate, "Date"), at(colDesc, "Description"), upTo(out, "Money out (£)"), upTo(in, "Money in (£)"),
			upTo(colBalance, "Balance (£)")},
		tx("01/03/2024", "Balance brought forward", "", "", "1,500.00"),
		tx("04/03/2024", "TESCO STORES 2231", "45.60", "", "1,454.40"),
		tx("05/03/2024", "SALARY NORTHWIND LTD", "", "2,100.00", "3,554.40"),
		tx("12/03/2024", "COUNCIL TAX", "125.00", "", "3,429.40"),
		tx("", "TFL TRAVEL", "23.10", "", "3,406.30"),
		tx("18/03/2024", "TRANSFER FROM SAVINGS", "", "300.00", "3,706.30"),
		tx("25/03/2024", "AMAZON MARKETPLACE", "89.99", "", "3,616.31"),
		tx("31/03/2024", "Closing balance", "", "", "3,616.31"),
	}
	return [][]pdfRow{footer(rows, "Page 1 of 1")}
}

// multiPageBank spans two pages with "Balance carried forward" and "Balance brought forward"
// rows, Debit and Credit columns, and dates without a year ("15 Dec") in a period that runs
// from one year into the next.
func multiPageBank() [][]pdfRow {
	const debit, credit = 125, 150
	tx := func(date, desc, d, c, balance string) pdfRow {
		row := pdfRow{at(colDate, date), at(colDesc, desc), upTo(colBalance, balance)}
		if d != "" {
			row = append(row, upTo(debit, d))
		}
		if c != "" {
			row = append(row, upTo(credit, c))
		}
		return row
	}
	head := pdfRow{at(colDate, "Date"), at(colDesc, "Description"), upTo(debit, "Debit"), upTo(credit, "Credit"),
		upTo(colBalance, "Balance")}
	page1 := []pdfRow{
		{at(colDate, "CONTOSO SAVINGS BANK")},
		{at(colDate, "Statement for December 15, 2023 to January 14, 2024")},
		blank,
		head,
		tx("", "Opening balance", "", "", "5,000.00"),
		tx("15 Dec", "GROCERY MART", "82.40", "", "4,917.60"),
		tx("20 Dec", "INTEREST", "", "4.17", "4,921.77"),
		tx("24 Dec", "GIFT SHOP", "150.00", "", "4,771.77"),
		tx("28 Dec", "PHARMACY", "23.75", "", "4,748.02"),
		tx("", "Balance carried forward", "", "", "4,748.02"),
	}
	page2 := []pdfRow{
		{at(colDate, "CONTOSO SAVINGS BANK")},
		blank,
		head,
		tx("", "Balance brought forward", "", "", "4,748.02"),
		tx("02 Jan", "PAYROLL", "", "1,800.00", "6,548.02"),
		tx("05 Jan", "INSURANCE PREMIUM", "210.00", "", "6,338.02"),
		tx("09 Jan", "CASH DEPOSIT", "", "250.00", "6,588.02"),
		tx("", "Closing balance", "", "", "6,588.02"),
	}
	return [][]pdfRow{footer(page1, "Page 1 of 2"), footer(page2, "Page 2 of 2")}
}

// creditCard is a card statement: a summary box with the previous and new balances, then
// transactions with a transaction date and a posting date and one amount column where
// purchases are unsigned, the payment is negative and a refund is marked CR.
func creditCard() [][]pdfRow {
	const post, amount = 30, 175
	tx := func(date, posted, desc, amt string) pdfRow {
		return pdfRow{at(colDate, date), at(post, posted), at(colDesc+5, desc), upTo(amount, amt)}
	}
	rows := []pdfRow{
		{at(colDate, "CONTOSO BANK CREDIT CARD")},
		{at(colDate, "Card account ending in 4321")},
		{at(colDate, "Billing period: 01/15/2024 - 02/14/2024")},
		blank,
		{at(colDate, "Previous balance"), upTo(80, "$1,000.00"), at(100, "Payment due date"), upTo(amount, "03/10/2024")},
		{at(colDate, "New balance"), upTo(80, "$845.67"), at(100, "Minimum payment due"), upTo(amount, "$25.00")},
		{at(colDate, "Credit limit"), upTo(80, "$5,000.00")},
		blank,
		{at(colDate, "Trans"), at(post, "Post"), at(colDesc+5, "Description"), upTo(amount, "Amount")},
		tx("01/16", "01/17", "ONLINE PAYMENT - THANK YOU", "-500.00"),
		tx("01/18", "01/19", "GROCERY MART", "123.45"),
		tx("01/22", "01/23", "GAS STATION 55", "45.00"),
		tx("01/25", "01/26", "REFUND SHOES", "20.00 CR"),
		tx("02/01", "02/02", "RESTAURANT ITALIANO", "96.22"),
		tx("02/10", "02/11", "STREAMING SERVICE", "15.99"),
		tx("02/14", "02/14", "INTEREST CHARGE ON PURCHASES", "85.01"),
		blank,
		{at(colDate, "Total fees charged this period"), upTo(amount, "$0.00")},
	}
	return [][]pdfRow{footer(rows, "Page 1 of 1")}
}
