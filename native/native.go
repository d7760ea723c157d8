package native

import (
	"errors"
	"io"
	"sync"
	"time"
)

// ErrUnconfined is matched (errors.Is) by the error [Check] and [Run]
// return where a host process cannot be confined: another system than
// Linux, a kernel without Landlock ABI 4 (Linux 6.7), or user namespaces
// switched off. The native tier never runs a script unconfined.
var ErrUnconfined = errors.New("the native tier cannot confine a host process here")

// Defaults of a [Spec]'s bounds.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultOutput   = 1 << 20
	DefaultMemory   = 2 << 30
	DefaultFiles    = 256
	DefaultProcs    = 64
	DefaultFileSize = 256 << 20
)

// A Spec is one confined run of a host program.
type Spec struct {
	// Path is the program, an absolute path; Args its argv (Args[0] its
	// name).
	Path string
	Args []string
	// Env is the whole environment the program sees: the caller scrubs it.
	// HOME and TMPDIR are set to the run's private temporary folder.
	Env []string
	// Dir is the working directory; it must be inside ReadOnly or
	// ReadWrite.
	Dir string
	// ReadOnly are files and folders the program may read and execute
	// (beneath them); ReadWrite folders it may also change. Nothing else
	// of the file system is reachable but the run's private temporary
	// folder and /dev/null. See [SystemPaths] for what an interpreter
	// needs.
	ReadOnly, ReadWrite []string
	// Stdin, Stdout and Stderr are the program's; nil is empty input and
	// discarded output.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Timeout bounds the run in wall time (0: DefaultTimeout); CPU bounds
	// its CPU seconds (0: Timeout).
	Timeout, CPU time.Duration
	// Output bounds the bytes of stdout and stderr together (0:
	// DefaultOutput); past it the run is stopped.
	Output int64
	// Memory bounds each process's address space (0: DefaultMemory).
	Memory int64
	// Files bounds open files per process (0: DefaultFiles); FileSize the
	// size of a file it writes (0: DefaultFileSize).
	Files    int
	FileSize int64
	// Procs bounds the processes the run may have at once (0:
	// DefaultProcs). See [Result.ProcLimit] for how it is enforced.
	Procs int
	// Proxy, when set, is the path of a UNIX socket where an HTTP proxy
	// listens (host.NetProxy, which enforces the net grant). The run's
	// network namespace then gets a relay to it on 127.0.0.1:ProxyPort,
	// the program's HTTP_PROXY and HTTPS_PROXY name it, and that port is
	// the only one the program may connect to. Without it the program has
	// no network at all.
	Proxy string
}

// ProxyPort is where the relay to [Spec].Proxy listens inside the run's
// network namespace.
const ProxyPort = 3128

// A Result is how a run ended.
type Result struct {
	// ExitCode is the program's exit status, 128+N for signal N.
	ExitCode int
	// TimedOut and OutputLimit say the run was stopped at that bound.
	TimedOut, OutputLimit bool
	// ProcLimit says how the process bound was enforced: "pids cgroup",
	// or "RLIMIT_NPROC" (per user: not for root, whom the kernel exempts).
	ProcLimit string
	// Duration is the run's wall time.
	Duration time.Duration
}

// SystemPaths are what a host interpreter (python3, node, bash and the
// programs they start) reads of the system, read-only: programs and
// libraries (/usr, /bin, /lib*), the dynamic linker's cache, time zones,
// TLS roots and OpenSSL's configuration (node reads it at start; not
// /etc/ssl/private), the random devices, the CPU and memory facts numeric
// libraries size their threads by, and the configuration plotting reads
// (below). /etc beyond these (passwd, shadow, hosts), /home, /root, /run,
// /var and /tmp are not in it.
//
// Plotting: Debian's matplotlib (python3-matplotlib) reads its rc file
// from /etc/matplotlibrc at import (Debian's patch puts it there in place
// of mpl-data/matplotlibrc, the last place matplotlib looks), so without
// it `import matplotlib` fails with EACCES; its data
// (/usr/share/matplotlib/mpl-data) and fonts (/usr/share/fonts) are
// under /usr. To list the system's fonts it runs fc-list, which reads
// fontconfig's configuration, /etc/fonts (fonts.conf and conf.d, whose
// entries link into /usr/share/fontconfig); without it fc-list still
// lists /usr/share/fonts but prints a "Fontconfig error" on the
// script's stderr. Neither holds anything secret. fontconfig's cache
// (/var/cache/fontconfig) is left out: without it fontconfig reads the
// font files themselves (same list). matplotlib's own font cache goes
// under HOME/.cache/matplotlib, in the run's private HOME.
var SystemPaths = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
	"/etc/localtime", "/usr/share/zoneinfo", "/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates",
	"/etc/matplotlibrc", "/etc/fonts",
	"/dev/urandom", "/dev/random", "/dev/zero",
	"/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu",
}

// boundedWriter passes on what fits in the budget left (shared by
// stdout and stderr) and calls over (idempotent) once a write goes past it.
type boundedWriter struct {
	mu   *sync.Mutex
	w    io.Writer
	left *int64
	over func()
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if keep := min(int64(len(p)), max(*b.left, 0)); keep > 0 && b.w != nil {
		_, _ = b.w.Write(p[:keep])
	}
	*b.left -= int64(len(p))
	if *b.left < 0 {
		b.over()
	}
	return len(p), nil
}
