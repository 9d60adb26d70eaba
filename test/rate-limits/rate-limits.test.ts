// Rate limits through the Workers rate-limiting binding (this project's Worker allows 5 creations
// per deployment token and 8 requests per run token a minute; wrangler.toml has the real ones):
// past a limit, 429 rate-limited with Retry-After, in the API's error shape.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bearer, expectError, postJson } from "../http/helpers";

const body = { provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] };

async function createRun(): Promise<Response> {
  return postJson("/v1/runs", body);
}

describe("429 rate-limited", () => {
  it("run creation per deployment token: the sixth create in a minute is refused, and nothing is created", async () => {
    const created: { run: { id: string }; token: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await createRun();
      expect(response.status).toBe(201);
      created.push((await response.json()) as { run: { id: string }; token: string });
    }
    const refused = await createRun();
    expect(refused.headers.get("retry-after")).toBe("60");
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("deployment token");

    // Reads with the deployment token are not limited; each run token has its own budget of requests.
    const [first, second] = created;
    for (let i = 0; i < 8; i++) expect((await SELF.fetch(`https://ratchet.test/v1/runs/${first!.run.id}`, { headers: bearer(first!.token) })).status).toBe(200);
    const limited = await SELF.fetch(`https://ratchet.test/v1/runs/${first!.run.id}`, { headers: bearer(first!.token) });
    expect(limited.headers.get("retry-after")).toBe("60");
    await expectError(limited, 429, "rate-limited");
    // Tickets a run token redeems count too.
    await expectError(await SELF.fetch(`https://ratchet.test/v1/runs/${first!.run.id}/tickets`, { method: "POST", headers: bearer(first!.token) }), 429, "rate-limited");
    expect((await SELF.fetch(`https://ratchet.test/v1/runs/${second!.run.id}`, { headers: bearer(second!.token) })).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await SELF.fetch(`https://ratchet.test/v1/runs/${first!.run.id}`, { headers: bearer() })).status).toBe(200);
  });
});
