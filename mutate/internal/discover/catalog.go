package discover

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/testbin"
)

// catalogImportPath turns the --catalog flag into an import path: "./x" is
// relative to the module root.
func catalogImportPath(flag, root, module string) (path, dir string) {
	if strings.HasPrefix(flag, "./") || flag == "." {
		rel := strings.TrimPrefix(strings.TrimPrefix(flag, "."), "/")
		dir = filepath.Join(root, filepath.FromSlash(rel))
		if rel == "" {
			return module, dir
		}
		return module + "/" + rel, dir
	}
	if strings.HasPrefix(flag, module+"/") {
		return flag, filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(flag, module+"/")))
	}
	return flag, ""
}

// readCatalog runs a generated program, added to the module through an
// overlay only (nothing is written to the tree), that prints
// json.Marshal(pkg.Catalog()). Any JSON-compatible Catalog type with the
// field names of package catalog works. If the go command refuses a file
// in a directory that exists only in the overlay, a test file added to the
// catalog package through the overlay prints it instead.
func readCatalog(root, importPath, tmp string) (catalog.Catalog, error) {
	var cat catalog.Catalog
	out, err := catalogByMain(root, importPath, tmp)
	if err != nil {
		var err2 error
		out, err2 = catalogByTest(root, importPath, tmp)
		if err2 != nil {
			return cat, fmt.Errorf("read catalog %s: %v; fallback: %v", importPath, err, err2)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cat); err != nil {
		return cat, fmt.Errorf("read catalog %s: its Catalog() does not have the catalog.Catalog shape: %w", importPath, err)
	}
	return cat, validateCatalog(cat)
}

const catalogMain = `package main

import (
	"encoding/json"
	"os"

	cat %q
)

func main() {
	data, err := json.Marshal(cat.Catalog())
	if err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(1)
	}
	os.Stdout.Write(data)
}
`

func catalogByMain(root, importPath, tmp string) ([]byte, error) {
	dirName := "gathermut_catalog_main"
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(root, dirName)); os.IsNotExist(err) {
			break
		}
		dirName = fmt.Sprintf("gathermut_catalog_main%d", i)
	}
	src := filepath.Join(tmp, "catalog_main.go")
	if err := os.WriteFile(src, []byte(fmt.Sprintf(catalogMain, importPath)), 0o644); err != nil {
		return nil, err
	}
	overlay, err := writeOverlayFile(tmp, "catalog_overlay.json", map[string]string{filepath.Join(root, dirName, "main.go"): src})
	if err != nil {
		return nil, err
	}
	return runGo(root, "run", "-overlay", overlay, "./"+dirName)
}

const catalogTest = `package %s

import (
	"encoding/json"
	"os"
	"testing"
)

func TestGathermutCatalogDump(t *testing.T) {
	data, err := json.Marshal(Catalog())
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("\n%s" + string(data) + "%s\n")
}
`

const beginMark, endMark = "<<gathermut-catalog>>", "<<end-gathermut-catalog>>"

func catalogByTest(root, importPath, tmp string) ([]byte, error) {
	out, err := runGo(root, "list", "-f", "{{.Dir}}\t{{.Name}}", importPath)
	if err != nil {
		return nil, err
	}
	dir, name, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok {
		return nil, fmt.Errorf("go list %s printed %q", importPath, out)
	}
	src := filepath.Join(tmp, "catalog_dump_test.go")
	if err := os.WriteFile(src, []byte(fmt.Sprintf(catalogTest, name, beginMark, endMark)), 0o644); err != nil {
		return nil, err
	}
	overlay, err := writeOverlayFile(tmp, "catalog_test_overlay.json", map[string]string{filepath.Join(dir, "zz_gathermut_catalog_dump_test.go"): src})
	if err != nil {
		return nil, err
	}
	out, err = runGo(root, "test", "-count=1", "-v", "-overlay", overlay, "-run", "^TestGathermutCatalogDump$", importPath)
	if err != nil {
		return nil, err
	}
	_, rest, ok := strings.Cut(string(out), beginMark)
	data, _, ok2 := strings.Cut(rest, endMark)
	if !ok || !ok2 {
		return nil, fmt.Errorf("catalog dump test printed no catalog")
	}
	return []byte(data), nil
}

// writeOverlayFile writes an overlay (with the user's, see
// testbin.WriteOverlay) and returns its path.
func writeOverlayFile(dir, name string, replace map[string]string) (string, error) {
	path := filepath.Join(dir, name)
	return path, testbin.WriteOverlay(path, replace)
}

func runGo(dir string, args ...string) ([]byte, error) {
	out, _, err := runGoStderr(dir, args...)
	return out, err
}

// runGoStderr is runGo that also returns what go printed on stderr (its
// warnings, when it succeeds).
func runGoStderr(dir string, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = load.Env()
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		return out, errBuf.Bytes(), fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errBuf.String()))
	}
	return out, errBuf.Bytes(), nil
}

// validateCatalog checks what can be checked without the code: ids unique
// and present, reasons on equivalents, a kernel config for kernel entries.
func validateCatalog(c catalog.Catalog) error {
	seen := map[string]bool{}
	for i, e := range c.Entries {
		if e.ID == "" {
			return fmt.Errorf("catalog entry %d has no ID", i)
		}
		if seen[e.ID] {
			return fmt.Errorf("catalog entry id %q is used twice", e.ID)
		}
		seen[e.ID] = true
		if len(e.Killers) == 0 {
			return fmt.Errorf("catalog entry %q names no expected killer", e.ID)
		}
		if e.Operator == catalog.KernelText && c.Kernel == nil {
			return fmt.Errorf("catalog entry %q is kernel-text but the catalog has no Kernel config", e.ID)
		}
	}
	for _, eq := range c.Equivalents {
		if strings.TrimSpace(eq.Reason) == "" {
			return fmt.Errorf("catalog equivalent %+v has no Reason", eq)
		}
		if eq.Package == "" {
			return fmt.Errorf("catalog equivalent %+v has no Package", eq)
		}
	}
	return nil
}

func newCmd(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = load.Env()
	return cmd
}
