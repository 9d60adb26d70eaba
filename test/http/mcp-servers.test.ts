// `mcpServers` at the edge: headers are credentials, so no answer to a create (201 or 400) shows
// them, and the OpenAPI document names the shape without a real value.
import { describe, expect, it } from "vitest";
import { bearer, call, expectError, postJson } from "../helpers/http";

const SECRET = "edge-secret-credential-31f2";
const body = (server: Record<string, unknown>) => ({
  messages: [{ role: "user", content: "hi" }],
  provider: "scripted",
  script: [{ text: "ok" }],
  mcpServers: [{ name: "docs", url: "http://localhost/mcp", headers: { Authorization: `Bearer ${SECRET}` }, ...server }],
});

describe("mcpServers at the edge", () => {
  it("a created run's answer does not show the headers (nor the servers)", async () => {
    const response = await postJson("/v1/runs", body({}));
    const text = await response.text();
    expect(response.status, text).toBe(201);
    expect(text).not.toContain(SECRET);
  });

  it("a refused create never repeats a header value, whatever is wrong with it", async () => {
    for (const server of [
      { url: "https://evil.example.com/mcp" },
      { headers: { Authorization: `Bearer ${SECRET}\r\nX: y` } },
      { headers: { "Mcp-Session-Id": SECRET } },
      { headers: { Authorization: `${SECRET}${"x".repeat(9000)}` } },
      { name: "bad__name" },
    ]) {
      const refused = await expectError(await postJson("/v1/runs", body(server)), 400, "invalid-request");
      expect(JSON.stringify(refused)).not.toContain(SECRET);
    }
  });

  it("a user token may not name MCP servers", async () => {
    const minted = await postJson("/v1/tokens", { subject: "mcp-user" });
    const { token } = (await minted.json()) as { token: string };
    const refused = await expectError(await postJson("/v1/runs", body({}), bearer(token)), 400, "invalid-request");
    expect(refused.error.issues).toEqual([{ path: "mcpServers.0", message: expect.stringMatching(/deployment token/) }]);
  });

  it("the OpenAPI document describes McpServer, with a placeholder where a credential goes", async () => {
    const doc = (await (await call("/v1/openapi.json")).json()) as { components: { schemas: Record<string, { example?: { headers?: Record<string, string> }; properties?: Record<string, unknown> }> } };
    const schema = doc.components.schemas.McpServer!;
    expect(Object.keys(schema.properties!)).toEqual(["name", "url", "headers", "tools", "once"]);
    expect(schema.example!.headers).toEqual({ Authorization: "Bearer <token>" });
  });
});
