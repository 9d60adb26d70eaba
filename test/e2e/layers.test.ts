// The layer rule (scripts/check-layers.mjs): the core (loop, providers, tools, API types, helpers)
// imports no Workers runtime and nothing of the edge, the run object or the settings. The project
// passes, and each kind of breach is caught.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkCircles, circlesOf, resolveImport } from "../../scripts/check-circles.mjs";
import { checkLayers, importsOf, problemsOf } from "../../scripts/check-layers.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("the layer rule", () => {
  it("holds for the project", () => {
    expect(checkLayers(ROOT)).toEqual([]);
  });

  it("finds static, type-only, multi-line, side-effect, re-exported and dynamic imports", () => {
    const source = [
      'import { a } from "./a";',
      'import type { B } from "../b";',
      "import {\n  c,\n  d,\n} from './c';",
      'import "./side-effect";',
      'export { e } from "./e";',
      'const f = await import("./f");',
    ].join("\n");
    expect(importsOf(source)).toEqual(["./a", "../b", "./c", "./side-effect", "./e", "./f"]);
  });

  it.each([
    ["a cloudflare: module", 'import { DurableObject } from "cloudflare:workers";', "cloudflare:workers"],
    ["the edge", 'import { errors } from "../http/errors";', "src/http"],
    ["the run object", 'import type { RunRow } from "../durable/run-store";', "src/durable"],
    ["the settings", 'import { readSettings } from "../config/settings";', "src/config"],
    ["the Worker's entry", 'import worker from "../worker";', "src/worker"],
  ])("refuses an import of %s", (_name, line, named) => {
    const problems = problemsOf("src/loop/model-step.ts", line);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("src/loop/model-step.ts");
    expect(problems[0]).toContain(named);
  });

  it("allows the core's own layers and npm packages", () => {
    const source = ['import { z } from "zod";', 'import type { Usage } from "../loop/types";', 'import { canonicalJson } from "../lib/canonical-json";', 'import { x } from "./x";'].join("\n");
    expect(problemsOf("src/providers/anthropic.ts", source)).toEqual([]);
  });
});

describe("the provider rooms", () => {
  it("refuse a vendor's import of another vendor", () => {
    const problems = problemsOf("src/providers/openai/openai.ts", 'import { x } from "../anthropic/anthropic-request";');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("src/providers/anthropic/anthropic-request");
    expect(problems[0]).toContain("src/providers/common");
  });

  it("allow a vendor its own files and what they share; the registry knows them all", () => {
    expect(problemsOf("src/providers/openai/openai.ts", 'import { a } from "./openai-request";\nimport { b } from "../common/retry";')).toEqual([]);
    expect(problemsOf("src/providers/index.ts", 'import { a } from "./anthropic/anthropic";\nimport { b } from "./openai/openai";')).toEqual([]);
  });
});

describe("the circle check", () => {
  it("finds no circle in the project", () => {
    expect(checkCircles(ROOT)).toEqual([]);
  });

  it("finds a two-file circle and a longer one, each as a path back to its start", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
      ["c", ["d"]],
      ["d", ["e"]],
      ["e", ["c", "f"]],
      ["f", []],
    ]);
    expect(circlesOf(graph)).toEqual(
      expect.arrayContaining([
        ["a", "b", "a"],
        ["c", "d", "e", "c"],
      ]),
    );
    expect(circlesOf(graph)).toHaveLength(2);
  });

  it("resolves the project's relative specifiers, with or without an extension", () => {
    const files = new Set(["src/api/images.ts", "src/api/image-types.ts", "scripts/preflight/checks.mjs", "src/tools/index.ts"]);
    expect(resolveImport(files, "src/api/images.ts", "./image-types")).toBe("src/api/image-types.ts");
    expect(resolveImport(files, "scripts/preflight.mjs", "./preflight/checks.mjs")).toBe("scripts/preflight/checks.mjs");
    expect(resolveImport(files, "src/loop/x.ts", "../tools")).toBe("src/tools/index.ts");
    expect(resolveImport(files, "src/api/images.ts", "zod")).toBeUndefined();
  });
});
