package camt

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"tally/imports/bankfile"
)

// Bounds on a ZIP of camt files, so that a small archive cannot unpack into a large one.
// Variables, so that the tests can lower them.
var (
	maxZipMembers    = 1000
	maxMemberBytes   = int64(bankfile.MaxBytes)
	maxUnpackedBytes = int64(5 * bankfile.MaxBytes)
)

// members lists the XML files of an archive in name order, and the names of the other files
// it holds (directories, macOS metadata and hidden files aside). count is the number of
// entries in the archive.
func members(content []byte) (files []*zip.File, skipped []string, count int, err error) {
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, nil, 0, bankfile.Errorf(0, "", "the ZIP archive cannot be read: %v", err)
	}
	for _, f := range zr.File {
		switch {
		case f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") || strings.HasPrefix(path.Base(f.Name), "."):
		case strings.EqualFold(path.Ext(f.Name), ".xml"):
			files = append(files, f)
		default:
			skipped = append(skipped, f.Name)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, skipped, len(zr.File), nil
}

// unpack reads a member through a limit, whatever size its header claims.
func unpack(f *zip.File, budget *int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, bankfile.Errorf(0, f.Name, "cannot be unpacked: %v", err)
	}
	defer rc.Close()
	limit := min(maxMemberBytes, *budget)
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, bankfile.Errorf(0, f.Name, "cannot be unpacked: %v", err)
	}
	if int64(len(b)) > limit {
		if limit < maxMemberBytes {
			return nil, bankfile.Errorf(0, f.Name, "the ZIP unpacks to more than %s", size(maxUnpackedBytes))
		}
		return nil, bankfile.Errorf(0, f.Name, "the file unpacks to more than %s", size(maxMemberBytes))
	}
	*budget -= int64(len(b))
	return b, nil
}

// size is a number of bytes for a person: "10 MB", or "900 bytes" below a megabyte.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MB", n>>20)
}

func readZip(content []byte, each bankfile.EntryFunc) (*bankfile.File, error) {
	files, skipped, count, err := members(content)
	if err != nil {
		return nil, err
	}
	if count > maxZipMembers {
		return nil, bankfile.Errorf(0, "", "the ZIP holds %d files; at most %d are read", count, maxZipMembers)
	}
	if len(files) == 0 {
		return nil, bankfile.Errorf(0, "", "the ZIP holds no camt XML file")
	}
	out := &bankfile.File{Format: bankfile.FormatCAMT}
	budget := maxUnpackedBytes
	for _, f := range files {
		b, err := unpack(f, &budget)
		if err != nil {
			return nil, err
		}
		doc, err := readDocument(b, each, len(out.Statements))
		if err != nil {
			var be *bankfile.Error
			if errors.As(err, &be) {
				return nil, &bankfile.Error{Line: be.Line, Element: strings.TrimSuffix(f.Name+": "+be.Element, ": "), Msg: be.Msg}
			}
			return nil, err
		}
		if out.Version == "" {
			out.Version = doc.Version
		}
		if len(out.Statements)+len(doc.Statements) > bankfile.MaxStatements {
			return nil, bankfile.Errorf(0, f.Name, "the ZIP holds more than %d statements", bankfile.MaxStatements)
		}
		out.Statements = append(out.Statements, doc.Statements...)
	}
	if len(skipped) > 0 {
		names := strings.Join(skipped[:min(len(skipped), 10)], ", ")
		if len(skipped) > 10 {
			names += fmt.Sprintf(" and %d more", len(skipped)-10)
		}
		out.Statements[0].Notes = append(out.Statements[0].Notes, "The ZIP's other files were not read: "+names+".")
	}
	return out, nil
}

// sniffZip reports whether an archive holds an XML file that sniffs as camt, reading at most
// the first 4 KB of each of its first 20 XML files.
func sniffZip(content []byte) bool {
	files, _, _, err := members(content)
	if err != nil {
		return false
	}
	for _, f := range files[:min(len(files), 20)] {
		rc, err := f.Open()
		if err != nil {
			continue
		}
		head, _ := io.ReadAll(io.LimitReader(rc, 4096))
		rc.Close()
		if Sniff(head) {
			return true
		}
	}
	return false
}
