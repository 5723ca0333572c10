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
	maxZipMembers     = 1000
	maxMemberBytes    = int64(bankfile.MaxBytes)
	maxUnpackedBytes  = int64(5 * bankfile.MaxBytes)
	errNotCamtArchive = errors.New("the ZIP holds no camt XML file")
)

// members lists the XML files of an archive in name order, and the names of what it skips.
func members(content []byte) (files []*zip.File, skipped []string, err error) {
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, nil, bankfile.Errorf(0, "", "the ZIP archive cannot be read: %v", err)
	}
	if len(zr.File) > maxZipMembers {
		return nil, nil, bankfile.Errorf(0, "", "the ZIP holds %d files; at most %d are read", len(zr.File), maxZipMembers)
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
	return files, skipped, nil
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
			return nil, bankfile.Errorf(0, f.Name, "the ZIP unpacks to more than %d MB", maxUnpackedBytes>>20)
		}
		return nil, bankfile.Errorf(0, f.Name, "the file unpacks to more than %d MB", maxMemberBytes>>20)
	}
	*budget -= int64(len(b))
	return b, nil
}

func readZip(content []byte) (*bankfile.File, error) {
	files, skipped, err := members(content)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, bankfile.Errorf(0, "", "%v", errNotCamtArchive)
	}
	out := &bankfile.File{Format: bankfile.FormatCAMT}
	budget := maxUnpackedBytes
	for _, f := range files {
		b, err := unpack(f, &budget)
		if err != nil {
			return nil, err
		}
		doc, err := readDocument(b)
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
		out.Statements[0].Notes = append(out.Statements[0].Notes,
			fmt.Sprintf("The ZIP's other files were not read: %s.", strings.Join(skipped, ", ")))
	}
	return out, nil
}

// sniffZip reports whether an archive holds an XML file that sniffs as camt, reading at most
// the first 4 KB of each of its first members.
func sniffZip(content []byte) bool {
	files, _, err := members(content)
	if err != nil {
		return false
	}
	for i, f := range files {
		if i == 20 {
			break
		}
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
