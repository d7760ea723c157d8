package native

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/skillrun/skillrun/internal/landlock"
	"github.com/skillrun/skillrun/internal/seccomp"
)

// minABI is the oldest Landlock ABI the tier accepts: 4 (Linux 6.7),
// the one the build sandbox needs too, with truncation (3) and TCP rules
// (4) handled.
const minABI = 4

// helperArg and helperEnv start this binary as the confining helper
// ([Main]); the spec travels in the environment, which the helper
// replaces with the program's before it executes it.
const (
	helperArg = "__skillrun-native"
	helperEnv = "SKILLRUN_NATIVE_SPEC"
)

// helperSpec is what the helper confines itself to before it executes
// the program.
type helperSpec struct {
	Path     string   `json:"path"`
	Args     []string `json:"args"`
	Env      []string `json:"env"`
	ABI      int      `json:"abi"`
	RO       []string `json:"ro"`
	RW       []string `json:"rw"`
	Memory   int64    `json:"memory"`
	CPU      int64    `json:"cpu"`
	Files    int      `json:"files"`
	FileSize int64    `json:"file_size"`
	Procs    int      `json:"procs"`
	Proxy    string   `json:"proxy,omitempty"`
	Tmp      string   `json:"tmp"`
	TmpSize  int64    `json:"tmp_size"`
}

// landlockVersion is landlock.Version; tests replace it to act out a
// kernel without Landlock.
var landlockVersion = landlock.Version

// Check says whether host processes can be confined here, or why not (an
// error matching ErrUnconfined naming what is missing).
func Check() error {
	_, err := abi()
	return err
}

func abi() (int, error) {
	v, err := landlockVersion()
	if err != nil {
		return 0, fmt.Errorf("%w: Landlock is not available (%w); it needs Linux 6.7 or later with Landlock enabled (lsm=landlock)", ErrUnconfined, err)
	}
	if v < minABI {
		return 0, fmt.Errorf("%w: the kernel's Landlock ABI is %d; the native tier needs ABI %d (Linux 6.7 or later)", ErrUnconfined, v, minABI)
	}
	return v, nil
}

// Run runs the program of spec as a host process, confined:
//
//   - in new user, PID, network, IPC and UTS namespaces: no network at
//     all (not even the host's loopback), no process of the host to see
//     or signal, and when the program exits every process it left behind
//     is killed with its PID namespace;
//   - under Landlock: the file system beneath ReadOnly (read and execute),
//     ReadWrite and a private temporary folder (HOME and TMPDIR), and
//     /dev/null, nothing else; no TCP bind or connect;
//   - with no new privileges (no set-user-ID program gains any), resource
//     limits on memory, CPU time, open files, file size and processes (a
//     pids cgroup where skillrun may make one), its wall time bounded and
//     its output capped.
//
// The program runs from a helper: this binary re-executed ([Main] must
// be called first thing in main, and in TestMain of tests that run), which
// confines its own thread and executes the program in its place. An error
// is the host's (the helper could not start or confine, the program does
// not exist); how the program ended is in the Result.
func Run(ctx context.Context, spec *Spec) (*Result, error) {
	v, err := abi()
	if err != nil {
		return nil, err
	}
	s := *spec
	for _, p := range append(append([]string{s.Path}, s.ReadOnly...), s.ReadWrite...) {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("native: %q is not an absolute path", p)
		}
	}
	if s.Dir != "" && !filepath.IsAbs(s.Dir) {
		return nil, fmt.Errorf("native: the working folder %q is not an absolute path", s.Dir)
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.CPU <= 0 {
		s.CPU = s.Timeout
	}
	if s.Output <= 0 {
		s.Output = DefaultOutput
	}
	if s.Memory <= 0 {
		s.Memory = DefaultMemory
	}
	if s.Files <= 0 {
		s.Files = DefaultFiles
	}
	if s.FileSize <= 0 {
		s.FileSize = DefaultFileSize
	}
	if s.Procs <= 0 {
		s.Procs = DefaultProcs
	}
	tmp, err := os.MkdirTemp("", "skillrun-native-")
	if err != nil {
		return nil, fmt.Errorf("native: a private temporary folder: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	env := append(withoutKeys(s.Env, "HOME", "TMPDIR", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"),
		"HOME="+tmp, "TMPDIR="+tmp)
	if s.Proxy != "" {
		if !filepath.IsAbs(s.Proxy) {
			return nil, fmt.Errorf("native: the proxy socket %q is not an absolute path", s.Proxy)
		}
		url := fmt.Sprintf("http://127.0.0.1:%d", ProxyPort)
		env = append(env, "HTTP_PROXY="+url, "HTTPS_PROXY="+url, "http_proxy="+url, "https_proxy="+url)
	}
	hs := helperSpec{Path: s.Path, Args: s.Args, Env: env, ABI: v,
		RO: s.ReadOnly, RW: append(append([]string{}, s.ReadWrite...), tmp),
		Memory: s.Memory, CPU: int64((s.CPU + time.Second - 1) / time.Second), Files: s.Files, FileSize: s.FileSize, Procs: s.Procs,
		Proxy: s.Proxy, Tmp: tmp, TmpSize: s.Memory}
	raw, err := json.Marshal(hs)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("native: finding skillrun's own binary to confine the program: %w", err)
	}

	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	res := &Result{}
	var once sync.Once
	stop := make(chan struct{})
	over := func() { once.Do(func() { res.OutputLimit = true; close(stop) }) }
	var mu sync.Mutex
	left := s.Output
	cmd := exec.Command(self, helperArg)
	cmd.Env = []string{helperEnv + "=" + string(raw)}
	cmd.Dir = s.Dir
	cmd.Stdin = s.Stdin
	cmd.Stdout = &boundedWriter{mu: &mu, w: s.Stdout, left: &left, over: over}
	cmd.Stderr = &boundedWriter{mu: &mu, w: s.Stderr, left: &left, over: over}
	goRead, goWrite, err := os.Pipe() // the go-ahead, once the helper is in its cgroup
	if err != nil {
		return nil, err
	}
	defer goWrite.Close()
	errRead, errWrite, err := os.Pipe() // the helper's failure, if any; closed by its exec
	if err != nil {
		goRead.Close()
		return nil, err
	}
	defer errRead.Close()
	readyRead, readyWrite, err := os.Pipe() // the helper says it is one
	if err != nil {
		goRead.Close()
		errWrite.Close()
		return nil, err
	}
	defer readyRead.Close()
	cmd.ExtraFiles = []*os.File{goRead, errWrite, readyWrite}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS |
			unix.CLONE_NEWNS, // for the private temporary folder's tmpfs
		// The same user inside as outside: the program's files are the
		// user's, and it gains no privilege on the host.
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		Setsid:      true,
		Pdeathsig:   syscall.SIGKILL, // skillrun gone, the run goes too
	}
	cmd.WaitDelay = 2 * time.Second
	// The pids cgroup is made while the helper starts (a cgroup v1
	// mkdir costs as much as the helper's start); the helper waits for
	// the go-ahead until it is in it.
	type made struct {
		cg  *pidsCgroup
		err error
	}
	cgMade := make(chan made, 1)
	go func() {
		cg, err := newPidsCgroup(s.Procs)
		cgMade <- made{cg, err}
	}()
	start := time.Now()
	err = cmd.Start()
	goRead.Close()
	errWrite.Close()
	readyWrite.Close()
	if err != nil {
		if m := <-cgMade; m.cg != nil {
			m.cg.remove()
		}
		return nil, fmt.Errorf("%w: starting the confined process in new user, PID and network namespaces: %w "+
			"(are unprivileged user namespaces switched off? see sysctl user.max_user_namespaces)", ErrUnconfined, err)
	}
	// A binary that does not call Main runs its own main instead of the
	// helper: it never says it is ready, and is stopped before the
	// go-ahead.
	m := <-cgMade
	cg, cgErr := m.cg, m.err
	if cg != nil {
		defer cg.remove()
	}
	if err := awaitHelper(ctx, readyRead); err != nil {
		kill(cmd, cg)
		_ = cmd.Wait()
		return nil, fmt.Errorf("%w: %s did not start as the native tier's helper (%w): a program that runs native scripts must call native.Main() first thing in main, and a test binary in TestMain",
			ErrUnconfined, self, err)
	}
	res.ProcLimit = "RLIMIT_NPROC"
	if cgErr == nil {
		if err := cg.add(cmd.Process.Pid); err == nil {
			res.ProcLimit = "pids cgroup"
		}
	}
	_, _ = goWrite.Write([]byte{1})
	goWrite.Close()

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		res.TimedOut = ctx.Err() == context.DeadlineExceeded
		kill(cmd, cg)
		waitErr = <-done
	case <-stop:
		kill(cmd, cg)
		waitErr = <-done
	}
	res.Duration = time.Since(start)
	if msg, _ := io.ReadAll(io.LimitReader(errRead, 4<<10)); len(bytes.TrimSpace(msg)) > 0 {
		return nil, fmt.Errorf("native: %s", bytes.TrimSpace(msg))
	}
	if err := spec.contextErr(ctx); err != nil && !res.TimedOut {
		return nil, err
	}
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		} else {
			res.ExitCode = ee.ExitCode()
		}
	case errors.Is(waitErr, exec.ErrWaitDelay):
	default:
		return nil, fmt.Errorf("native: %w", waitErr)
	}
	return res, nil
}

// helperWait bounds the wait for the helper to say it is one.
const helperWait = 10 * time.Second

// awaitHelper waits for the helper's ready byte on r: an end of file
// means the process exited (or closed its descriptors) without saying it.
func awaitHelper(ctx context.Context, r *os.File) error {
	deadline := time.Now().Add(helperWait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = r.SetReadDeadline(deadline)
	var b [1]byte
	n, err := r.Read(b[:])
	if n == 1 && b[0] == helperReady {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = errors.New("it exited without saying it was the helper")
	}
	return err
}

// helperReady is the byte the helper writes when it starts.
const helperReady = 'R'

// contextErr is the caller's cancellation (not the run's own timeout).
func (*Spec) contextErr(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), context.Canceled) {
		return context.Cause(ctx)
	}
	return nil
}

// kill ends the run: the program is its PID namespace's first process, so
// killing it kills every process of the namespace; the cgroup's are
// killed too in case one got out of it.
func kill(cmd *exec.Cmd, cg *pidsCgroup) {
	_ = cmd.Process.Kill()
	if cg != nil {
		cg.killAll()
	}
}

// tmpfsInodes bounds the files of the private temporary folder.
const tmpfsInodes = 65536

// privateTmpfs mounts a tmpfs of size bytes on the private temporary
// folder dir, in the run's own mount namespace: HOME and TMPDIR hold at
// most that much in all (RLIMIT_FSIZE bounds only each file), as the
// sandbox's /tmp does, and vanish with the run. Mounts are made private
// first, so nothing propagates to the host's namespace. Landlock, applied
// after, forbids the program any further mount or unmount.
func privateTmpfs(dir string, size int64) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0700", size, tmpfsInodes)
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mounting a tmpfs on %s: %w", dir, err)
	}
	return nil
}

func withoutKeys(env []string, keys ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, key := range keys {
			drop = drop || k == key
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// Main confines and executes a program when this process was started for
// that by [Run]; otherwise it returns at once. A binary that runs native
// scripts calls it first thing in main, and so does a test binary, in
// TestMain. When it does not return, the program runs in its place, or
// the process exits with status 125 after telling Run why it could not
// confine it.
func Main() {
	if len(os.Args) >= 2 && os.Args[1] == relayArg {
		relayMain()
		return
	}
	raw := os.Getenv(helperEnv)
	if raw == "" || len(os.Args) < 2 || os.Args[1] != helperArg {
		return
	}
	errPipe := os.NewFile(4, "native-errors")
	if err := helper(raw); err != nil {
		if errPipe != nil {
			_, _ = fmt.Fprintf(errPipe, "%v", err)
		}
		os.Exit(125)
	}
}

// helper waits for the go-ahead (the parent has put it in its cgroup),
// sets the resource limits, forbids new privileges, confines its thread
// with Landlock and executes the program from that thread. A Landlock
// domain binds what the thread executes and every descendant.
func helper(raw string) error {
	var s helperSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return fmt.Errorf("reading the confinement spec: %w", err)
	}
	ready := os.NewFile(5, "native-ready")
	if ready == nil {
		return errors.New("no ready pipe")
	}
	_, err := ready.Write([]byte{helperReady})
	_ = ready.Close()
	if err != nil {
		return fmt.Errorf("saying it is ready: %w", err)
	}
	goAhead := os.NewFile(3, "native-go")
	if goAhead == nil {
		return errors.New("no go-ahead pipe")
	}
	var b [1]byte
	if _, err := goAhead.Read(b[:]); err != nil {
		return fmt.Errorf("waiting for the go-ahead: %w", err)
	}
	_ = goAhead.Close()
	syscall.CloseOnExec(4) // the error pipe closes with the exec: no error
	if err := privateTmpfs(s.Tmp, s.TmpSize); err != nil {
		return fmt.Errorf("the private temporary folder: %w", err)
	}
	var ports []uint16
	if s.Proxy != "" {
		if err := startRelay(s.Proxy); err != nil {
			return fmt.Errorf("the network relay: %w", err)
		}
		ports = append(ports, ProxyPort)
	}
	runtime.LockOSThread() // never unlocked: this thread executes the program or exits
	if err := landlock.Restrict(s.ABI, s.RO, s.RW, ports...); err != nil {
		return fmt.Errorf("confining with Landlock: %w", err)
	}
	// Landlock governs connect(2) to pathname UNIX sockets only from
	// ABI 9, and the program keeps the user's uid: without this it could
	// reach the user's resident, ssh-agent or session bus by path. The
	// relay, started above, is not bound by it.
	if err := seccomp.DenyUnixSockets(); err != nil {
		return fmt.Errorf("confining: %w", err)
	}
	return limitAndExec(&s)
}

// limitAndExec sets the resource limits and executes the program, with
// nothing the Go runtime could need memory for in between. RLIMIT_AS is
// below what this process has mapped already (its first heap arena alone
// reserves 64 MiB), so once it is set any new mapping fails: a span, a
// thread stack, a timer's goroutine would end the helper with "fatal
// error: runtime: cannot allocate memory" now and then. So everything is
// allocated first, the limits are set with raw prlimit calls, and execve
// is a raw call too (syscall.Exec allocates its C strings after taking
// its lock). The relay was started before the limits and runs in the
// run's cgroup, which bounds its memory and processes.
func limitAndExec(s *helperSpec) error {
	path, err := unix.BytePtrFromString(s.Path)
	if err != nil {
		return fmt.Errorf("executing %s: %w", s.Path, err)
	}
	argv, err := cStrings(s.Args)
	if err != nil {
		return fmt.Errorf("executing %s: arguments: %w", s.Path, err)
	}
	envv, err := cStrings(s.Env)
	if err != nil {
		return fmt.Errorf("executing %s: environment: %w", s.Path, err)
	}
	limits := [...]struct {
		res int
		lim unix.Rlimit
	}{
		{unix.RLIMIT_AS, unix.Rlimit{Cur: uint64(s.Memory), Max: uint64(s.Memory)}},
		{unix.RLIMIT_CPU, unix.Rlimit{Cur: uint64(s.CPU), Max: uint64(s.CPU)}},
		{unix.RLIMIT_NOFILE, unix.Rlimit{Cur: uint64(s.Files), Max: uint64(s.Files)}},
		{unix.RLIMIT_FSIZE, unix.Rlimit{Cur: uint64(s.FileSize), Max: uint64(s.FileSize)}},
		{unix.RLIMIT_NPROC, unix.Rlimit{Cur: uint64(s.Procs), Max: uint64(s.Procs)}},
		{unix.RLIMIT_CORE, unix.Rlimit{}},
	}
	failed, execFailed := "setting a resource limit: ", "executing "+s.Path+": "
	var errno syscall.Errno
	for i := range limits {
		_, _, errno = unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, uintptr(limits[i].res),
			uintptr(unsafe.Pointer(&limits[i].lim)), 0, 0, 0)
		if errno != 0 {
			break
		}
	}
	if errno == 0 {
		failed = execFailed
		_, _, errno = unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(path)),
			uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	}
	// Still here: the limits may forbid any allocation, so the reason is
	// written as it is, and the process ends.
	writeRaw(4, failed)
	writeRaw(4, errno.Error())
	unix.Exit(125)
	return nil
}

// cStrings is ss as execve wants it: C strings, then a nil.
func cStrings(ss []string) ([]*byte, error) {
	out := make([]*byte, len(ss)+1)
	for i, v := range ss {
		p, err := unix.BytePtrFromString(v)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// writeRaw writes s to fd without allocating.
func writeRaw(fd int, s string) {
	if s != "" {
		_, _ = unix.Write(fd, unsafe.Slice(unsafe.StringData(s), len(s)))
	}
}
