// `npm run replay` as a person runs it: steps counted as the run view counts them, and a file that
// is missing or no recording answered with one line, not a stack.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Ran = { code: number; stdout: string; stderr: string };

async function replay(...files: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await promisify(execFile)("node", ["bench/ts.mjs", "scripts/replay.ts", ...files], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("npm run replay", () => {
  it("counts a recording's steps as its run view does", async () => {
    const file = "test/recordings/continue.json";
    const { steps } = (JSON.parse(readFileSync(`${ROOT}${file}`, "utf8")) as { run: { steps: number } }).run;
    const ran = await replay(file);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(new RegExp(`^OK ${file}: ${steps} steps replayed in [\\d.]+ ms\\n$`));
  });

  it("reads a recording of format 1 (each request whole, as exported before) too", async () => {
    const file = "test/recordings/format-1/continue.json";
    const { steps } = (JSON.parse(readFileSync(`${ROOT}${file}`, "utf8")) as { run: { steps: number } }).run;
    const ran = await replay(file);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(new RegExp(`^OK ${file}: ${steps} steps replayed in [\\d.]+ ms\\n$`));
  });

  it("answers a missing file and a file that is not JSON with one line each, and exits 1", async () => {
    const ran = await replay("test/recordings/no-such-recording.json", "README.md");
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe("test/recordings/no-such-recording.json: no such file\nREADME.md: not JSON (a recording is the body of GET /v1/runs/:id/export)\n");
    expect(ran.stdout).toBe("");
  });
});
