// @ratchet/client as an app gets it: `npm run pack:client` packs it, `npm install` puts the tarball
// into an empty folder (offline: the package has nothing to fetch), and the README's snippet runs
// there as plain Node against `wrangler dev`: the run asks, the snippet answers, the run finishes.
// A TypeScript app on `moduleResolution: node16` compiles against the package's declarations.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockStartingWith } from "./support/doc-blocks";
import { snapshotProject, startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PORT = await freePort();
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages/client/package.json"), "utf8")) as { version: string }).version;

describe("@ratchet/client, packed and installed", () => {
  const app = mkdtempSync(join(tmpdir(), "ratchet-app-"));
  const state = mkdtempSync(join(tmpdir(), "ratchet-client-state-"));
  const snapshot = snapshotProject(ROOT);
  let dev: DevServer | undefined;
  let tarball = "";

  beforeAll(async () => {
    [dev, tarball] = await Promise.all([
      startDevServer({ port: PORT, persistTo: state, cwd: snapshot.dir }),
      run("npm", ["run", "--silent", "pack:client"], { cwd: ROOT }).then(({ stdout }) => stdout.trim()),
    ]);
  });

  afterAll(async () => {
    await dev?.kill();
    snapshot.remove();
    rmSync(app, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it("npm run pack:client writes dist/ratchet-client-<version>.tgz, a package with no dependencies", () => {
    expect(tarball).toBe(join(ROOT, "dist", `ratchet-client-${VERSION}.tgz`));
    expect(existsSync(tarball)).toBe(true);
  });

  it("installs into an empty folder offline, and the README's snippet runs there as plain Node: asked, answered, finished", async () => {
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: app });
    const installed = join(app, "node_modules/@ratchet/client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: "@ratchet/client", version: VERSION, type: "module" });
    expect(manifest.dependencies ?? {}).toEqual({});
    // Nothing but the package itself was installed.
    expect(readdirSync(join(app, "node_modules")).filter((name) => !name.startsWith("."))).toEqual(["@ratchet"]);

    const snippet = blockStartingWith("README.md", "// first-run.mjs");
    expect(snippet.info).toBe("js");
    writeFileSync(join(app, "first-run.mjs"), snippet.code);
    const { stdout, stderr } = await run(process.execPath, ["first-run.mjs"], { cwd: app, env: { ...process.env, RATCHET_URL: dev!.url }, timeout: 60_000 });
    expect(stderr).toBe("");
    expect(stdout.split("\n").filter((line) => line !== "")).toEqual(["calculator → 391", "asked: What should I call the result?", "finished: Thank you, noted. The result is 391."]);
  });

  it("its declarations type an app compiled with moduleResolution node16, strict", async () => {
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "first-app", private: true, type: "module", dependencies: { "@ratchet/client": `file:${tarball}` } }));
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "node16", moduleResolution: "node16", target: "es2022", lib: ["es2023", "dom"], strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ["app.ts"] }),
    );
    writeFileSync(
      join(app, "app.ts"),
      [
        'import { createClient, RatchetError, type RunView, type StreamEvent } from "@ratchet/client";',
        'const ratchet = createClient({ baseUrl: "http://127.0.0.1:8787", token: "dev-token" });',
        "export async function first(): Promise<RunView> {",
        '  const { run } = await ratchet.createRun({ messages: [{ role: "user", content: "Hi" }], tools: ["ask"] });',
        "  return run;",
        "}",
        "export const isEnd = (event: StreamEvent): boolean => event.type === \"end\" && event.status === \"finished\";",
        "export const codeOf = (error: unknown): string | undefined => (error instanceof RatchetError ? error.code : undefined);",
        "// @ts-expect-error: createRun needs messages",
        "void ratchet.createRun({});",
      ].join("\n"),
    );
    const tsc = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app }).catch((error: { stdout: string }) => error);
    expect(tsc.stdout).toBe("");
  });
});
