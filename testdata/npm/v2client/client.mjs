// A client of the official MCP TypeScript SDK v2 (@modelcontextprotocol/client),
// pinned to the 2026-07-28 stateless form, for latch's end-to-end tests of
// `latch serve --listen`. It reads a JSON plan from argv[2]:
//   {"url": "...", "token": "...", "origin": "...", "clientName": "...",
//    "list": true, "calls": [{"name": "...", "arguments": {...}} | {"awaitCall": I}],
//    "waitListChanged": MS}
// and prints one JSON object: the negotiated protocol version and era, the
// tools listed, each call's result or error, and the wire: every HTTP
// request sent (its JSON-RPC methods, its MCP-Protocol-Version header) and
// the status answered. {"awaitCall": I} calls latch_await_decision with the
// invocation_id of call I's result. waitListChanged waits up to MS after
// the calls for notifications/tools/list_changed (the SDK's listChanged
// handler, on 2026-07-28 a subscriptions/listen stream) and lists again.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { runPlan } from "../plan.mjs";

const plan = JSON.parse(process.argv[2]);
const out = { wire: [] };

// recording is fetch, noting each request's methods and version header.
async function recording(url, init) {
  const headers = new Headers(init?.headers);
  if (plan.origin) headers.set("Origin", plan.origin);
  let methods = [];
  if (typeof init?.body === "string") {
    try {
      const msg = JSON.parse(init.body);
      methods = (Array.isArray(msg) ? msg : [msg]).map((m) => m.method ?? "(response)");
    } catch {}
  }
  const res = await fetch(url, { ...init, headers });
  out.wire.push({
    httpMethod: init?.method ?? "GET",
    methods,
    protocolVersion: headers.get("mcp-protocol-version") ?? "",
    sessionId: headers.get("mcp-session-id") ?? "",
    status: res.status,
  });
  return res;
}

let listChanged;
const changed = new Promise((resolve) => (listChanged = resolve));
const client = new Client(
  { name: plan.clientName ?? "sdk-v2-e2e", version: "1.0.0" },
  {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    ...(plan.waitListChanged ? { listChanged: { tools: { onChanged: () => listChanged(true) } } } : {}),
  },
);
const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers }, fetch: recording });
try {
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion() ?? "";
  out.era = client.getProtocolEra() ?? "";
  out.instructions = client.getInstructions() ?? "";
  await runPlan(client, plan, out, changed);
} catch (e) {
  out.connectError = String(e?.message ?? e);
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + "\n");
