import { describe, expect, it } from "vitest";
import { call } from "../helpers/http";

type Document = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

async function document(): Promise<Document> {
  const response = await call("/v1/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as Document;
}

describe("GET /v1/openapi.json", () => {
  it("is OpenAPI 3.1, without auth", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.1.0");
  });

  it("lists every endpoint of the API", async () => {
    const doc = await document();
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      [
        "POST /v1/runs",
        "GET /v1/runs",
        "GET /v1/runs/{id}",
        "GET /v1/runs/{id}/messages",
        "POST /v1/runs/{id}/answer",
        "POST /v1/runs/{id}/cancel",
        "POST /v1/runs/{id}/messages",
        "POST /v1/runs/{id}/retry",
        "POST /v1/runs/{id}/compact",
        "GET /v1/runs/{id}/events",
        "POST /v1/runs/{id}/tickets",
        "POST /v1/runs/{id}/token",
        "POST /v1/runs/{id}/fork",
        "GET /v1/runs/{id}/export",
        "DELETE /v1/runs/{id}",
        "POST /v1/tokens",
        "DELETE /v1/tokens/{id}",
        "GET /v1/usage",
        "POST /v1/schedules",
        "GET /v1/schedules",
        "GET /v1/schedules/{id}",
        "PATCH /v1/schedules/{id}",
        "DELETE /v1/schedules/{id}",
        "GET /v1/push/key",
        "POST /v1/push/subscriptions",
        "GET /v1/push/subscriptions",
        "DELETE /v1/push/subscriptions",
        "POST /v1/schedules/{id}/trigger",
        "POST /v1/inbox/tickets",
        "GET /v1/inbox/events",
        "POST /v1/runs/{id}/calls/{callKey}/result",
        "POST /v1/agents",
        "GET /v1/agents",
        "GET /v1/agents/{name}",
        "PATCH /v1/agents/{name}",
        "DELETE /v1/agents/{name}",
        "GET /v1/agents/{name}/versions",
        "GET /v1/agents/{name}/versions/{version}",
        "POST /v1/datasets",
        "GET /v1/datasets",
        "GET /v1/datasets/{name}",
        "POST /v1/datasets/{name}/cases",
        "POST /v1/experiments",
        "GET /v1/experiments",
        "GET /v1/experiments/{id}",
        "POST /v1/experiments/{id}/cancel",
        "GET /v1/experiments/{id}/events",
        "GET /v1/experiments/{id}/comparison",
        "GET /v1/experiments/{id}/export",
        "GET /v1/health",
        "GET /v1/openapi.json",
        "POST /v1/ai-sdk/{v}/chat",
        "GET /v1/ai-sdk/{v}/chat/{runId}/stream",
        "GET /v1/ai-sdk/{v}/chat/{runId}/messages",
        "POST /v1/ai-sdk/{v}/chat/{runId}/cancel",
        "POST /v1/ag-ui/{agent}",
        "POST /v1/ag-ui/runs/{runId}",
      ].sort(),
    );
  });

  it("describes the bodies, views, events and errors by name", async () => {
    const doc = await document();
    for (const name of ["CreateRunBody", "RunView", "AnswerBody", "ContinueBody", "ChatMessage", "ToolRef", "StoredEvent", "ClientFrame", "Error", "RunSummary", "RunsPage", "InboxEvent", "UserToken", "MintTokenBody", "WebhookDelivery", "CallResult", "CallResultAccepted", "PendingCall", "ClientToolsetRef", "ProviderToolRef", "NativeClientTool", "ToolsetAction", "BatchResult", "BatchAction", "McpServer"]) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    // The tool kinds are in ToolRef, the batch in the answer and the waiting view.
    const text = JSON.stringify(doc.components.schemas);
    for (const ref of ["ClientToolsetRef", "ProviderToolRef"]) expect(JSON.stringify(doc.components.schemas.ToolRef)).toContain(`#/components/schemas/${ref}`);
    expect(JSON.stringify(doc.components.schemas.AnswerBody)).toContain("#/components/schemas/BatchResult");
    expect(JSON.stringify(doc.components.schemas.RunView)).toContain("#/components/schemas/BatchAction");
    expect(text).toContain("client-toolset");
    expect(doc.components.securitySchemes).toHaveProperty("bearer");
    expect(doc.paths["/v1/health"]!.get!.security).toEqual([]);
    expect(doc.paths["/v1/runs"]!.post!.responses).toHaveProperty("201");
  });
});

describe("GET /v1/health", () => {
  it("answers without auth, even with a bad Authorization header", async () => {
    const response = await call("/v1/health", { headers: { Authorization: "Basic nope" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, version: "0.1.0" });
  });
});
