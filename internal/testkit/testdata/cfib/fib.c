/* fib N: prints the Nth Fibonacci number, computed by naive recursion.
 * The C benchmark guest: built for wasm32-wasi with clang + wasi-libc and
 * natively with cc, from this same file (runtime/bench_c_test.go). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long fib(int n) { return n < 2 ? (unsigned long)n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 20;
	if (n < 0 || n > 90) {
		fprintf(stderr, "fib: N must be 0..90\n");
		return 2;
	}
	printf("%lu\n", fib(n));
	return 0;
}
