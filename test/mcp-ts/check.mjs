// Conformance check: drive `skillrun mcp` with the official TypeScript MCP
// client (@modelcontextprotocol/sdk) over stdio or streamable HTTP.
//
//   node check.mjs stdio <skillrun-binary> <skills-dir>
//   node check.mjs http <url> <token-file>
//
// Over HTTP the client sends Authorization: Bearer <the token in token-file>,
// as `skillrun mcp --http` requires.
//
// Prints one "ok: ..." line per passing check; exits non-zero with a
// "FAIL: ..." message on the first failure.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage() {
  console.error("usage: node check.mjs stdio <skillrun-binary> <skills-dir>\n       node check.mjs http <url> <token-file>");
  process.exit(2);
}

class CheckError extends Error {}

function check(cond, msg) {
  if (!cond) throw new CheckError(msg);
}

function textOf(res) {
  return (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio" && rest.length === 2) {
  transport = new StdioClientTransport({ command: rest[0], args: ["mcp", rest[1]], stderr: "inherit" });
} else if (mode === "http" && rest.length === 2) {
  const token = readFileSync(rest[1], "utf8").trim();
  transport = new StreamableHTTPClientTransport(new URL(rest[0]), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  usage();
}

const client = new Client({ name: "skillrun-ts-check", version: "1.0.0" });

async function main() {
  await client.connect(transport);
  const info = client.getServerVersion();
  console.log(`ok: connected over ${mode} to ${info?.name ?? "?"} ${info?.version ?? "?"}`);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["skills_catalog", "skill_activate", "skill_read"]) {
    check(names.includes(want), `tools/list: missing ${want} (got ${names.join(", ")})`);
  }
  console.log(`ok: tools/list has skills_catalog, skill_activate, skill_read (${names.length} tools)`);

  const { resources } = await client.listResources();
  const skillRes = resources.filter((r) => r.uri.startsWith("skill://"));
  check(skillRes.length > 0, `resources/list: no skill:// resource (got ${resources.map((r) => r.uri).join(", ") || "none"})`);
  console.log(`ok: resources/list has ${skillRes.length} skill:// resources`);

  const catalog = await client.callTool({ name: "skills_catalog", arguments: {} });
  check(!catalog.isError, `skills_catalog: error result: ${textOf(catalog)}`);
  const skillName = new URL(skillRes[0].uri).host;
  check(textOf(catalog).includes(skillName), `skills_catalog: does not mention ${skillName}`);
  console.log(`ok: skills_catalog lists ${skillName}`);

  const act = await client.callTool({ name: "skill_activate", arguments: { name: skillName } });
  check(!act.isError, `skill_activate ${skillName}: error result: ${textOf(act)}`);
  check(textOf(act).length > 0, `skill_activate ${skillName}: empty text`);
  console.log(`ok: skill_activate ${skillName}`);

  const rr = await client.readResource({ uri: skillRes[0].uri });
  check(rr.contents.length > 0, `resources/read ${skillRes[0].uri}: no contents`);
  const c0 = rr.contents[0];
  check(typeof c0.text === "string" || typeof c0.blob === "string", `resources/read ${skillRes[0].uri}: neither text nor blob`);
  console.log(`ok: resources/read ${skillRes[0].uri}`);

  const script = tools.find((t) => t.name.includes("__"));
  if (script) {
    const res = await client.callTool({ name: script.name, arguments: { text: "hello from ts" } });
    check(Array.isArray(res.content), `${script.name}: result has no content array`);
    if (script.name === "probe__echo") {
      // The test's probe skill echoes its JSON input back: a real run.
      check(res.isError !== true && textOf(res).includes("hello from ts"), `${script.name}: want the input echoed, got ${JSON.stringify(res)}`);
    }
    console.log(`ok: script tool ${script.name} answered (isError=${res.isError === true})`);
  } else {
    console.log("ok: no script tools built (script call skipped)");
  }

  const bad = await client.callTool({ name: "skill_read", arguments: { name: 42 } });
  check(bad.isError === true, `skill_read {"name": 42}: want isError true, got ${JSON.stringify(bad)}`);
  console.log(`ok: skill_read {"name": 42} is an error result: ${textOf(bad)}`);
}

let code = 0;
try {
  await main();
} catch (err) {
  console.error(`FAIL (${mode}): ${err instanceof CheckError ? err.message : err?.stack ?? err}`);
  code = 1;
} finally {
  try {
    await client.close();
  } catch {}
}
process.exit(code);
