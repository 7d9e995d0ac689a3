// A client of the official MCP TypeScript SDK (v1), for latch's end-to-end
// tests of `latch serve`. It reads a JSON plan from argv[2]:
//   {"stdio": {"command": "...", "args": [...], "env": {...}}  or
//    "http": {"url": "...", "token": "..."},
//    "list": true, "calls": [{"name": "...", "arguments": {...}} | {"awaitCall": I}],
//    "repeat": {"n": N, "call": {...}}, "waitListChanged": MS}
// and prints one JSON object: the tools listed, each call's result or
// error, and the timings of repeated calls (the benchmark). {"awaitCall": I}
// calls latch_await_decision with the invocation_id of call I's result.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(process.argv[2]);
const out = {};
const client = new Client({ name: plan.clientName ?? "sdk-e2e", version: "1.0.0" });
let listChanged;
const changed = new Promise((resolve) => (listChanged = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged(true));
let transport;
if (plan.stdio) {
  transport = new StdioClientTransport({
    command: plan.stdio.command,
    args: plan.stdio.args ?? [],
    env: { ...process.env, ...(plan.stdio.env ?? {}) },
    stderr: "inherit",
  });
} else {
  const headers = plan.http.token ? { Authorization: `Bearer ${plan.http.token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(plan.http.url), { requestInit: { headers } });
}
try {
  await client.connect(transport);
  out.instructions = client.getInstructions() ?? "";
  if (plan.list) {
    const res = await client.listTools();
    out.tools = res.tools;
  }
  out.calls = [];
  for (let c of plan.calls ?? []) {
    if (c.awaitCall !== undefined) {
      const handle = out.calls[c.awaitCall]?.result?.structuredContent ?? {};
      c = { name: "latch_await_decision", arguments: { invocation_id: handle.invocation_id ?? "" } };
    }
    try {
      out.calls.push({ result: await client.callTool({ name: c.name, arguments: c.arguments ?? {} }) });
    } catch (e) {
      out.calls.push({ error: String(e?.message ?? e) });
    }
  }
  if (plan.waitListChanged) {
    const timeout = new Promise((resolve) => setTimeout(() => resolve(false), plan.waitListChanged).unref());
    out.listChanged = await Promise.race([changed, timeout]);
    out.toolsAfter = (await client.listTools()).tools;
  }
  if (plan.repeat) {
    const c = plan.repeat.call;
    const ms = [];
    for (let i = 0; i < plan.repeat.n; i++) {
      const t0 = process.hrtime.bigint();
      const r = await client.callTool({ name: c.name, arguments: c.arguments ?? {} });
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.isError) {
        out.repeatError = r;
        break;
      }
    }
    out.durationsMs = ms;
  }
} catch (e) {
  out.connectError = String(e?.message ?? e);
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + "\n");
