#!/usr/bin/env node
// An MCP server written with the official TypeScript SDK v2
// (@modelcontextprotocol/server, pinned in ../package.json), which speaks
// both eras from one definition: 2026-07-28 (server/discover, _meta on each
// request, input requests inside a result, subscriptions/listen) and
// 2025-11-25 (the initialize handshake; the SDK's legacy shim turns the same
// input requests into server requests). latch's tests connect to it forced
// to each era and expect the same results on both.
//
//   server.mjs stdio            serve on stdin/stdout
//   server.mjs streamableHttp   serve POST/GET/DELETE /mcp on $PORT (127.0.0.1)
//
// Its surface is the one mcptestutil.ErasServer gives an mcp-go server:
//   tool echo {message}  the message
//   tool ask             a form ("Your name?"), a sample ("Say hi.") and the
//                        roots, answered as {"form":…,"roots":[…],"sample":…}
//   tool link            a URL form (https://example.com/eras/login?step=1),
//                        answered as "link: ACTION"
//   tool touch           notifications/resources/updated for test://eras/note
//   tool say             logs "quiet" at info and "loud" at warning
//   tool grow            adds the tool late (tools/list_changed), which
//                        returns "late"
//   tool roots           the roots (asked for), one URI a line
//   prompt greet {name}  "Hello, NAME."
//   prompt introduce     a form ("Your name?"), then "I am NAME."
//   resource test://eras/note   "a note"
//   resource test://eras/roots  the roots (asked for), one URI a line
import http from "node:http";
import { randomUUID } from "node:crypto";
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  inputRequired,
  inputResponse,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const noteURI = "test://eras/note";

// nameForm is the form of ask and introduce.
const nameForm = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string", title: "Name" } }, required: ["name"] },
};

// grew says the tool late was added: every instance built since has it.
let grew = false;

function addLate(server) {
  server.registerTool("late", { description: "Added by grow." }, async () => ({
    content: [{ type: "text", text: "late" }],
  }));
}

// build makes one server instance; touched tells whoever listens that the
// note changed, and grown that the tool list did (the instance itself on
// stdio, every stream and session over HTTP).
function build(touched, grown) {
  const server = new McpServer(
    { name: "eras-v2", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: {},
        resources: { subscribe: true, listChanged: true },
        logging: {},
      },
    },
  );
  server.registerTool(
    "echo",
    { description: "Returns the message.", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  server.registerTool("ask", { description: "Asks for a form, a sample and the roots." }, async (ctx) => {
    const answers = ctx.mcpReq.inputResponses;
    if (!answers || Object.keys(answers).length === 0) {
      return inputRequired({
        inputRequests: {
          form: inputRequired.elicit(nameForm),
          sample: inputRequired.createMessage({
            maxTokens: 50,
            messages: [{ role: "user", content: { type: "text", text: "Say hi." } }],
          }),
          roots: inputRequired.listRoots(),
        },
      });
    }
    const out = {};
    const form = inputResponse(answers, "form");
    if (form.kind === "elicit") out.form = { action: form.action, content: form.content };
    const roots = inputResponse(answers, "roots");
    if (roots.kind === "roots") out.roots = roots.roots.map((r) => r.uri);
    const sample = inputResponse(answers, "sample");
    if (sample.kind === "sampling") {
      const c = sample.result.content;
      out.sample = (Array.isArray(c) ? c[0] : c)?.text ?? "";
    }
    return { content: [{ type: "text", text: JSON.stringify(out) }] };
  });
  server.registerTool("link", { description: "Asks the person to open a link." }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "login");
    if (answer.kind !== "elicit") {
      return inputRequired({
        inputRequests: {
          login: inputRequired.elicitUrl({
            message: "Sign in to eras.",
            url: "https://example.com/eras/login?step=1",
          }),
        },
      });
    }
    return { content: [{ type: "text", text: `link: ${answer.action}` }] };
  });
  server.registerTool("touch", { description: "Says the note changed." }, async () => {
    await touched(server);
    return { content: [{ type: "text", text: "touched" }] };
  });
  server.registerTool("say", { description: "Logs at info and at warning." }, async (ctx) => {
    await ctx.mcpReq.log("info", "quiet");
    await ctx.mcpReq.log("warning", "loud");
    return { content: [{ type: "text", text: "said" }] };
  });
  server.registerTool("roots", { description: "Asks for the roots." }, async (ctx) => {
    const roots = inputResponse(ctx.mcpReq.inputResponses, "roots");
    if (roots.kind !== "roots") {
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    }
    return { content: [{ type: "text", text: roots.roots.map((r) => r.uri).join("\n") }] };
  });
  server.registerTool("grow", { description: "Adds the tool late." }, async () => {
    await grown(server);
    return { content: [{ type: "text", text: "grown" }] };
  });
  if (grew) addLate(server);
  server.registerPrompt(
    "greet",
    { description: "Greets someone.", argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}.` } }] }),
  );
  server.registerPrompt("introduce", { description: "Asks a name, then introduces it." }, async (ctx) => {
    const form = inputResponse(ctx.mcpReq.inputResponses, "form");
    if (form.kind !== "elicit") {
      return inputRequired({ inputRequests: { form: inputRequired.elicit(nameForm) } });
    }
    const name = form.action === "accept" ? form.content?.name : "nobody";
    return { messages: [{ role: "user", content: { type: "text", text: `I am ${name}.` } }] };
  });
  server.registerResource("roots", "test://eras/roots", { mimeType: "text/plain" }, async (uri, ctx) => {
    const roots = inputResponse(ctx.mcpReq.inputResponses, "roots");
    if (roots.kind !== "roots") {
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    }
    return { contents: [{ uri: uri.href, mimeType: "text/plain", text: roots.roots.map((r) => r.uri).join("\n") }] };
  });
  server.registerResource("note", noteURI, { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "a note" }],
  }));
  // The handshake era subscribes with a request of its own; the stateless
  // one names the URI in its subscriptions/listen filter instead.
  server.server.setRequestHandler("resources/subscribe", async () => ({}));
  server.server.setRequestHandler("resources/unsubscribe", async () => ({}));
  return server;
}

const updated = (server) => server.server.sendResourceUpdated({ uri: noteURI });

// grow adds the tool late to server (which tells its client, if connected).
const grow = async (server) => {
  if (!grew) {
    grew = true;
    addLate(server);
  }
};

if (process.argv[2] === "stdio") {
  serveStdio(() => build(updated, grow));
} else if (process.argv[2] === "streamableHttp") {
  serveHTTP(Number(process.env.PORT ?? 3001));
} else {
  console.error("usage: server.mjs stdio | streamableHttp");
  process.exit(2);
}

// serveHTTP serves the stateless era through the SDK's createMcpHandler, and
// the handshake era with sessions (the SDK's stateless fallback keeps no
// session, so it could not send a server request and hear the answer).
function serveHTTP(port) {
  const sessions = new Map(); // session id → {transport, server}
  const touched = async () => {
    modern.notify.resourceUpdated(noteURI);
    for (const s of sessions.values()) await updated(s.server).catch(() => {});
  };
  const grown = async () => {
    if (grew) return;
    grew = true;
    modern.notify.toolsChanged();
    for (const s of sessions.values()) addLate(s.server);
  };
  const modern = createMcpHandler(() => build(touched, grown), { legacy: "reject" });
  const legacy = async (request) => {
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const s = sessions.get(id);
      return s ? s.transport.handleRequest(request) : new Response("unknown session", { status: 404 });
    }
    const server = build(touched, grown);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, { transport, server }),
      onsessionclosed: (sid) => sessions.delete(sid),
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  http
    .createServer(async (req, res) => {
      if (new URL(req.url, "http://x").pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      try {
        const request = await webRequest(req, res);
        const response = (await isLegacyRequest(request)) ? await legacy(request) : await modern.fetch(request);
        await nodeResponse(response, res);
      } catch (e) {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e?.message ?? e));
      }
    })
    .listen(port, "127.0.0.1");
}

// webRequest is req as a web-standard Request, aborted when the client goes.
async function webRequest(req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    for (const one of [v].flat()) if (one !== undefined) headers.append(k, one);
  }
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, signal: abort.signal });
}

// nodeResponse writes a web-standard Response to res, streaming its body
// (an SSE stream stays open until either side ends it).
async function nodeResponse(response, res) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away
  }
  res.end();
}
