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

	// Every other function once, each response on a line of its own,
	// prefixed by the function's name.
	struct {
		const char *fn;
		int32_t (*call)(const void *, uint32_t);
		const char *req;
	} calls[] = {
		{"log", skillrun_log, "{\"level\":\"info\",\"msg\":\"from C\"}"},
		{"tool_call", skillrun_tool_call, "{\"name\":\"echo\",\"input\":{\"x\":1}}"},
		{"skills_search", skillrun_skills_search, "{\"query\":\"pdf\"}"},
		{"skill_activate", skillrun_skill_activate, "{\"name\":\"pdf\"}"},
		{"skill_read", skillrun_skill_read, "{\"path\":\"../etc/passwd\"}"},
		{"skill_run", skillrun_skill_run, "{\"skill\":\"other\",\"script\":\"x\",\"input\":{}}"},
		{"mcp_call", skillrun_mcp_call, "{\"server\":\"gh\",\"tool\":\"issues\",\"args\":{}}"},
		{"mcp_call_denied", skillrun_mcp_call, "{\"server\":\"slack\",\"tool\":\"post\",\"args\":{}}"},
		{"http_fetch", skillrun_http_fetch, "{\"url\":\"https://ok.example/\"}"},
		{"http_fetch_denied", skillrun_http_fetch, "{\"url\":\"https://evil.example/\"}"},
		{"garbage", skillrun_tool_call, "{not json"},
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		if (take(calls[i].call(calls[i].req, strlen(calls[i].req))) < 0) return 1;
		printf("%s: %s\n", calls[i].fn, buf);
	}
	// A pointer far outside memory is an error envelope, not a trap.
	if (take(skillrun_tool_call((const void *)0x7ffffff0, 64)) < 0) return 1;
	printf("out_of_bounds: %s\n", buf);
	return 0;
}
