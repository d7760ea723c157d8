// A WASI reactor for sandbox's snapshot tests: snap_init caches state
// (a file of the init's mount, a counter, a heap block), snap_run prints
// what it sees. Built with -mexec-model=reactor and, unless a test wants
// a module that cannot be snapshotted, -Wl,--export=__stack_pointer.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

extern void __wasilibc_deinitialize_environ(void);
extern void __wasilibc_initialize_environ(void);
extern int __wasilibc_register_preopened_fd(int fd, const char *prefix);

static int counter;
static char *seed;     // read from /data/seed.txt by snap_init
char *snap_heap;       // 1 MiB the snapshot keeps (not static, so it is kept)
static int init_preopens;

static int preopens_from(int fd) {
    int n = 0;
    for (;; fd++, n++) {
        __wasi_prestat_t ps;
        if (__wasi_fd_prestat_get(fd, &ps) != __WASI_ERRNO_SUCCESS) return n;
    }
}

__attribute__((export_name("snap_init"))) int snap_init(void) {
    if (getenv("FAIL_INIT")) return 3;
    FILE *f = fopen("/data/seed.txt", "r");
    if (!f) { perror("seed"); return 1; }
    seed = calloc(1, 256);
    fgets(seed, 256, f);
    fclose(f);
    // Heap the snapshot keeps: 1 MiB of a pattern.
    char *big = snap_heap = malloc(1 << 20);
    memset(big, 'x', 1 << 20);
    counter = 41;
    init_preopens = preopens_from(3);
    printf("init done\n");
    fflush(stdout);
    return 0;
}

__attribute__((export_name("snap_run"))) int snap_run(void) {
    __wasilibc_deinitialize_environ();
    __wasilibc_initialize_environ();
    for (int fd = 3 + init_preopens;; fd++) {
        __wasi_prestat_t ps;
        if (__wasi_fd_prestat_get(fd, &ps) != __WASI_ERRNO_SUCCESS) break;
        char *name = calloc(1, ps.u.dir.pr_name_len + 1);
        __wasi_fd_prestat_dir_name(fd, (uint8_t *)name, ps.u.dir.pr_name_len);
        __wasilibc_register_preopened_fd(fd, name);
    }
    __wasi_size_t argc, size;
    __wasi_args_sizes_get(&argc, &size);
    char **argv = calloc(argc + 1, sizeof(char *));
    char *buf = malloc(size);
    __wasi_args_get((uint8_t **)argv, (uint8_t *)buf);

    counter++;
    printf("counter=%d seed=%s", counter, seed);
    printf("args=");
    for (size_t i = 1; i < argc; i++) printf("%s%s", i > 1 ? "," : "", argv[i]);
    const char *run = getenv("RUN");
    printf("\nRUN=%s\n", run ? run : "(unset)");
    if (argc > 1 && strcmp(argv[1], "spin") == 0) {
        for (volatile unsigned long i = 0;; i++) {}
    }
    if (argc > 1 && strcmp(argv[1], "exit7") == 0) exit(7);
    if (argc > 2 && strcmp(argv[1], "read") == 0) {
        FILE *f = fopen(argv[2], "r");
        if (!f) { perror(argv[2]); return 2; }
        char line[256] = {0};
        fgets(line, sizeof line, f);
        fclose(f);
        printf("read=%s", line);
    }
    if (argc > 1 && strcmp(argv[1], "grow") == 0) {
        // Leaves heap behind: the next run must not see it.
        char *p = malloc(8 << 20);
        memset(p, 'y', 8 << 20);
        counter += 100;
    }
    fflush(stdout);
    return counter == 42 ? 0 : 5;
}

// _start runs the module fresh, as a command: what a snapshot's runs
// must not be told apart from. (sandbox compiles only modules that export
// _start.)
extern void __wasm_call_ctors(void);

__attribute__((export_name("_start"))) void _start(void) {
    __wasm_call_ctors();
    int r = snap_init();
    if (r == 0) r = snap_run();
    if (r != 0) __wasi_proc_exit(r);
}
