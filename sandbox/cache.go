package sandbox

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
)

// The disk cache: faults and bounds.
//
// wazero's file cache (one file per compiled module, under a directory per
// wazero version) trusts its directory: it fails a compile when it cannot
// write an entry (a read-only or full disk) or read one back (a truncated
// or corrupted file), and it keeps every entry forever. The Runtime
// therefore:
//
//   - checks at New that the directory can be written, and otherwise runs
//     with compiled modules in memory only, with a warning;
//   - checks every entry's structure at New and deletes those wazero would
//     choke on (a function count or code length larger than the file,
//     which wazero would allocate before reading), and leftovers of a
//     killed write (*.tmp);
//   - after a compile fails on the cache, checks every entry in full (its
//     code's CRC too), deletes the bad ones and compiles once more;
//   - deletes the oldest entries (by modification time) when the cache
//     passes Options.MaxCacheBytes, at New and after each compile.
//
// A deleted entry only costs a compile. An entry whose code is damaged is
// never run: wazero checks the code's CRC on every load.

// wazeroSetupMu serializes the wazero calls that read wazero's version
// (wazero.NewCompilationCacheWithDir, and NewRuntimeWithConfig with the
// compiler): the first sets a global without a lock, so two Runtimes made
// at once raced (the race detector saw it, in parallel `skillrun run`s of
// one test process).
var wazeroSetupMu sync.Mutex

// openCache opens wazero's compilation cache in dir, checks that it can be
// written and clears out bad entries.
func (r *Runtime) openCache(dir string) (wazero.CompilationCache, error) {
	wazeroSetupMu.Lock()
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	wazeroSetupMu.Unlock()
	if err != nil {
		return nil, err
	}
	dirs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	if len(dirs) == 0 {
		return nil, errors.New("wazero created no cache directory")
	}
	for _, d := range dirs {
		f, err := os.CreateTemp(d, "skillrun-probe-*.tmp")
		if err != nil {
			return nil, err
		}
		f.Close()
		_ = os.Remove(f.Name()) // a probe left behind is harmless
	}
	r.cacheRoot = dir
	// Every entry new since the last check is checked before wazero can
	// load it; the whole cache is checked and pruned at most once per
	// maintainEvery, so that a process's start does not grow with the
	// cache (hundreds of entries cost a one-shot run 20 ms).
	stamp := filepath.Join(dir, maintainedStamp)
	var since time.Time
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < maintainEvery {
		since = fi.ModTime().Add(-time.Minute) // a write in flight at the last check
	}
	r.checkCacheSince(since, false)
	if since.IsZero() {
		r.pruneCache()
		if f, err := os.Create(stamp); err == nil {
			_ = f.Close()
		}
	}
	return cache, nil
}

// maintainedStamp is the file of the cache's folder whose time is the
// last whole check and prune (openCache).
const maintainedStamp = ".maintained"

// maintainEvery is how often opening the cache checks every entry and
// prunes the cache; between, it checks the entries written since.
const maintainEvery = time.Hour

// cacheEntries lists the cache's files, oldest first.
func (r *Runtime) cacheEntries() []cacheEntry {
	var entries []cacheEntry
	dirs, _ := filepath.Glob(filepath.Join(r.cacheRoot, "wazero-*"))
	for _, d := range dirs {
		entries = append(entries, filesIn(d)...)
	}
	slices.SortFunc(entries, func(a, b cacheEntry) int { return a.mtime.Compare(b.mtime) })
	return entries
}

// keptFolders are the folders of the cache that hold skillrun's own
// files beside wazero's: interpreter snapshots (the scripts layer writes
// them, see Snapshot.WriteTo) and scan verdicts (scanmemo.go). They
// count toward Options.MaxCacheBytes and are pruned with wazero's
// entries, oldest first; a file pruned is made again when needed.
var keptFolders = []string{"snapshots", "scans"}

// keptEntries lists the files of keptFolders.
func (r *Runtime) keptEntries() []cacheEntry {
	var entries []cacheEntry
	for _, name := range keptFolders {
		entries = append(entries, filesIn(filepath.Join(r.cacheRoot, name))...)
	}
	return entries
}

// filesIn lists the regular files of folder d as cache entries.
func filesIn(d string) []cacheEntry {
	des, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	var entries []cacheEntry
	for _, de := range des {
		fi, err := de.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		entries = append(entries, cacheEntry{path: filepath.Join(d, de.Name()), size: fi.Size(), mtime: fi.ModTime()})
	}
	return entries
}

type cacheEntry struct {
	path  string
	size  int64
	mtime time.Time
}

// staleTemp is how old a wazero temporary file must be to count as left
// behind by a killed process rather than being written now.
const staleTemp = 10 * time.Minute

// checkCache deletes entries that are not well-formed (with full, their
// code's checksum too) and stale temporary files. It reports whether it
// deleted any.
func (r *Runtime) checkCache(full bool) bool { return r.checkCacheSince(time.Time{}, full) }

// checkCacheSince is checkCache for the entries modified at or after
// since (all for the zero time).
func (r *Runtime) checkCacheSince(since time.Time, full bool) bool {
	if r.cacheRoot == "" {
		return false
	}
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	deleted := false
	for _, e := range r.cacheEntries() {
		if e.mtime.Before(since) {
			continue
		}
		var err error
		if strings.HasSuffix(e.path, ".tmp") {
			if time.Since(e.mtime) < staleTemp {
				continue
			}
			err = errors.New("left behind by an interrupted write")
		} else {
			err = checkCacheEntry(e.path, e.size, full)
		}
		if err == nil {
			continue
		}
		if rmErr := os.Remove(e.path); rmErr == nil {
			deleted = true
			r.log.Warn("deleted a bad compilation cache entry; its module will be compiled again", "file", e.path, "err", err)
		}
	}
	return deleted
}

// checkCacheEntry checks a file of wazero's cache (wazero's compiler
// format, internal/engine/wazevo/engine_cache.go): "WAZEVO", the version,
// the function count, an 8-byte offset per function, the code's length,
// the code and its CRC-32C. A file that does not start with "WAZEVO" is
// another engine's and left alone.
func checkCacheEntry(path string, size int64, full bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 7)
	if _, err := io.ReadFull(f, head); err != nil {
		return errors.New("truncated header")
	}
	if string(head[:6]) != "WAZEVO" {
		return nil
	}
	pos := int64(7 + int(head[6]))
	var n [8]byte
	if _, err := f.ReadAt(n[:4], pos); err != nil {
		return errors.New("truncated header")
	}
	funcs := int64(binary.LittleEndian.Uint32(n[:4]))
	pos += 4
	if pos+8*funcs+8 > size {
		return errors.New("the function count is larger than the file")
	}
	offsets := make([]byte, 8*funcs)
	if _, err := f.ReadAt(offsets, pos); err != nil {
		return err
	}
	pos += 8 * funcs
	if _, err := f.ReadAt(n[:], pos); err != nil {
		return err
	}
	codeLen := binary.LittleEndian.Uint64(n[:])
	pos += 8
	if codeLen > uint64(size-pos) || pos+int64(codeLen)+4+1 > size {
		return errors.New("the code is longer than the file")
	}
	for i := range funcs {
		if codeLen > 0 && binary.LittleEndian.Uint64(offsets[8*i:]) >= codeLen {
			return errors.New("a function offset is outside the code")
		}
	}
	if !full || codeLen == 0 {
		return nil
	}
	code := make([]byte, codeLen)
	if _, err := f.ReadAt(code, pos); err != nil {
		return err
	}
	if _, err := f.ReadAt(n[:4], pos+int64(codeLen)); err != nil {
		return err
	}
	if crc32.Checksum(code, crc32.MakeTable(crc32.Castagnoli)) != binary.LittleEndian.Uint32(n[:4]) {
		return errors.New("the code's checksum does not match")
	}
	return nil
}

// recoverCache decides whether a failed compile is worth one more try: it
// is if the failure was the disk cache's (a bad entry, now deleted, or a
// failed write, after which the module is in wazero's memory already).
func (r *Runtime) recoverCache(err error) bool {
	if r.cacheRoot == "" {
		return false
	}
	if strings.Contains(err.Error(), "compilationcache") {
		r.checkCache(true)
		return true
	}
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		r.log.Warn("writing to the compilation cache failed; compiling without it", "dir", r.cacheRoot, "err", err)
		r.pruneCache()
		return true
	}
	return false
}

// cacheAdded is called after each compile: the cache may have grown.
func (r *Runtime) cacheAdded() { r.pruneCache() }

// pruneCache deletes the oldest entries until the cache fits in
// maxCacheBytes.
func (r *Runtime) pruneCache() {
	if r.cacheRoot == "" {
		return
	}
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	entries := append(r.cacheEntries(), r.keptEntries()...)
	slices.SortFunc(entries, func(a, b cacheEntry) int { return a.mtime.Compare(b.mtime) })
	var total int64
	for _, e := range entries {
		total += e.size
	}
	for _, e := range entries {
		if total <= r.maxCacheBytes {
			return
		}
		if strings.HasSuffix(e.path, ".tmp") && time.Since(e.mtime) < staleTemp {
			continue // being written
		}
		if os.Remove(e.path) == nil {
			total -= e.size
			r.log.Debug("pruned compilation cache entry", "file", e.path, "bytes", e.size)
		}
	}
}
