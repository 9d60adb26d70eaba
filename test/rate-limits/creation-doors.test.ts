// The creation limit at every door a user token starts a run by: one count per subject
// (SUBJECT_CREATE_RATE_LIMIT, 3 a minute in this project's Worker), whichever door the runs came
// in by. For each door, a fresh subject spends its three creations through POST /v1/runs {agent},
// and the door's next creation is refused with 429 in the door's own form (the API's error, or
// MCP's tool error carrying it); the door's own creations count too (A2A and AG-UI: three through
// the door, then POST /v1/runs is 429). The door matrix runs with the limits lifted, so this rule
// is held here, door by door.
import { SELF } from "cloudflare:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { agentName, makeAgent, scriptedTemplate } from "../helpers/agents";
import { BASE, bearer, expectError, postJson } from "../helpers/http";
import { freshSubject, userToken } from "../helpers/inbox";
import { mcpClient } from "../helpers/mcp-client";

type Door = "runs" | "a2a" | "ag-ui";

/** One creation through `door` for the subject's token: its HTTP answer (an AG-UI stream that opened is cancelled: its run was made). */
async function create(door: Door, agent: string, token: string): Promise<Response> {
  if (door === "runs") return postJson("/v1/runs", { agent, messages: [{ role: "user", content: "hi" }] }, bearer(token));
  if (door === "a2a") {
    const body = { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] }, configuration: { returnImmediately: true } } };
    return postJson(`/a2a/${agent}`, body, bearer(token));
  }
  const response = await SELF.fetch(`${BASE}/v1/ag-ui/${agent}`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ threadId: crypto.randomUUID(), runId: "r1", messages: [{ id: "m1", role: "user", content: "hi" }] }),
  });
  if (response.ok) await response.body?.cancel();
  return response;
}

async function spent(door: Door, agent: string, token: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const made = await create(door, agent, token);
    expect(made.status, await made.clone().text()).toBe(door === "runs" ? 201 : 200);
  }
}

describe("429 rate-limited: every creation door counts against the subject's one creation limit", () => {
  it.each<Door>(["a2a", "ag-ui"])("%s: refused once the subject's three creations are spent through POST /v1/runs", async (door) => {
    const { name } = await makeAgent({ name: agentName(`doors-${door}`), run: scriptedTemplate("Hello.") });
    const token = await userToken(freshSubject(`doors-${door}`));
    await spent("runs", name, token);
    const refused = await create(door, name, token);
    expect(refused.headers.get("retry-after")).toBe("60");
    await expectError(refused, 429, "rate-limited");
  });

  it.each<Door>(["a2a", "ag-ui"])("%s: its own creations count: after three through it, POST /v1/runs is refused", async (door) => {
    const { name } = await makeAgent({ name: agentName(`doors-own-${door}`), run: scriptedTemplate("Hello.") });
    const token = await userToken(freshSubject(`doors-own-${door}`));
    await spent(door, name, token);
    await expectError(await create("runs", name, token), 429, "rate-limited");
  });

  it("MCP tools/call: refused as the tool's error carrying 429 once the subject's creations are spent", async () => {
    const { name } = await makeAgent({ name: agentName("doors-mcp"), run: scriptedTemplate("Hello.") });
    const token = await userToken(freshSubject("doors-mcp"));
    await spent("runs", name, token);
    const client = await mcpClient(token);
    const result = (await client.callTool({ name, arguments: { task: "hi" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.["ratchet/error"]).toMatchObject({ status: 429, code: "rate-limited" });
    await client.close();
  });
});
