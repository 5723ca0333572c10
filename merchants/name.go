// Package merchants finds the merchant a bank's text for a transaction names, and gives a
// family's new transactions theirs: the same for an import's rows and a bank sync's.
package merchants

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Name is the merchant a bank's text for a transaction names, as a person would call
// it: "PURCHASE AUTHORIZED ON 12/03 SQ *BLUE BOTTLE COFFEE San Francisco CA S583337456789012
// CARD 1234" is "Blue Bottle Coffee". It drops what banks and card networks add around the
// name (the kind of payment, a payment service's prefix, store and terminal numbers,
// references, dates, a card descriptor's city and state or country, web addresses, legal
// forms) and writes an all-capitals name in title case. It is "" when nothing that names
// someone is left: a transfer, interest, a salary, a fee.
func Name(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	s = stripPaymentKind(s)
	if loc := authorizedOn.FindStringIndex(s); loc != nil {
		s = strings.TrimSpace(s[loc[1]:])
	}
	// "SQ *BLUE BOTTLE", "PAYPAL *NETFLIX": a payment service, then the merchant it paid;
	// "UBER *TRIP", "AMZN Mktp DE*2K4HG7PL5": the merchant, then what was bought.
	if before, after, ok := strings.Cut(s, "*"); ok && len(before) <= 20 {
		lead := strings.Fields(before)
		if n := len(lead); n > 0 && processors[fold(lead[n-1])] {
			s = strings.Join(append(lead[:n-1], after), " ") // what came before it is a reference
		} else {
			s = before
		}
	}
	words := nameWords(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '*' || r == ',' || r == ';' }))
	words = trimTail(words)
	if len(words) > maxMerchantWords {
		words = words[:maxMerchantWords]
	}
	if len(words) == 0 || generic[fold(words[0])] {
		return ""
	}
	if alias, ok := merchantAliases[fold(strings.Join(words, " "))]; ok {
		return alias
	}
	if !slices.ContainsFunc(words, func(w string) bool { return strings.ContainsFunc(w, unicode.IsLower) }) {
		for i, w := range words {
			words[i] = nameCase(w, i == 0)
		}
	}
	return strings.Join(words, " ")
}

// maxPaymentKinds bounds stripPaymentKind's rounds: the longest run banks write is three
// ("SEPA-Lastschrift Kartenzahlung girocard"), and a bound keeps a text made of nothing but
// such words from costing more than a few matches.
const maxPaymentKinds = 5

// stripPaymentKind drops from the start of s the words that say how a payment was made, as
// often as they come: "Kartenzahlung girocard", "BEA, Apple Pay", "ADEUDO RECIBO".
func stripPaymentKind(s string) string {
	for range maxPaymentKinds {
		loc := paymentKind.FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			break
		}
		s = s[loc[1]:]
	}
	return s
}

// nameWords are the words of fields that name the merchant: from the first that is not a
// reference ("POS 12/03 WAITROSE", "pasnr. 001 Jumbo") to the first that starts what is not
// its name (endsName), or that repeats its first word ("Aldi Süd Aldi Sagt", "dm-drogerie
// markt dm").
func nameWords(fields []string) []string {
	var words []string
	for i, w := range fields {
		if j := strings.Index(w, "//"); j >= 0 { // girocard: "EDEKA CENTER//MUENCHEN/DE"
			if w = w[:j]; w != "" && !(len(words) > 0 && endsName(w)) {
				words = append(words, w)
			}
			break
		}
		if len(words) == 0 {
			lower := strings.ToLower(w)
			if isReference(w) || referenceWords[lower] && i+1 < len(fields) && isReference(fields[i+1]) {
				continue
			}
			words = append(words, webName(w))
			continue
		}
		if endsName(w) || repeats(words[0], w) {
			break
		}
		words = append(words, webName(w))
	}
	return words
}

// repeats reports whether w repeats a name's first word, or the part of it before a hyphen: a
// bank's text that names the merchant twice.
func repeats(first, w string) bool {
	first, w = fold(first), fold(strings.Trim(w, ",.()"))
	head, _, _ := strings.Cut(first, "-")
	return w == first || w == head
}

// maxMerchantWords is the longest merchant name kept: past it, a bank's text is a purpose.
const maxMerchantWords = 4

var (
	// paymentKind is how a bank says a payment was made, before the name, in English, German,
	// French, Dutch, Spanish and Italian bank text, or the label of the name that follows
	// (Comdirect's "Auftraggeber:").
	paymentKind = regexp.MustCompile(`(?i)^(` +
		// English
		`Apple Pay|Google Pay|Visa( Debit)?|Mastercard|Maestro|POS( Purchase)?|(Debit |Credit )?Card (Purchase|Payment|Transaction)|` +
		`Contactless( Payment)?|Online Payment|Direct Debit|CHECKCARD \d{4}|Purchase|Refund|` +
		// German
		`(SEPA[- ]?)?(Basis-?|Firmen-?)?(Erst|Folge|Einmal)?-?lastschrift|Kartenzahlung|girocard|Debitkarte|Kreditkarte|Kartenumsatz|` +
		`Karte|EC[- ]Karte|Dauerauftrag|Gutschrift|R(ü|ue)ckerstattung|Erstattung|` +
		`(Auftraggeber|Empf(ä|ae)nger|Zahlungsempf(ä|ae)nger|Beg(ü|ue)nstigter|Zahlungspflichtiger):|` +
		// French
		`PAIEMENT (PAR CARTE|CB|SANS CONTACT)|FACTURE CARTE( DU)?|ACHAT CB|CARTE|CB|PRLV( SEPA)?|PR(E|É)L(E|È)VEMENT( SEPA)?|` +
		// Dutch
		`BEA|Betaalautomaat|Betaalpas|iDEAL|(SEPA )?Incasso( algemeen)?( doorlopend| eenmalig)?|Acceptgiro|` +
		// Spanish
		`COMPRA( CON)?( TARJ(ETA)?)?( EN)?|PAGO( MOVIL| CON TARJETA)?( EN)?|RECIBO|ADEUDO( DOMICILIADO)?|DEVOLUCION|` +
		// Italian
		`PAGAMENTO( TRAMITE)?( SU)?( POS| CARTA| APPLE PAY)?|PAGOBANCOMAT|ADDEBITO( DIRETTO)?( SDD)?|` +
		`SEPA)([\s:/,.-]+((to|from|an|von|bei|at)\s+)?|$)`)
	// authorizedOn is a US bank's "PURCHASE AUTHORIZED ON 12/03" before a card's descriptor.
	authorizedOn = regexp.MustCompile(`(?i)^((RECURRING )?PAYMENT |PURCHASE )?AUTHORIZED ON \d{1,2}/\d{1,2}\s*`)
	// numbered is a word that numbers something: a store (#123, 0815), a terminal, a date or
	// a time.
	numbered = regexp.MustCompile(`^(#.*|\d{3,}|\d+[./-]\d+([./-]\d+)?\.?|\d{4}-\d{2}-\d{2}T[\d:.]+Z?|\d{1,2}:\d{2}(:\d{2})?)$`)
	// referenceWords say that what follows numbers or describes the payment, not who it is with.
	referenceWords = wordSet(`store nr nr. no no. fil fil. filiale terminal tid terminal-id card karte ref ref. eref mref
		cred svwz kundennr kundennr. kd-nr kd-nr. vertrag vertragsnr rechnung rechnungsnr rg rg. mandat mandatsref iban bic
		datum date end-to-end end-to-end-ref abschlag pending help kfn kg-nr pasnr pasnr. pasvolgnr pasvolgnr: id emetteur mdt`)
	// paymentWords say how or what for one paid: after the name, the rest of a bank's text, in
	// German, French, Dutch, Spanish and Italian ("REWE Markt Grünwald Kartenzahlung", "EDEKA
	// SAGT DANKE", "BOUYGUES TELECOM ECHEANCE MARS").
	paymentWords = wordSet(`kartenzahlung girocard lastschrift sepa-lastschrift sepa-basislastschrift basislastschrift
		folgelastschrift erstlastschrift dauerauftrag gutschrift uberweisung ueberweisung sagt miete kindergeld beitrag
		mitgliedsbeitrag lohn/gehalt gehalt
		carte cb prlv echeance facture paiement
		factuur termijnbedrag betaalautomaat incasso
		cuota factura tarjeta tarj
		carta fattura rata bolletta`)
	// legalForms end a company's name, and what follows them is not its name either.
	legalForms = wordSet(`gmbh mbh ag kg ohg ug e.k. e.v. se ltd ltd. limited llc inc inc. corp corp. plc sa s.a. sarl
		s.a.r.l. sas bv b.v. nv n.v. sl s.l. spa s.p.a. srl s.r.l. a/s oy sau s.a.u. slu s.l.u. sca s.c.a eurl snc vof bvba
		gbr kgaa`)
	// places are the codes a card descriptor ends with after the city: a US state or a
	// country, in two letters or three.
	places = wordSet(`al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc
		nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy dc at be ch cz dk es fi fr gb ie it lu nl no pl pt se uk us
		aut bel che deu dnk esp fra gbr irl ita lux nld pol prt usa`)
	// cityStarts begin a city's name of two words ("SAN FRANCISCO").
	cityStarts = wordSet(`san los las new santa st st. fort salt palo el la bad den`)
	// processors are payment services whose descriptors name the merchant paid after a star.
	processors = wordSet(`sq square paypal pp crv curve sumup iz izettle zettle tst sp wl cko stripe google fs paddle.net
		klarna dd`)
	// generic first words say what a transaction is rather than whom it is with.
	generic = wordSet(`transfer uberweisung ueberweisung echtzeituberweisung payment zahlung deposit
		withdrawal atm cash bargeldauszahlung bargeld geldautomat interest zinsen fee fees gebuhr gebuhren entgelt kontofuhrung
		abschluss rechnungsabschluss salary gehalt lohn miete rent imported check cheque balance saldo tilgung
		virement vir retrait frais cotisation commission
		overboeking periodieke geldmaat rente kosten
		transferencia traspaso bizum retirada comision nomina intereses
		bonifico giroconto prelievo commissioni canone stipendio interessi`)
	// particles are the small words inside a name written in capitals that people write in
	// lower case ("AGUAS DE VALENCIA" is "Aguas de Valencia").
	particles = wordSet(`de del della dei di da du des la le les el los las y e et en van der den het von zu und of the and`)
	// merchantAliases are the few merchants whose descriptors rarely say their name.
	merchantAliases = map[string]string{"amzn": "Amazon", "amzn mktp": "Amazon", "amzn mktp de": "Amazon",
		"amzn mktp us": "Amazon", "amzn mktp uk": "Amazon", "amazon mktplce": "Amazon", "amazon marketplace": "Amazon"}
)

// wordSet is the set of the words of s.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// isReference reports whether w numbers something (numbered), or is a reference that mixes
// capitals and digits, such as S583337456789012 or P1A2B3C4D5, or digits with letters and
// marks, such as FM-12345678-1, ECH/170226 or NR:12345678.
func isReference(w string) bool {
	if numbered.MatchString(w) {
		return true
	}
	digits := 0
	for _, r := range w {
		if unicode.IsDigit(r) {
			digits++
		}
	}
	return len(w) >= 5 && digits > 0 && strings.ContainsFunc(w, unicode.IsUpper) &&
		(digits >= 4 || !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsUpper(r) && !unicode.IsDigit(r) }))
}

// endsName reports whether w, after a merchant's first word, starts what is not its name: a
// reference, a word of payment, a legal form, a web address, or a label ("Buchungstext:").
func endsName(w string) bool {
	lower := strings.ToLower(strings.Trim(w, ",.()"))
	return isReference(w) || referenceWords[lower] || paymentWords[fold(lower)] || legalForms[lower] || legalForms[strings.ToLower(w)] ||
		strings.HasPrefix(lower, "www.") || strings.Count(w, ".") >= 2 || // help.uber.com, S.a.r.l.
		strings.Contains(w, ".") && strings.Contains(w, "/") || // g.co/helppay
		len(w) > 1 && strings.HasSuffix(w, ":")
}

// webName is a web address as the name it stands for: "NETFLIX.COM" is NETFLIX, and
// "APPLE.COM/BILL" APPLE.
func webName(w string) string {
	lower := strings.ToLower(w)
	if i := strings.Index(lower, "/"); i > 0 && strings.Contains(lower[:i], ".") {
		w, lower = w[:i], lower[:i]
	}
	for _, tld := range []string{".com", ".de", ".co.uk", ".net", ".org", ".io", ".eu", ".fr", ".nl", ".at", ".ch", ".es", ".it", ".be", ".pt"} {
		if strings.HasSuffix(lower, tld) && len(w) > len(tld) {
			return w[:len(w)-len(tld)]
		}
	}
	return w
}

// trimTail drops from the end of words a card descriptor's city and its state or country code
// ("BLUE BOTTLE COFFEE San Francisco CA", "ZUM HIRSCHEN MUENCHEN DE"), "& Co", and stray
// punctuation.
func trimTail(words []string) []string {
	if n := len(words); n >= 3 && places[strings.ToLower(words[n-1])] && words[n-1] == strings.ToUpper(words[n-1]) {
		words = words[:n-1]
		city := len(words) - 1 // the city's last word, or all its words written in another case than the name
		for city > 1 && isUpper(words[0]) && !isUpper(words[city-1]) {
			city--
		}
		if city == len(words)-1 && city > 1 && cityStarts[strings.ToLower(words[city-1])] {
			city--
		}
		words = words[:city]
	}
	for len(words) > 1 && (words[len(words)-1] == "&" || strings.EqualFold(strings.TrimSuffix(words[len(words)-1], "."), "co")) {
		words = words[:len(words)-1]
	}
	for len(words) > 0 {
		last := strings.TrimRight(words[len(words)-1], ".,-/:&")
		if last != "" {
			words[len(words)-1] = last
			break
		}
		words = words[:len(words)-1]
	}
	return words
}

// isUpper reports whether w has letters and none of them lower case.
func isUpper(w string) bool {
	return strings.ContainsFunc(w, unicode.IsLetter) && !strings.ContainsFunc(w, unicode.IsLower)
}

// nameCase writes a word of a name in capitals as people write it: a particle in lower case
// inside the name ("Aguas de Valencia") and in title case first ("El Corte Ingles"), a word
// of consonants alone in capitals as the acronym it is ("SNCF", "SFR"), any other in title
// case.
func nameCase(w string, first bool) string {
	lower := strings.ToLower(w)
	switch {
	case particles[lower] && !first:
		return lower
	case particles[lower]:
		return strings.ToUpper(lower[:1]) + lower[1:]
	case !strings.ContainsAny(lower, "aeiouyäöüéèáàíóú") && strings.ContainsFunc(w, unicode.IsLetter):
		return w
	}
	return titleCase(w)
}

// titleCase writes an all-capitals word as people write names: "BOTTLE" is "Bottle" and
// "7-ELEVEN" "7-Eleven", while "DB", "H&M" and "AT&T" keep their capitals and "MCDONALD'S" is
// "Mcdonald's".
func titleCase(w string) string {
	runes := []rune(w)
	if len(runes) <= 2 {
		return w
	}
	var b strings.Builder
	for i := 0; i < len(runes); {
		if !unicode.IsLetter(runes[i]) {
			b.WriteRune(runes[i])
			i++
			continue
		}
		j := i
		for j < len(runes) && unicode.IsLetter(runes[j]) {
			j++
		}
		run := string(runes[i:j])
		switch {
		case i > 0 && runes[i-1] == '\'':
			b.WriteString(strings.ToLower(run))
		case j-i <= 2:
			b.WriteString(run)
		default:
			b.WriteRune(runes[i])
			b.WriteString(strings.ToLower(string(runes[i+1 : j])))
		}
		i = j
	}
	return b.String()
}

// fold is a word as the lists above hold it: lower case, without the accents of German, French
// and the like.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if a, ok := plain[r]; ok {
			return a
		}
		return unicode.ToLower(r)
	}, s)
}

var plain = map[rune]rune{'ä': 'a', 'ö': 'o', 'ü': 'u', 'Ä': 'a', 'Ö': 'o', 'Ü': 'u', 'é': 'e', 'è': 'e', 'ê': 'e', 'É': 'e',
	'à': 'a', 'â': 'a', 'á': 'a', 'ç': 'c', 'ñ': 'n', 'ó': 'o', 'ô': 'o', 'í': 'i', 'î': 'i', 'ú': 'u', 'û': 'u'}
