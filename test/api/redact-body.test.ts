// redactBody (src/api/redaction/redact-body.ts): what of a stored body may leave the service.
import { describe, expect, it } from "vitest";
import { redactBody } from "../../src/api/redaction/redact-body";
import type { CreateRunBody, RunTemplate, ToolRef } from "../../src/api/types";

const SECRET = "s3cret-value";
const server = (name: string) => ({ name, url: `https://${name}.example.com/mcp`, headers: { Authorization: `Bearer ${SECRET}-${name}` }, tools: ["search"], once: true as const });
const agent = (name: string, run: RunTemplate): ToolRef => ({ type: "agent", name, description: `${name} agent`, run });
type AgentTool = Extract<ToolRef, { type: "agent" }>;

function stored(): CreateRunBody {
  const depth2: RunTemplate = { model: "m", mcpServers: [server("deep")] };
  const depth1: RunTemplate = { mcpServers: [server("mid")], tools: ["calculator", agent("deeper", depth2)] };
  return {
    messages: [{ role: "user", content: "hi" }],
    metadata: { ticket: 7 },
    mcpServers: [server("top"), { name: "open", url: "https://open.example.com/mcp" }],
    tools: ["calculator", { type: "client", name: "pick", description: "pick", inputSchema: { type: "object" } }, agent("helper", depth1)],
    webhook: { url: "https://hooks.example.com/ratchet" },
  };
}

describe("redactBody", () => {
  it("leaves out every MCP server's headers, at the top and in agent templates at any depth, and keeps the rest", () => {
    const redacted = redactBody(stored());
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    expect(redacted.mcpServers).toEqual([
      { name: "top", url: "https://top.example.com/mcp", tools: ["search"], once: true },
      { name: "open", url: "https://open.example.com/mcp" },
    ]);
    const helper = redacted.tools![2] as Extract<ToolRef, { type: "agent" }>;
    expect(helper.run.mcpServers).toEqual([{ name: "mid", url: "https://mid.example.com/mcp", tools: ["search"], once: true }]);
    const deeper = helper.run.tools![1] as Extract<ToolRef, { type: "agent" }>;
    expect(deeper.run).toEqual({ model: "m", mcpServers: [{ name: "deep", url: "https://deep.example.com/mcp", tools: ["search"], once: true }] });
    // Everything else as stored.
    const { mcpServers: _a, tools: _b, ...rest } = redacted;
    const { mcpServers: _c, tools: _d, ...storedRest } = stored();
    expect(rest).toEqual(storedRest);
    expect(redacted.tools!.slice(0, 2)).toEqual(stored().tools!.slice(0, 2));
  });

  it("shows every URL (MCP servers', HTTP tools', the webhook's, at any depth) without its userinfo, query values or fragment", () => {
    const url = (host: string) => `https://user:${SECRET}@${host}.example.com/path?api_key=${SECRET}&v=2#${SECRET}`;
    const http = (name: string): Extract<ToolRef, { type: "http" }> => ({ type: "http", name, description: name, inputSchema: { type: "object" }, url: url(name) });
    const depth2: RunTemplate = { mcpServers: [{ name: "deep", url: url("deep") }], tools: [http("deephttp")] };
    const body: CreateRunBody = {
      messages: [{ role: "user", content: "hi" }],
      mcpServers: [{ name: "top", url: url("top") }],
      tools: [http("tophttp"), agent("helper", { mcpServers: [{ name: "mid", url: url("mid") }], tools: [http("midhttp"), agent("deeper", depth2)] })],
      webhook: { url: url("hooks") },
    };
    const redacted = redactBody(body);
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    expect(JSON.stringify(body)).toContain(SECRET);
    const shown = (host: string) => `https://${host}.example.com/path?api_key=REDACTED&v=REDACTED`;
    expect(redacted.mcpServers).toEqual([{ name: "top", url: shown("top") }]);
    expect(redacted.webhook).toEqual({ url: shown("hooks") });
    expect(redacted.tools![0]).toMatchObject({ type: "http", url: shown("tophttp") });
    const helper = redacted.tools![1] as AgentTool;
    expect(helper.run.mcpServers).toEqual([{ name: "mid", url: shown("mid") }]);
    expect(helper.run.tools![0]).toMatchObject({ url: shown("midhttp") });
    const deeper = helper.run.tools![1] as AgentTool;
    expect(deeper.run).toEqual({ mcpServers: [{ name: "deep", url: shown("deep") }], tools: [{ ...http("deephttp"), url: shown("deephttp") }] });
  });

  it("shows an HTTP guardrail check's URL, at every stage and in agent templates, without its credentials; other checks as stored", () => {
    const planted = `https://user:${SECRET}@checks.example.com/gate?key=${SECRET}#${SECRET}`;
    const guardrails = { input: [{ name: "in", type: "http" as const, url: planted }], tool: [{ name: "size", type: "size" as const, maxChars: 10 }], output: [{ name: "out", type: "http" as const, url: planted, timeoutSeconds: 5 }] };
    const redacted = redactBody({ messages: [], guardrails, tools: [agent("helper", { guardrails })] });
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    const shownGuardrails = { input: [{ name: "in", type: "http", url: "https://checks.example.com/gate?key=REDACTED" }], tool: guardrails.tool, output: [{ name: "out", type: "http", url: "https://checks.example.com/gate?key=REDACTED", timeoutSeconds: 5 }] };
    expect(redacted.guardrails).toEqual(shownGuardrails);
    expect((redacted.tools![0] as AgentTool).run.guardrails).toEqual(shownGuardrails);
  });

  it("keeps only a webhook's url: whatever else a webhook carries stays in", () => {
    const body = { ...stored(), webhook: { url: "https://hooks.example.com/ratchet", secret: SECRET } as CreateRunBody["webhook"] };
    expect(redactBody(body).webhook).toEqual({ url: "https://hooks.example.com/ratchet" });
  });

  it("changes nothing of the stored body, and takes a template as well as a body", () => {
    const body = stored();
    const before = JSON.stringify(body);
    redactBody(body);
    expect(JSON.stringify(body)).toBe(before);
    const template: RunTemplate = { mcpServers: [server("t")] };
    expect(redactBody(template)).toEqual({ mcpServers: [{ name: "t", url: "https://t.example.com/mcp", tools: ["search"], once: true }] });
    expect(redactBody({ messages: [] })).toEqual({ messages: [] });
  });
});
