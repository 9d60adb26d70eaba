import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("GET /v1/health", () => {
  it("answers ok and the version without auth", async () => {
    const response = await SELF.fetch("https://ratchet.test/v1/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, version: "0.1.0" });
  });
});
