// The layout rule of test/ (test/README.md): a source file under test/ is a test (*.test.ts), a
// helper (test/helpers/ inside workerd, test/e2e/support/ in Node), part of a local server, or a
// fixture on the list below, with the reason it stays where it is. A helper left beside the one
// test that first needed it is how "one place for helpers" wears away; this names each one.
import { describe, expect, it } from "vitest";
import { sourcesUnder } from "./support/source-files";

/** Helpers: test/helpers/ runs inside workerd, test/e2e/support/ in Node. */
const HELPERS = ["test/helpers/", "test/e2e/support/"];

/** The local servers the tests talk to; each directory holds its server, its global setup and what both sides share. */
const SERVERS = ["test/fake-anthropic/", "test/fake-openai/", "test/mcp-server/", "test/webhook-receiver/", "test/tool-server/", "test/push-service/", "test/otlp-receiver/"];

/** Files that stay where they are, and why. */
const FIXTURES: Record<string, string> = {
  "test/test-env.ts": "the test Worker's settings: vitest.config.ts binds them in Node, tests inside workerd import them",
  "test/env.d.ts": "the types of the values the global setups provide (inject())",
  "test/docs/global-setup.ts": "hands the repository's docs to test/docs/docs.test.ts, which cannot read files inside workerd",
  "test/docs/markdown.ts": "the Markdown reading that only test/docs/docs.test.ts uses",
  "test/docs/settings.ts": "the setting names of wrangler.toml and secrets.types.env, only for test/docs/docs.test.ts",
};


/** The files of `files` (paths from the project root) that break the rule. */
function misplaced(files: string[]): string[] {
  return files.filter(
    (file) =>
      !file.endsWith(".test.ts") &&
      ![...HELPERS, ...SERVERS].some((dir) => file.startsWith(dir)) &&
      FIXTURES[file] === undefined,
  );
}

describe("the layout of test/", () => {
  it("holds: every file that is not a test is a helper, part of a local server or a listed fixture", () => {
    const files = sourcesUnder("test");
    expect(files.length).toBeGreaterThan(100);
    expect(misplaced(files), "move each file to test/helpers/ (workerd) or test/e2e/support/ (Node), or list it with its reason").toEqual([]);
  });

  it("lists only fixtures that exist", () => {
    const files = new Set(sourcesUnder("test"));
    expect(Object.keys(FIXTURES).filter((file) => !files.has(file))).toEqual([]);
  });

  it("refuses a helper beside its tests, and takes tests, helpers, servers and listed fixtures", () => {
    const files = [
      "test/http/helpers.ts",
      "test/e2e/wrangler-dev.ts",
      "test/loop/nested/util.mjs",
      "test/http/auth.test.ts",
      "test/helpers/http.ts",
      "test/e2e/support/dev-server.ts",
      "test/fake-anthropic/server.ts",
      "test/docs/markdown.ts",
    ];
    expect(misplaced(files)).toEqual(["test/http/helpers.ts", "test/e2e/wrangler-dev.ts", "test/loop/nested/util.mjs"]);
  });
});
