// The transport a v1 SDK client script's plan names: {"stdio": {"command",
// "args", "env"}} starts latch (its stderr passed through), {"http": {"url",
// "token"}} posts to it with the bearer token.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export function transportOf(plan) {
  if (plan.stdio) {
    return new StdioClientTransport({
      command: plan.stdio.command,
      args: plan.stdio.args ?? [],
      env: { ...process.env, ...(plan.stdio.env ?? {}) },
      stderr: "inherit",
    });
  }
  const headers = plan.http.token ? { Authorization: `Bearer ${plan.http.token}` } : {};
  return new StreamableHTTPClientTransport(new URL(plan.http.url), { requestInit: { headers } });
}
