// What latch's SDK client scripts (sdkclient/client.mjs, v2client/client.mjs)
// do alike with a plan, whatever the SDK's version: list the tools, make the
// calls, wait for a change of the tool list.

// runPlan lists the tools (plan.list), makes plan.calls in order
// ({"awaitCall": I} calls latch_await_decision with the invocation_id of
// call I's result) and, with plan.waitListChanged, waits up to that many
// ms for changed (a promise of the list-changed notification) and lists
// again. What it got goes into out.
export async function runPlan(client, plan, out, changed) {
  if (plan.list) {
    out.tools = (await client.listTools()).tools;
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
}
