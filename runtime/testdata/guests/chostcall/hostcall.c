// The C test guest of runtime/hostmod_test.go: it echoes its input
// envelope to the run's output, then makes a tool_call the test does not
// grant and prints that response on stdout.
//
// clang --target=wasm32-wasi --sysroot=/usr -O2 -I ../../../../guest/include -o hostcall.wasm hostcall.c
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skillrun.h"

static char buf[SKILLRUN_MAX_PAYLOAD];

// take copies the waiting response of length n into buf, NUL-terminated.
static int take(int32_t n) {
	if (n < 0 || n >= (int32_t)sizeof buf) return -1;
	if (skillrun_take(buf, sizeof buf - 1) != n) return -1;
	buf[n] = 0;
	return n;
}

int main(void) {
	if (skillrun_abi_version() != SKILLRUN_ABI_VERSION) return 3;
	int n = take(skillrun_input(NULL, 0));
	if (n < 0) return 1;
	char in[4096];
	snprintf(in, sizeof in, "%s", buf);
	if (take(skillrun_output(in, strlen(in))) < 0) return 1;

	const char *req = "{\"name\":\"rm_rf\",\"input\":{}}";
	if (take(skillrun_tool_call(req, strlen(req))) < 0) return 1;
	printf("%s\n", buf);
	return 0;
}
