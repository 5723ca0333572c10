// Package parse holds the import engine's low-level text parsers: numbers and dates as files
// write them, tag cells, text encodings, CSV tables and QIF files. It knows nothing of
// families, accounts or the database; its errors name the value, the expected format and,
// for files, the line, so that callers can show them to people as they are.
package parse
