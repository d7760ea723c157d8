package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/skillrun/skillrun/internal/buildid"
	"github.com/skillrun/skillrun/internal/safefile"
)

// The scan memo: scanModule reads every instruction of a module, 30 ms
// for CPython's 7 MB, on every start of a process that runs it. A module
// that passed is recorded in the disk cache (<cache>/scans), keyed by its
// SHA-256 (3 ms) and by the running executable, so that a one-shot
// `skillrun run` reads the verdict instead of scanning again, and a
// skillrun whose scan rules changed (any other build) never trusts an
// older one's verdict. Refusals are not recorded: a refused module is
// scanned again, which costs only the module's sender. The cache folder
// is the compiled code's, trusted the same way (see Options.CacheDir).

// scanRecord is a scan's result as the memo keeps it.
type scanRecord struct {
	TableBytes      uint64   `json:"table_bytes"`
	Unsnapshottable string   `json:"unsnapshottable,omitempty"`
	MutableGlobals  []string `json:"mutable_globals,omitempty"`
}

// maxScanRecord bounds a record read back.
const maxScanRecord = 64 << 10

// scanKept is scanModule through the memo, when the Runtime has a disk
// cache.
func (r *Runtime) scanKept(wasm []byte) (moduleShape, error) {
	exe := buildid.Executable()
	if r.cacheDir == "" || exe == "" {
		return scanModule(wasm)
	}
	h := sha256.New()
	h.Write([]byte("scan 1\x00" + exe + "\x00"))
	h.Write(wasm)
	file := filepath.Join(r.cacheDir, "scans", hex.EncodeToString(h.Sum(nil))+".json")
	if shape, err := readScanRecord(file); err == nil {
		return shape, nil
	}
	shape, err := scanModule(wasm)
	if err == nil {
		_ = writeScanRecord(file, shape) // not kept: scanned again next time
	}
	return shape, err
}

func readScanRecord(file string) (moduleShape, error) {
	f, err := os.Open(file)
	if err != nil {
		return moduleShape{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScanRecord+1))
	if err != nil {
		return moduleShape{}, err
	}
	if len(data) > maxScanRecord {
		return moduleShape{}, errors.New("scan record too long")
	}
	var rec scanRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return moduleShape{}, err
	}
	return moduleShape{tableBytes: rec.TableBytes, unsnapshottable: rec.Unsnapshottable, mutableGlobals: rec.MutableGlobals}, nil
}

func writeScanRecord(file string, shape moduleShape) error {
	data, err := json.Marshal(scanRecord{TableBytes: shape.tableBytes, Unsnapshottable: shape.unsnapshottable, MutableGlobals: shape.mutableGlobals})
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(file, 0o600, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
