// Which Chromium the browser tests drive (test/e2e/support/chromium.ts): the one CHROMIUM_PATH
// names, else the machine's own, else the one packaged in @sparticuz/chromium, on Linux x64.
import { describe, expect, it } from "vitest";
import { pickChromium } from "./support/chromium";

/** A machine on which exactly `present` exist. */
function machine(present: string[], env: Record<string, string> = {}, platform = "linux", arch = "x64") {
  return { env, exists: (path: string) => present.includes(path), platform, arch };
}

describe("the browser tests' Chromium", () => {
  it("is the one CHROMIUM_PATH names, before the machine's own", () => {
    expect(pickChromium(machine(["/opt/chrome/chrome", "/usr/bin/chromium"], { CHROMIUM_PATH: "/opt/chrome/chrome" }))).toEqual({ kind: "env", path: "/opt/chrome/chrome" });
  });

  it("refuses a CHROMIUM_PATH that does not exist, naming the variable, rather than falling back", () => {
    expect(() => pickChromium(machine(["/usr/bin/chromium"], { CHROMIUM_PATH: "/nowhere/chrome" }))).toThrow("CHROMIUM_PATH is /nowhere/chrome, which does not exist");
  });

  it("is the machine's own where there is one: Debian's, else Ubuntu's name for it", () => {
    expect(pickChromium(machine(["/usr/bin/chromium", "/usr/bin/chromium-browser"]))).toEqual({ kind: "machine", path: "/usr/bin/chromium" });
    expect(pickChromium(machine(["/usr/bin/chromium-browser"], { CHROMIUM_PATH: "" }))).toEqual({ kind: "machine", path: "/usr/bin/chromium-browser" });
  });

  it("is the packaged one on a Linux x64 machine without one", () => {
    expect(pickChromium(machine([]))).toEqual({ kind: "packaged" });
  });

  it("elsewhere, without one, is an error that says to set CHROMIUM_PATH", () => {
    expect(() => pickChromium(machine([], {}, "darwin", "arm64"))).toThrow(/Linux x64 only, not darwin arm64\. Set CHROMIUM_PATH/);
    expect(() => pickChromium(machine([], {}, "linux", "arm64"))).toThrow(/Set CHROMIUM_PATH/);
  });
});
