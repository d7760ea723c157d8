// echo: returns its input envelope as {"echo": ENVELOPE} through the host
// ABI. Built by `skillrun build` (clang --target=wasm32-wasi, skillrun.h on
// the include path).
#include <stdio.h>
#include <string.h>

#include "skillrun.h"

static char buf[SKILLRUN_MAX_PAYLOAD];
static char out[SKILLRUN_MAX_PAYLOAD + 16];

// take copies the waiting response of length n into buf, NUL-terminated.
static int take(int32_t n) {
	if (n < 0 || n >= (int32_t)sizeof buf) return -1;
	if (skillrun_take(buf, sizeof buf - 1) != n) return -1;
	buf[n] = 0;
	return n;
}

int main(void) {
	if (skillrun_abi_version() != SKILLRUN_ABI_VERSION) {
		fprintf(stderr, "echo: built for ABI %d, host speaks %d\n", SKILLRUN_ABI_VERSION, skillrun_abi_version());
		return 3;
	}
	if (take(skillrun_input(NULL, 0)) < 0) {
		fprintf(stderr, "echo: cannot read input\n");
		return 1;
	}
	int n = snprintf(out, sizeof out, "{\"echo\":%s}", buf);
	const char *msg = "{\"level\":\"info\",\"msg\":\"echo: returning the input\"}";
	take(skillrun_log(msg, strlen(msg)));
	if (take(skillrun_output(out, (uint32_t)n)) < 0) {
		fprintf(stderr, "echo: output refused: %s\n", buf);
		return 1;
	}
	return 0;
}
