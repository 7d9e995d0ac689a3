// A client of the official MCP TypeScript SDK (v1) that makes its calls as
// MCP tasks (protocol 2025-11-25), for latch's end-to-end tests of parked
// calls served as tasks. It reads a JSON plan from argv[2]:
//   {"stdio": {...} or "http": {"url": "...", "token": "..."}, "clientName": "...",
//    "steps": [{"stream": {"name": "...", "arguments": {...}}, "cancel": true, "stop": true, "task": {}}
//              | {"get": ID} | {"result": ID} | {"cancelTask": ID} | {"await": ID}]}
// and prints one JSON object: the tools listed, and for each step what it
// got. A "stream" step lists the tools first (the SDK then knows which
// tools take tasks), calls the tool with callToolStream, as an agent
// would, and records every message until the result or the error; with
// "stop" it stops at the task's creation, with "cancel" it cancels the
// task then; "task": {...} makes it a task even when the tool is not
// listed as taking tasks. An ID "@N" is the task id step N's stream created.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { transportOf } from "./transport.mjs";

const plan = JSON.parse(process.argv[2]);
const out = { steps: [] };
const client = new Client({ name: plan.clientName ?? "sdk-tasks-e2e", version: "1.0.0" });
const transport = transportOf(plan);
const idOf = (id) => (typeof id === "string" && id.startsWith("@") ? out.steps[Number(id.slice(1))]?.taskId ?? "" : id);
const failure = (e) => ({ error: String(e?.message ?? e), code: e?.code });
try {
  await client.connect(transport);
  out.capabilities = client.getServerCapabilities();
  for (const s of plan.steps ?? []) {
    const step = {};
    out.steps.push(step);
    try {
      if (s.stream) {
        out.tools = (await client.listTools()).tools;
        step.messages = [];
        const stream = client.experimental.tasks.callToolStream(
          { name: s.stream.name, arguments: s.stream.arguments ?? {} }, CallToolResultSchema,
          s.task ? { task: s.task } : undefined);
        for await (const m of stream) {
          step.messages.push(m.type === "error" ? { type: "error", ...failure(m.error) } : m);
          if (m.type === "taskCreated") {
            step.taskId = m.task.taskId;
            if (s.cancel) step.cancelled = await client.experimental.tasks.cancelTask(m.task.taskId);
            if (s.stop) break;
          }
        }
      } else if (s.get !== undefined) {
        step.task = await client.experimental.tasks.getTask(idOf(s.get));
      } else if (s.result !== undefined) {
        step.result = await client.experimental.tasks.getTaskResult(idOf(s.result), CallToolResultSchema);
      } else if (s.cancelTask !== undefined) {
        step.task = await client.experimental.tasks.cancelTask(idOf(s.cancelTask));
      } else if (s.await !== undefined) {
        step.result = await client.callTool({ name: "latch_await_decision", arguments: { invocation_id: idOf(s.await) } });
      }
    } catch (e) {
      Object.assign(step, failure(e));
    }
  }
} catch (e) {
  out.connectError = String(e?.message ?? e);
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + "\n");
