// A run's typed output as the loop takes it (a finish tool checked against its JSON Schema), and
// what the edge refuses before anything is stored.
import { describe, expect, it } from "vitest";
import { outputIssues, outputOptions } from "../../src/tools/output-tool";

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };

describe("outputOptions", () => {
  it("checks the hand-in against the schema, issues as for any tool", () => {
    const options = outputOptions({ schema, name: "answer" });
    expect(options).toMatchObject({ name: "answer", inputSchema: schema });
    expect(options.validate!({ city: "Paris" })).toEqual({ ok: true, value: { city: "Paris" } });
    const refused = options.validate!({ town: "Paris" });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.issues.length).toBeGreaterThan(0);
    expect(outputOptions({ schema })).not.toHaveProperty("name");
  });
});

describe("outputIssues", () => {
  it("none for a usable output, or none at all", () => {
    expect(outputIssues(undefined, ["calculator"], [])).toEqual([]);
    expect(outputIssues({ schema: { type: "object", $defs: { c: { type: "string" } }, properties: { city: { $ref: "#/$defs/c" } } } }, ["calculator"], [])).toEqual([]);
  });

  it("a $ref into the schema that points to nothing", () => {
    expect(outputIssues({ schema: { type: "object", properties: { city: { $ref: "#/$defs/city" } } } }, [], [])).toEqual([
      { path: "output.schema", message: 'The schema cannot be applied: $ref "#/$defs/city" points to nothing in the schema.' },
    ]);
  });

  it("a name the model would also see for another tool: a tool, a toolset's action, an MCP server's tool", () => {
    expect(outputIssues({ schema, name: "calculator" }, ["ask", "calculator"], [])).toEqual([{ path: "output.name", message: expect.stringContaining("tools.1") }]);
    const toolset = { type: "client-toolset" as const, name: "browser", actions: [{ name: "open", description: "Open.", inputSchema: { type: "object" } }] };
    expect(outputIssues({ schema, name: "browser__open" }, [toolset], [])).toEqual([{ path: "output.name", message: expect.stringContaining("tools.0") }]);
    expect(outputIssues({ schema, name: "docs__answer" }, [], [{ name: "docs", url: "https://mcp.example.com/mcp" }])).toEqual([{ path: "output.name", message: expect.stringContaining("MCP server docs") }]);
    // The default name is refused at `output`, since the body names none.
    expect(outputIssues({ schema }, [{ type: "client", name: "final_answer", description: "d", inputSchema: { type: "object" } }], [])).toEqual([{ path: "output", message: expect.stringContaining("final_answer") }]);
  });
});
