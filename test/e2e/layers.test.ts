// The layer rule (scripts/check-layers.mjs): the core (loop, providers, tools, API types, helpers)
// imports no Workers runtime and nothing of the edge, the run object or the settings. The project
// passes, and each kind of breach is caught.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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
