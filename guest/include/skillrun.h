/*
 * skillrun.h: skillrun's host functions (ABI version 1) for C guests.
 * docs/contracts/abi.md in the skillrun repository specifies them.
 *
 * Build a guest with, for example:
 *   clang --target=wasm32-wasi --sysroot=/usr -O2 -I guest/include -o x.wasm x.c
 *
 * Every request-taking function has the Wasm signature
 * (req_ptr i32, req_len i32) -> i32: it sends req_len bytes at req_ptr
 * (a JSON request, or raw bytes for skillrun_output) and returns the
 * length of the response envelope, which the host keeps until the guest
 * copies it with skillrun_take. The envelope is JSON:
 *   {"ok":true,"result":...}
 *   {"ok":false,"error":{"code":"denied","message":"..."}}
 * Requests and responses are at most SKILLRUN_MAX_PAYLOAD bytes.
 */
#ifndef SKILLRUN_H
#define SKILLRUN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKILLRUN_ABI_VERSION 1
#define SKILLRUN_MAX_PAYLOAD (1 << 20)

/* Results of skillrun_take other than a length. */
#define SKILLRUN_TAKE_NO_RESPONSE (-1)  /* no response is waiting */
#define SKILLRUN_TAKE_TOO_SMALL (-2)    /* buffer too small; the response is kept */
#define SKILLRUN_TAKE_OUT_OF_BOUNDS (-3) /* buffer outside linear memory */

#define SKILLRUN_IMPORT(name) \
	__attribute__((import_module("skillrun"), import_name(name)))

/* The host's ABI version. */
SKILLRUN_IMPORT("abi_version") int32_t skillrun_abi_version(void);

/* Copies the waiting response to buf if it fits in cap bytes; returns its
 * length or a negative SKILLRUN_TAKE_* code. */
SKILLRUN_IMPORT("take") int32_t skillrun_take(void *buf, uint32_t cap);

/* Request-taking functions: each returns the response's length. */
SKILLRUN_IMPORT("input") int32_t skillrun_input(const void *req, uint32_t len);
SKILLRUN_IMPORT("output") int32_t skillrun_output(const void *req, uint32_t len);
SKILLRUN_IMPORT("log") int32_t skillrun_log(const void *req, uint32_t len);
SKILLRUN_IMPORT("tool_call") int32_t skillrun_tool_call(const void *req, uint32_t len);
SKILLRUN_IMPORT("skills_search") int32_t skillrun_skills_search(const void *req, uint32_t len);
SKILLRUN_IMPORT("skill_activate") int32_t skillrun_skill_activate(const void *req, uint32_t len);
SKILLRUN_IMPORT("skill_read") int32_t skillrun_skill_read(const void *req, uint32_t len);
SKILLRUN_IMPORT("skill_run") int32_t skillrun_skill_run(const void *req, uint32_t len);
SKILLRUN_IMPORT("mcp_call") int32_t skillrun_mcp_call(const void *req, uint32_t len);
SKILLRUN_IMPORT("http_fetch") int32_t skillrun_http_fetch(const void *req, uint32_t len);

#undef SKILLRUN_IMPORT

#ifdef __cplusplus
}
#endif

#endif /* SKILLRUN_H */
