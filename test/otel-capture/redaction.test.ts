// One redaction, for spans (docs/api.md, "What leaves the service"): with OTEL_CAPTURE_CONTENT=on,
// a run tree with a secret planted in its MCP servers' headers and its URLs' credentials at every depth
// (test/helpers/planted-secret.ts) exports its spans, content and all; none carries the secret.
import { describe, expect, it } from "vitest";
import { traceIdOf } from "../../src/durable/telemetry/span-ids";
import { finishedPlantedTree, plantedIn } from "../helpers/planted-secret";
import { arrivals, spansOf } from "../otlp-receiver/client";

describe("spans of a run with MCP credentials, content captured", () => {
  it("carry no header value of any MCP server and no URL credential, at any depth of its tree", async () => {
    const { root } = await finishedPlantedTree();
    const spans = await spansOf(traceIdOf(root.id));
    // The spans searched are there: the run's MCP call among them, with its captured content.
    expect(spans.map((span) => span.name)).toContain("execute_tool top__echo");
    expect(spans.some((span) => span.attributes.some((attribute) => attribute.key === "gen_ai.tool.call.result"))).toBe(true);
    expect(plantedIn(JSON.stringify(await arrivals()))).toBeUndefined();
  });
});
