// Command tally-image packs a static linux tally binary into a container image, with no
// Docker daemon: an OCI image archive that docker load, podman load and skopeo all read.
//
//	tally-image -binary bin/tally-linux -o bin/tally-image.tar
package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	binaryPath = "/usr/local/bin/tally"
	dataDir    = "/var/lib/tally"
	// 65532 is the usual "nonroot" id of distroless images, unlikely to clash with a host user.
	uid = 65532
)

func main() {
	binary := flag.String("binary", "", "the static linux tally binary (CGO_ENABLED=0)")
	out := flag.String("o", "bin/tally-image.tar", "the image archive to write")
	tag := flag.String("tag", "tally:latest", "the image's name and tag")
	arch := flag.String("arch", runtime.GOARCH, "the binary's GOARCH")
	flag.Parse()
	if err := run(*binary, *out, *tag, *arch); err != nil {
		fmt.Fprintln(os.Stderr, "tally-image:", err)
		os.Exit(1)
	}
}

func run(binaryFile, out, tag, arch string) error {
	if binaryFile == "" {
		return errors.New("-binary is required")
	}
	bin, err := os.ReadFile(binaryFile)
	if err != nil {
		return err
	}
	created, err := sourceDateEpoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	img, err := build(bin, options{Arch: arch, Created: created})
	if err != nil {
		return err
	}
	if err := writeArchive(img, out, tag); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s %s\n", out, tag, digest)
	return nil
}

// sourceDateEpoch is the time every timestamp of the image takes: SOURCE_DATE_EPOCH
// (reproducible-builds.org) or else the Unix epoch, so that the same binary always gives
// the same image digest.
func sourceDateEpoch(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

type options struct {
	Arch    string    // GOARCH of the binary; runtime.GOARCH when empty
	Created time.Time // every timestamp in the image
}

// build makes the image: one layer with the binary, a passwd and group naming the
// unprivileged user, /tmp and the data directory, onto nothing at all.
func build(binary []byte, o options) (v1.Image, error) {
	arch := cmp.Or(o.Arch, runtime.GOARCH)
	if err := checkStatic(binary, arch); err != nil {
		return nil, err
	}
	created := o.Created.UTC()
	layerTar, err := rootfs(binary, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "tally-image", Comment: "tally binary, passwd, group, /tmp and " + dataDir},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: created}
	cf.OS, cf.Architecture = "linux", arch
	cf.Config = v1.Config{
		Entrypoint:   []string{binaryPath},
		Cmd:          []string{"serve"},
		User:         fmt.Sprintf("%d:%d", uid, uid),
		WorkingDir:   dataDir,
		Env:          []string{"TALLY_DATA_DIR=" + dataDir, "LISTEN_ADDR=0.0.0.0:3000"},
		ExposedPorts: map[string]struct{}{"3000/tcp": {}},
		Labels:       map[string]string{"org.opencontainers.image.title": "Tally"},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, map[string]string{
		"org.opencontainers.image.title":   "Tally",
		"org.opencontainers.image.created": created.Format(time.RFC3339),
	}).(v1.Image), nil
}

// checkStatic refuses a binary that could not run on an empty base: not a linux ELF file of
// arch, or one that needs a dynamic loader or shared libraries.
func checkStatic(binary []byte, arch string) error {
	f, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		return fmt.Errorf("the binary is not a linux ELF executable: %w", err)
	}
	defer f.Close()
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "386": elf.EM_386,
		"arm": elf.EM_ARM, "riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390, "loong64": elf.EM_LOONGARCH}
	if want, ok := machines[arch]; ok && f.Machine != want {
		return fmt.Errorf("the binary is for %s, not %s (set -arch)", f.Machine, arch)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return err
	}
	dynamic := len(libs) > 0 || slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
	if dynamic {
		return errors.New("the binary is dynamically linked: build it with CGO_ENABLED=0")
	}
	return nil
}

// rootfs is the layer's tar: entries sorted by name (parents first), all owned by root but
// the data directory, and every timestamp at created, so that it is the same on every build.
func rootfs(binary []byte, created time.Time) ([]byte, error) {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		fmt.Sprintf("tally:x:%d:%d::%s:/sbin/nologin\n", uid, uid, dataDir)
	group := "root:x:0:\n" + fmt.Sprintf("tally:x:%d:\n", uid)
	type entry struct {
		name string
		mode int64
		uid  int
		body []byte // nil for a directory
	}
	entries := []entry{
		{"etc/", 0o755, 0, nil},
		{"etc/group", 0o644, 0, []byte(group)},
		{"etc/passwd", 0o644, 0, []byte(passwd)},
		{"tmp/", 0o1777, 0, nil},
		{"usr/", 0o755, 0, nil},
		{"usr/local/", 0o755, 0, nil},
		{"usr/local/bin/", 0o755, 0, nil},
		{strings.TrimPrefix(binaryPath, "/"), 0o755, 0, binary},
		{"var/", 0o755, 0, nil},
		{"var/lib/", 0o755, 0, nil},
		{strings.TrimPrefix(dataDir, "/") + "/", 0o750, uid, nil},
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created}
		if e.body == nil {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeArchive writes img to path as a tar of an OCI image layout named tag, with a Docker
// manifest.json beside it as `docker save` writes since Docker 25, so that docker load and
// podman load take it as well as skopeo (oci-archive:). The file appears whole or not at all.
func writeArchive(img v1.Image, path, tag string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("-tag %q: %w", tag, err)
	}
	// docker load refuses a RepoTags entry with no tag, so one is required here.
	if !strings.HasSuffix(tag, ":"+ref.TagStr()) {
		return fmt.Errorf("-tag %q: name a tag, as in tally:latest", tag)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "tally-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	err = lp.AppendImage(img, layout.WithPlatform(*cf.Platform()), layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref.TagStr(),
		"io.containerd.image.name":          dockerName(tag),
	}))
	if err != nil {
		return err
	}

	manifestJSON, err := dockerManifest(img, tag)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifestJSON, 0o644); err != nil {
		return err
	}

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if err := tarDir(tmp, dir, cf.Created.Time); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// dockerManifest is the manifest.json of `docker save`: the config and layers by their
// paths in the archive, which are the OCI layout's blobs.
func dockerManifest(img v1.Image, tag string) ([]byte, error) {
	blob := func(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }
	config, err := img.ConfigName()
	if err != nil {
		return nil, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return nil, err
		}
		paths = append(paths, blob(d))
	}
	type entry struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	return json.Marshal([]entry{{Config: blob(config), RepoTags: []string{tag}, Layers: paths}})
}

// dockerName is tag as Docker names it in full ("tally:latest" is
// "docker.io/library/tally:latest"), as `docker save` writes io.containerd.image.name.
func dockerName(tag string) string {
	first, _, ok := strings.Cut(tag, "/")
	switch {
	case !ok:
		return "docker.io/library/" + tag
	case strings.ContainsAny(first, ".:") || first == "localhost":
		return tag
	default:
		return "docker.io/" + tag
	}
}

// tarDir writes the files under dir to w as a tar, sorted, with fixed owners, modes and
// times, so that the archive depends only on the files' contents.
func tarDir(w io.Writer, dir string, mtime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		names = append(names, rel)
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	tw := tar.NewWriter(w)
	for _, n := range names {
		h := &tar.Header{Name: n, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: mtime}
		var body []byte
		if !strings.HasSuffix(n, "/") {
			body, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
			if err != nil {
				return err
			}
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(body); err != nil {
			return err
		}
	}
	return tw.Close()
}
