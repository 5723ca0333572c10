// Package statement turns bank and credit-card statement PDFs into transaction lines without
// any external service, and checks the lines against the statement's own balances.
//
// The work is done in two steps. ExtractText gets each page's text, laid out so that columns
// stay apart (pdftotext -layout when it is installed, a pure-Go reader otherwise). Parse then
// reads that text: it finds dated lines with amounts, decides for each amount whether it is
// money in or out (from its sign, the column it sits under, or the running balance beside it),
// and reconciles the result with the opening and closing balances the statement prints.
//
// Amounts always follow one convention, whatever the statement prints: money in (a deposit,
// a card payment or refund) is positive and money out (a withdrawal, a card purchase) is
// negative. Balances are kept as printed: a bank balance is what the account holds, a credit
// card balance is what is owed. Parse never fails; whatever looks wrong becomes a Problem on
// the line or on the statement, so a person can see and fix it before importing.
//
// LLM is an optional second extractor for statements the layout rules cannot read; it asks an
// OpenAI-compatible endpoint for the same data and reconciles the answer the same way.
//
// Errors from ExtractText, ExtractTextWith and LLM.Extract are *ExtractError values (or, when
// the caller's context ends, errors wrapping ctx.Err()). Their Error method returns a message
// meant for the person who uploaded the statement, free of file paths, URLs, keys and
// upstream answers; the internal detail is in the Err field (see ExtractError.Detail) for
// logs. errors.Is tells the kinds apart: ErrNotPDF, ErrEncrypted, ErrNoText, ErrTooComplex,
// ErrUnreadable and ErrUpstream.
//
// The pure-Go reader is meant to be safe on hostile files: it checks a file's compressed
// streams and structure before reading it and refuses, with ErrTooComplex, any that would
// take hundreds of megabytes or more than a few seconds, and it stops when the context ends.
package statement
