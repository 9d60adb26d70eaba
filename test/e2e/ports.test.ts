// The processes the tests start (wrangler dev, the docs' tool servers) get their port from one
// function, `freePort()` (test/e2e/support/http-server.ts: drawn below the kernel's ephemeral range
// and checked by binding it), and the local servers listen on port 0. A port picked from a small
// fixed range (`9700 + Math.floor(Math.random() * 90)`) collided with a second suite on the same
// machine (EADDRINUSE), so this reads test/ and bench/ and fails on one picked anywhere else.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourcesUnder } from "./support/source-files";

/** A port made of a number: random in a range, a literal handed to --port or port:, or listen(1234). */
const PICKED_PORT = /\bport\w*\s*[:=][^;\n]*Math\.random|["']--port["'],\s*["']\d|\bport:\s*\d{2,}|\.listen\(\s*[1-9]\d{1,}/gi;

export function pickedPorts(source: string): string[] {
  return [...source.matchAll(PICKED_PORT)].map((match) => match[0]);
}

describe("ports come from the OS", () => {
  it("finds a port picked from a range, and a literal one", () => {
    expect(pickedPorts("const PORT = 9700 + Math.floor(Math.random() * 90);")).toHaveLength(1);
    expect(pickedPorts('startDevServer({ port: 8700 + Math.floor(Math.random() * 90) })')).toHaveLength(1);
    expect(pickedPorts("server.listen(8787)")).toHaveLength(1);
    expect(pickedPorts("const PORT = await freePort(); server.listen(0); listen(server, port)")).toEqual([]);
  });

  it("no test or benchmark picks one", () => {
    const offenders = [...sourcesUnder("test"), ...sourcesUnder("bench")]
      .filter((path) => path !== "test/e2e/ports.test.ts")
      .flatMap((path) => pickedPorts(readFileSync(resolve(ROOT, path), "utf8")).map((found) => `${path}: ${found}`));
    expect(offenders).toEqual([]);
  });
});
