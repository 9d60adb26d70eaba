// PUBLIC_URL: where async tools' callbacks go when a run's own origin is not the address tool
// servers reach; a value that is no http(s) URL makes the deployment refuse to serve (503).
import { describe, expect, it } from "vitest";
import { callbackBase, parsePublicUrl } from "../../src/config/public-url";
import { readSettings } from "../../src/config/settings";
import { TEST_BINDINGS } from "../test-env";

describe("PUBLIC_URL", () => {
  it("is read without a trailing slash; unset or blank is undefined", () => {
    expect(parsePublicUrl("https://ratchet.example.com/")).toBe("https://ratchet.example.com");
    expect(parsePublicUrl("https://example.com/ratchet/")).toBe("https://example.com/ratchet");
    expect(parsePublicUrl(undefined)).toBeUndefined();
    expect(parsePublicUrl(" ")).toBeUndefined();
    for (const bad of ["ratchet.example.com", "ftp://example.com", "https://example.com/?a=1", "https://example.com/#x"]) expect(parsePublicUrl(bad), bad).toBe("invalid");
  });

  it("wins over the run's origin when set", () => {
    expect(callbackBase({ PUBLIC_URL: "https://public.example.com" }, "http://internal:8787")).toBe("https://public.example.com");
    expect(callbackBase({}, "https://ratchet.example.com")).toBe("https://ratchet.example.com");
    expect(callbackBase({}, undefined)).toBeUndefined();
  });

  it("a value that is not an http(s) URL is a problem of the deployment's settings, named without its value", () => {
    const result = readSettings({ ...TEST_BINDINGS, PUBLIC_URL: "not a url" }, false);
    expect(result).toEqual({ ok: false, problems: [{ setting: "PUBLIC_URL", problem: expect.stringMatching(/http\(s\) URL/) }] });
    expect(readSettings({ ...TEST_BINDINGS, PUBLIC_URL: "https://ratchet.example.com" }, false).ok).toBe(true);
  });
});
