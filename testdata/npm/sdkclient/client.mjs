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
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { runPlan } from "../plan.mjs";
import { transportOf } from "./transport.mjs";

const plan = JSON.parse(process.argv[2]);
const out = {};
const client = new Client({ name: plan.clientName ?? "sdk-e2e", version: "1.0.0" });
let listChanged;
const changed = new Promise((resolve) => (listChanged = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged(true));
const transport = transportOf(plan);
try {
  await client.connect(transport);
  out.instructions = client.getInstructions() ?? "";
  await runPlan(client, plan, out, changed);
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
