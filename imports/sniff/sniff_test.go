package sniff

import (
	"slices"
	"strings"
	"testing"
)

func TestTableFindsSeparatorAndHeader(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		sep     rune
		skip    int
		headers string
		samples int
	}{
		{"plain", "Date,Description,Category,Amount\n01/02/2026,Coffee,Food,-3.50\n01/03/2026,Rent,Home,-900.00\n", ',', 0, "Date|Description|Category|Amount", 2},
		{"a US preamble", "Account: Checking ...1234\nPeriod: 01/01/2026 - 01/31/2026\n\nDate,Description,Amount\n01/02/2026,Coffee,-3.50\n01/03/2026,\"Rent, January\",-900.00\n",
			',', 3, "Date|Description|Amount", 2},
		{"a German export", "\"Umsätze Girokonto\";\"Zeitraum: 01.01.2026 - 31.01.2026\";\n\"Kontostand vom 31.01.2026:\";\"1.234,56 EUR\";\n\n" +
			"\"Buchungstag\";\"Wertstellung\";\"Empfänger\";\"Verwendungszweck\";\"Betrag (€)\"\n" +
			"\"02.01.2026\";\"02.01.2026\";\"Bäckerei Müller\";\"Brötchen\";\"-3,50\"\n\"03.01.2026\";\"04.01.2026\";\"Vermieter\";\"Miete Januar\";\"-900,00\"\n",
			';', 3, "Buchungstag|Wertstellung|Empfänger|Verwendungszweck|Betrag (€)", 2},
		{"tabs", "Date\tPayee\tAmount\n2026-01-02\tCoffee\t-3.50\n2026-01-03\tRent\t-900\n", '\t', 0, "Date|Payee|Amount", 2},
		{"pipes", "Date|Payee|Amount\n2026-01-02|Coffee|-3.50\n2026-01-03|Rent|-900\n", '|', 0, "Date|Payee|Amount", 2},
		{"a semicolon file with decimal commas", "Datum;Naam;Bedrag\n02-01-2026;Bakker;3,50\n03-01-2026;Huur;900,00\n", ';', 0, "Datum|Naam|Bedrag", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := Table(tt.text)
			if !ok {
				t.Fatal("no table found")
			}
			if l.Separator != tt.sep || l.Skip != tt.skip || strings.Join(l.Headers, "|") != tt.headers || len(l.Samples) != tt.samples {
				t.Errorf("got separator %q, skip %d, headers %q, %d samples; want %q, %d, %q, %d",
					l.Separator, l.Skip, strings.Join(l.Headers, "|"), len(l.Samples), tt.sep, tt.skip, tt.headers, tt.samples)
			}
		})
	}
}

func TestTableRefusesWhatIsNoTable(t *testing.T) {
	for _, text := range []string{"", "just one line of prose\nand another\n", "a\nb\nc\n", "2026-01-02,3.50\n2026-01-03,4.00\n"} {
		if l, ok := Table(text); ok {
			t.Errorf("%q: found a table %+v", text, l)
		}
	}
}

func TestColumnsByHeaderAndValues(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		samples [][]string
		want    string // role of each column, "role/by"
	}{
		{"the issue's file", []string{"Date", "Description", "Category", "Amount"},
			[][]string{{"01/02/2026", "Coffee", "Food", "-3.50"}},
			"date/header name/header category/header amount/header"},
		{"Sparkasse", []string{"Auftragskonto", "Buchungstag", "Valutadatum", "Buchungstext", "Verwendungszweck",
			"Beguenstigter/Zahlungspflichtiger", "Kontonummer", "BLZ", "Betrag", "Waehrung", "Info"},
			[][]string{{"DE02120300000000202051", "02.01.26", "02.01.26", "LASTSCHRIFT", "Miete", "Vermieter GmbH", "DE89370400440532013000", "COBADEFFXXX", "-900,00", "EUR", "Umsatz gebucht"}},
			"account/header date/header ignore/ ignore/ notes/header name/header ignore/ ignore/ amount/header currency/header ignore/"},
		{"French", []string{"Date opération", "Libellé", "Montant (EUR)"},
			[][]string{{"02/01/2026", "CB BOULANGERIE", "-3,50"}},
			"date/header name/header amount/header"},
		{"debit and credit columns", []string{"Transaction Date", "Posted Date", "Card No.", "Description", "Category", "Debit", "Credit"},
			[][]string{{"2026-01-02", "2026-01-03", "1234", "COFFEE SHOP", "Dining", "3.50", ""}, {"2026-01-04", "2026-01-05", "1234", "PAYMENT", "Payment", "", "100.00"}},
			"date/header ignore/ ignore/ name/header category/header debit/header credit/header"},
		{"headers nobody uses", []string{"Tag", "Text", "Wert", "Ref"},
			[][]string{{"02.01.2026", "Bäckerei", "-3,50", "A1"}, {"03.01.2026", "Miete", "-900,00", "A1"}},
			"date/header name/values amount/values ignore/"},
		{"Dutch valuta is a currency", []string{"Datum", "Omschrijving", "Bedrag", "Valuta"},
			[][]string{{"20260102", "Bakker", "3,50", "EUR"}},
			"date/header name/header amount/header currency/header"},
		{"Chase checking", []string{"Details", "Posting Date", "Description", "Amount", "Type", "Balance", "Check or Slip #"},
			[][]string{{"DEBIT", "01/02/2026", "COFFEE", "-3.50", "DEBIT_CARD", "1000.00", ""}},
			"ignore/ date/header name/header amount/header ignore/ balance/header ignore/"},
		{"Japanese", []string{"日付", "内容", "金額"}, [][]string{{"2026/01/02", "コンビニ", "-350"}},
			"date/header name/header amount/header"},

		// The purpose is the name when no column names the other party, else the notes.
		{"a German account whose only text is the purpose", []string{"Buchungstag", "Wertstellung", "Verwendungszweck", "Betrag", "Währung"},
			[][]string{{"02.01.2026", "02.01.2026", "REWE Markt Grünwald EC 12345", "-23,45", "EUR"}},
			"date/header ignore/ name/header amount/header currency/header"},
		{"Deutsche Bank", []string{"Buchungstag", "Wert", "Umsatzart", "Begünstigter / Auftraggeber", "Verwendungszweck", "IBAN", "BIC",
			"Kundenreferenz", "Mandatsreferenz ", "Gläubiger ID", "Fremde Gebühren", "Betrag", "Abweichender Empfänger",
			"Anzahl der Aufträge", "Anzahl der Schecks", "Soll", "Haben", "Währung"},
			[][]string{{"24.9.2026", "24.9.2026", "SEPA-Lastschrift", "Stadtwerke München", "Abschlag Strom September", "DE42500105175407324385",
				"COBADEFFXXX", "", "M-1", "DE98ZZZ09999999999", "", "-110,00", "", "", "", "-110,00", "", "EUR"}},
			"date/header ignore/ ignore/ name/header notes/header ignore/ ignore/ ignore/ ignore/ ignore/ ignore/ amount/header ignore/ ignore/ ignore/ debit/header credit/header currency/header"},
		{"DKB", []string{"Buchungsdatum", "Wertstellung", "Status", "Zahlungspflichtige*r", "Zahlungsempfänger*in", "Verwendungszweck",
			"Umsatztyp", "IBAN", "Betrag (€)", "Gläubiger-ID", "Mandatsreferenz", "Kundenreferenz"},
			[][]string{{"02.01.26", "02.01.26", "Gebucht", "Erika Mustermann", "REWE Markt", "Einkauf", "Ausgang", "DE02120300000000202051", "-23,45", "", "", ""}},
			"date/header ignore/ ignore/ ignore/ name/header notes/header ignore/ ignore/ amount/header ignore/ ignore/ ignore/"},
		{"Sparkasse CSV-CAMT", []string{"Auftragskonto", "Buchungstag", "Valutadatum", "Buchungstext", "Verwendungszweck", "Glaeubiger ID",
			"Mandatsreferenz", "Kundenreferenz (End-to-End)", "Sammlerreferenz", "Lastschrift Ursprungsbetrag", "Auslagenersatz Ruecklastschrift",
			"Beguenstigter/Zahlungspflichtiger", "Kontonummer/IBAN", "BIC (SWIFT-Code)", "Betrag", "Waehrung", "Info"},
			[][]string{{"DE02120300000000202051", "02.01.26", "02.01.26", "FOLGELASTSCHRIFT", "Strom Januar", "", "", "", "", "", "", "Stadtwerke",
				"DE42500105175407324385", "COBADEFFXXX", "-110,00", "EUR", "Umsatz gebucht"}},
			"account/header date/header ignore/ ignore/ notes/header ignore/ ignore/ ignore/ ignore/ ignore/ ignore/ name/header ignore/ ignore/ amount/header currency/header ignore/"},
		{"ING Germany", []string{"Buchung", "Valuta", "Auftraggeber/Empfänger", "Buchungstext", "Verwendungszweck", "Saldo", "Währung", "Betrag", "Währung (2)"},
			[][]string{{"02.01.2026", "02.01.2026", "REWE Markt", "Lastschrift", "Einkauf 1234", "1.234,56", "EUR", "-23,45", "EUR"}},
			"date/header ignore/ name/header ignore/ notes/header balance/header currency/header amount/header ignore/"},
		{"Volksbank", []string{"Bezeichnung Auftragskonto", "IBAN Auftragskonto", "BIC Auftragskonto", "Bankname Auftragskonto", "Buchungstag",
			"Valutadatum", "Name Zahlungsbeteiligter", "IBAN Zahlungsbeteiligter", "BIC (SWIFT-Code) Zahlungsbeteiligter", "Buchungstext",
			"Verwendungszweck", "Betrag", "Waehrung", "Saldo nach Buchung", "Bemerkung", "Kategorie", "Steuerrelevant", "Glaeubiger ID", "Mandatsreferenz"},
			[][]string{{"Girokonto", "DE02120300000000202051", "GENODEF1XXX", "VR Bank", "02.01.2026", "02.01.2026", "REWE Markt", "DE42500105175407324385",
				"COBADEFFXXX", "Lastschrift", "Einkauf 1234", "-23,45", "EUR", "1.234,56", "", "Lebensmittel", "", "", ""}},
			"ignore/ ignore/ ignore/ ignore/ date/header ignore/ name/header ignore/ ignore/ ignore/ notes/header amount/header currency/header ignore/ ignore/ category/header ignore/ ignore/ ignore/"},
		{"Société Générale", []string{"Date de l'opération", "Libellé", "Détail de l'écriture", "Montant de l'opération", "Devise"},
			[][]string{{"18/02/2026", "CARTE X1306", "CARTE X1306 17/02 ROMCOCO", "-26,01", "EUR"}},
			"date/header name/header notes/header amount/header currency/header"},
		{"Crédit Agricole", []string{"Date", "Libellé", "Débit euros", "Crédit euros"},
			[][]string{{"02/01/2026", "PRLV SEPA EDF", "110,00", ""}, {"03/01/2026", "VIR SALAIRE", "", "2 345,67"}},
			"date/header name/header debit/header credit/header"},
		{"a French export naming the other party", []string{"Date", "Tiers", "Libellé", "Montant"},
			[][]string{{"02/01/2026", "EDF", "PRLV SEPA EDF FACTURE 123", "-110,00"}, {"03/01/2026", "Boulangerie Paul", "CB BOULANGERIE PAUL 02/01", "-4,20"}},
			"date/header name/header notes/header amount/header"},
		{"BBVA", []string{"Fecha", "Fecha valor", "Concepto", "Movimiento", "Importe", "Divisa", "Disponible", "Observaciones"},
			[][]string{{"12/03/2026", "13/03/2026", "MERCADONA", "Pago con tarjeta", "-142,50", "EUR", "18.402,55", "Tarjeta 1234"}},
			"date/header ignore/ name/header ignore/ amount/header currency/header ignore/ notes/header"},
		{"a Spanish transfer export", []string{"Fecha", "Beneficiario", "Concepto", "Importe (€)", "Saldo (€)"},
			[][]string{{"12/03/2026", "Iberdrola", "RECIBO LUZ MARZO", "-218,04", "21.384,51"}},
			"date/header name/header notes/header amount/header balance/header"},
		{"Intesa Sanpaolo", []string{"Data contabile", "Data valuta", "Descrizione", "Accrediti", "Addebiti", "Descrizione estesa"},
			[][]string{{"12/09/2026", "12/09/2026", "PAGAMENTO POS", "", "45,90", "PAGAMENTO POS ESSELUNGA MILANO CARTA 1234"}},
			"date/header ignore/ name/header credit/header debit/header notes/header"},
		{"UniCredit", []string{"Data Registrazione", "Data valuta", "Descrizione", "Importo (EUR)"},
			[][]string{{"12/09/2026", "12/09/2026", "PAGAMENTO POS ESSELUNGA", "-45,90"}},
			"date/header ignore/ name/header amount/header"},
		{"an Italian transfer export", []string{"Data", "Beneficiario", "Causale", "Importo"},
			[][]string{{"12/09/2026", "Enel Energia", "Bolletta settembre", "-123,40"}},
			"date/header name/header notes/header amount/header"},
		{"ING Netherlands", []string{"Datum", "Naam / Omschrijving", "Rekening", "Tegenrekening", "Code", "Af Bij", "Bedrag (EUR)", "Mutatiesoort", "Mededelingen"},
			[][]string{{"20260102", "Albert Heijn", "NL20INGB0001234567", "", "BA", "Af", "23,45", "Betaalautomaat", "Pasvolgnr: 001"}},
			"date/header name/header account/header ignore/ ignore/ ignore/ amount/header ignore/ notes/header"},
		{"Rabobank", []string{"IBAN/BBAN", "Munt", "BIC", "Volgnr", "Datum", "Rentedatum", "Bedrag", "Saldo na trn", "Tegenrekening IBAN/BBAN",
			"Naam tegenpartij", "Naam uiteindelijke partij", "Naam initiërende partij", "BIC tegenpartij", "Code", "Batch ID", "Transactiereferentie",
			"Machtigingskenmerk", "Incassant ID", "Betalingskenmerk", "Omschrijving-1", "Omschrijving-2", "Omschrijving-3", "Reden retour",
			"Oorspr bedrag", "Oorspr munt", "Koers"},
			[][]string{{"NL20RABO0001234567", "EUR", "RABONL2U", "000000000000000123", "2026-01-02", "2026-01-02", "-23,45", "+1.234,56", "NL91ABNA0417164300",
				"Albert Heijn", "", "", "ABNANL2A", "bc", "", "", "", "", "", "Boodschappen", "", "", "", "", "", ""}},
			"ignore/ currency/header ignore/ ignore/ date/header ignore/ amount/header balance/header ignore/ name/header ignore/ ignore/ ignore/ ignore/ ignore/ ignore/ ignore/ ignore/ ignore/ notes/header ignore/ ignore/ ignore/ ignore/ ignore/ ignore/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Columns(tt.headers, tt.samples) {
				got = append(got, string(c.Role)+"/"+c.By)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got  %s\nwant %s", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestDateFormatSaysWhenTheFileLeavesItOpen(t *testing.T) {
	tests := []struct {
		values       []string
		pattern      string
		alternatives []string
	}{
		{[]string{"03/14/2026", "12/01/2026"}, "%m/%d/%Y", nil},
		{[]string{"14/03/2026", "01/12/2026"}, "%d/%m/%Y", nil},
		{[]string{"03/04/2026", "05/06/2026"}, "%d/%m/%Y", []string{"%m/%d/%Y"}},
		{[]string{"2026-01-05", "2026-12-31"}, "%Y-%m-%d", nil},
		{[]string{"14.03.2026"}, "%d.%m.%Y", nil},
		{[]string{"14.03.26"}, "%d.%m.%y", nil},
		{[]string{"20260105"}, "%Y%m%d", nil},
		{[]string{"05 Jan 2026", "17 Feb 2026"}, "%d %b %Y", nil},
	}
	for _, tt := range tests {
		g, ok := DateFormat(tt.values)
		if !ok || g.Pattern != tt.pattern || !slices.Equal(g.Alternatives, tt.alternatives) || g.Ambiguous() != (tt.alternatives != nil) {
			t.Errorf("%v: got %+v %v, want %s %v", tt.values, g, ok, tt.pattern, tt.alternatives)
		}
	}
	if g, ok := DateFormat([]string{"2026-01-05", "2026-13-99"}); ok {
		t.Errorf("a column with a non-date guessed %+v", g)
	}
	// Words in a date column (Comdirect's pending "offen", a balance line) are no date in any
	// pattern: the pattern is the dates'.
	if g, ok := DateFormat([]string{"offen", "20.03.2026", "15.03.2026", "Alter Kontostand"}); !ok || g.Pattern != "%d.%m.%Y" {
		t.Errorf("dates beside words guessed %+v %v", g, ok)
	}
	if g, ok := DateFormat([]string{"offen", "yesterday"}); ok {
		t.Errorf("a column of words guessed %+v", g)
	}
}

func TestNumberFormatSaysWhenTheFileLeavesItOpen(t *testing.T) {
	tests := []struct {
		values       []string
		pattern      string
		alternatives []string
	}{
		{[]string{"-12.50", "1,234.56"}, "1,234.56", nil},
		{[]string{"-12,50", "1.234,56"}, "1.234,56", nil},
		{[]string{"-5,00", "1 234,56"}, "1 234,56", nil},
		{[]string{"45", "-3"}, "1,234.56", nil},
		{[]string{"1,234", "-5"}, "1,234.56", []string{"1.234,56", "1 234,56"}},
	}
	for _, tt := range tests {
		g, ok := NumberFormat(tt.values)
		if !ok || g.Pattern != tt.pattern || !slices.Equal(g.Alternatives, tt.alternatives) {
			t.Errorf("%v: got %+v %v, want %s %v", tt.values, g, ok, tt.pattern, tt.alternatives)
		}
	}
	if g, ok := NumberFormat([]string{"12.50", "twelve"}); ok {
		t.Errorf("a column with a word guessed %+v", g)
	}
}

// FuzzTable: any text either has no table or a table whose columns each get one role, every
// role but ignore at most once.
func FuzzTable(f *testing.F) {
	f.Add("Date,Description,Amount\n01/02/2026,Coffee,-3.50\n")
	f.Add("x\n\"Buchungstag\";\"Betrag\"\n\"02.01.2026\";\"-3,50\"\n\"03.01.2026\";\"1.234,56\"\n")
	f.Add("a\tb\n1\t2\n3\t4\n")
	f.Add("Buchungstag;Empfänger;Verwendungszweck;Buchungstext;Notiz;Betrag (€)\n02.01.2026;REWE;Einkauf;Lastschrift;x;-3,50\n03.01.2026;Vermieter;Miete;Dauerauftrag;y;-900,00\n")
	f.Add("Date,Libellé,Détail,Montant (EUR)\n02/01/2026,CB,CB PAUL,-4,20\n")
	for _, name := range []string{"comdirect.csv", "dkb_visa_resaved.csv", "ing_de_resaved.csv"} {
		f.Add(preambleText(f, name))
	}
	f.Fuzz(func(t *testing.T, text string) {
		if q := Quote(text); q != '"' && q != '\'' {
			t.Fatalf("quote %q", q)
		}
		l, ok := Table(text)
		if !ok {
			return
		}
		if !slices.Contains(Separators, l.Separator) || l.Skip < 0 || len(l.Headers) < 2 {
			t.Fatalf("layout %+v", l)
		}
		seen := map[Role]bool{}
		for _, c := range Columns(l.Headers, l.Samples) {
			if c.Role != RoleIgnore && seen[c.Role] {
				t.Fatalf("role %s twice in %q", c.Role, l.Headers)
			}
			seen[c.Role] = true
		}
	})
}

func TestQuote(t *testing.T) {
	cases := []struct {
		name, text string
		want       rune
	}{
		{"single quotes around fields", "'Date','Payee','Amount'\n'02/03/2026','Joe, the diner','-3.50'\n", '\''},
		{"double quotes", "\"Date\",\"Payee\"\n\"02/03/2026\",\"Joe's\"\n", '"'},
		{"both: double wins, a reference in single quotes is text", "Date,Details,Reference\n03/02/2026,\"A, B\",'3202606'\n", '"'},
		{"no quotes", "Date,Payee\n02/03/2026,O'Brien\n", '"'},
		{"apostrophes in names are not quotes", "Date;Payee\n02.03.2026;Joe's 'n' Mary's\n", '"'},
		{"empty", "", '"'},
	}
	for _, c := range cases {
		if got := Quote(c.text); got != c.want {
			t.Errorf("%s: Quote = %q, want %q", c.name, got, c.want)
		}
	}
}
