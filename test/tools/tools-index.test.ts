import { describe, expect, it } from "vitest";
import type { ToolRef } from "../../src/api/types";
import { BUILT_IN_TOOLS, buildTools, checkToolRefs, checkToolSigning } from "../../src/tools";
import type { ToolDeps } from "../../src/tools/tool-deps";
import { TEST_TOOL_SIGNING_KEY } from "../tool-server/signing-keys";

const deps: ToolDeps = {
  runId: "run_x",
  idempotencyKey: (key) => `run_x/${key}`,
  fetch: (input, init) => fetch(input, init),
  allowHosts: ["http://localhost"],
  now: () => new Date(0),
  signingKeys: [TEST_TOOL_SIGNING_KEY],
  beginOnce: async () => true,
};

const http = (name: string, url = "http://localhost/tool"): ToolRef => ({
  type: "http",
  name,
  description: "d",
  inputSchema: { type: "object" },
  url,
});
const client = (name: string): ToolRef => ({ type: "client", name, description: "d", inputSchema: { type: "object" } });

describe("checkToolRefs", () => {
  it("accepts built-ins, allowed HTTP tools and client tools", () => {
    expect(checkToolRefs(["ask", "calculator", "current_time", http("a"), client("b")], ["http://localhost"])).toEqual([]);
  });

  it("reports unknown built-ins and disallowed hosts with their paths (unique names are the body schema's rule)", () => {
    expect(checkToolRefs(["calculator", "search", http("calculator"), http("x", "https://evil.com/t")], ["http://localhost"])).toEqual([
      { path: "tools.1", message: "Unknown built-in tool: search. Built-in tools: ask, calculator, current_time." },
      { path: "tools.3.url", message: "HTTP tools may not call evil.com: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry)." },
    ]);
  });

  it("refuses plain http to a host listed without http://", () => {
    expect(checkToolRefs([http("a")], ["localhost"])).toEqual([
      { path: "tools.0.url", message: "HTTP tools may not call localhost: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry)." },
    ]);
    expect(checkToolRefs([http("a", "https://localhost/tool")], ["localhost"])).toEqual([]);
  });
});

describe("checkToolSigning", () => {
  it("has nothing to say when there are no HTTP tools or the keys are valid", () => {
    expect(checkToolSigning(["calculator", client("c")], [])).toBeUndefined();
    expect(checkToolSigning([http("a")], [TEST_TOOL_SIGNING_KEY])).toBeUndefined();
  });

  it("names the setting at each HTTP tool when the keys cannot sign", () => {
    expect(checkToolSigning([http("a"), client("c"), http("b")], [])).toEqual({
      message: "HTTP tools are not available: TOOL_SIGNING_KEY is not set (HTTP tool requests are signed with it).",
      issues: [
        { path: "tools.0", message: "This deployment cannot sign HTTP tool requests: TOOL_SIGNING_KEY is not set (HTTP tool requests are signed with it)." },
        { path: "tools.2", message: "This deployment cannot sign HTTP tool requests: TOOL_SIGNING_KEY is not set (HTTP tool requests are signed with it)." },
      ],
    });
  });
});

describe("buildTools", () => {
  it("builds one spec per ref, in order", () => {
    const specs = buildTools([...BUILT_IN_TOOLS, http("h"), client("c")], deps);
    expect(specs.map((spec) => spec.name)).toEqual(["ask", "calculator", "current_time", "h", "c"]);
    expect(specs[0]!.run).toBeUndefined(); // ask is never run
    expect(specs[4]!.client).toBe(true);
    expect(specs[4]!.run).toBeUndefined();
    expect(specs[4]!.validate!({})).toEqual({ ok: true, value: {} });
    expect(specs[4]!.validate!(3)).toMatchObject({ ok: false });
  });

  it("refuses an unknown built-in loudly", () => {
    expect(() => buildTools(["nope"], deps)).toThrow("Unknown built-in tool: nope.");
  });

  it("gives the ask tool a question schema", () => {
    const [ask] = buildTools(["ask"], deps);
    expect(ask!.schema!.safeParse({ question: "Which?", choices: ["a", "b"] }).success).toBe(true);
    expect(ask!.schema!.safeParse({ choices: ["a"] }).success).toBe(false);
  });
});
