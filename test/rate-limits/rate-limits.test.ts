// Rate limits through the Workers rate-limiting binding (this project's Worker allows 5 creations
// per deployment token and 8 requests per run token a minute; wrangler.toml has the real ones):
// past a limit, 429 rate-limited with Retry-After, in the API's error shape.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bearer, expectError, postJson } from "../helpers/http";

const body = { provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] };
/** A user token's run (the scripted provider is the deployment's alone); these runs are never stepped. */
const userBody = { provider: "anthropic", model: "claude-sonnet-5-5", messages: [{ role: "user", content: "hi" }] };

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
    // Asking for a ticket is a request like any other.
    await expectError(await SELF.fetch(`https://ratchet.test/v1/runs/${first!.run.id}/tickets`, { method: "POST", headers: bearer(first!.token) }), 429, "rate-limited");
    expect((await SELF.fetch(`https://ratchet.test/v1/runs/${second!.run.id}`, { headers: bearer(second!.token) })).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await SELF.fetch(`https://ratchet.test/v1/runs/${first!.run.id}`, { headers: bearer() })).status).toBe(200);
  });
});

describe("429 rate-limited per subject", () => {
  async function userToken(subject: string): Promise<string> {
    const response = await postJson("/v1/tokens", { subject });
    expect(response.status).toBe(201);
    return ((await response.json()) as { token: string }).token;
  }

  it("run creation with a user token: the fourth create of one subject in a minute is refused; another subject and the deployment token are not affected", async () => {
    // This project's Worker allows 3 creations per subject a minute (wrangler.toml: 30).
    const subject = `limited-${crypto.randomUUID()}`;
    const token = await userToken(subject);
    for (let i = 0; i < 3; i++) expect((await postJson("/v1/runs", userBody, bearer(token))).status).toBe(201);
    const refused = await postJson("/v1/runs", userBody, bearer(token));
    expect(refused.headers.get("retry-after")).toBe("60");
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("subject");
    // A second token of the same subject shares the limit; another subject has its own.
    await expectError(await postJson("/v1/runs", userBody, bearer(await userToken(subject))), 429, "rate-limited");
    expect((await postJson("/v1/runs", userBody, bearer(await userToken(`other-${crypto.randomUUID()}`)))).status).toBe(201);
  });
});

describe("429 after too many failed authentications on one run (AUTH_FAILURE_RATE_LIMIT: 4 here, 20 in wrangler.toml)", () => {
  async function userRun(): Promise<{ id: string; token: string }> {
    const minted = (await (await postJson("/v1/tokens", { subject: `auth-${crypto.randomUUID()}` })).json()) as { token: string };
    const response = await postJson("/v1/runs", userBody, bearer(minted.token));
    expect(response.status).toBe(201);
    const { run, token } = (await response.json()) as { run: { id: string }; token: string };
    return { id: run.id, token };
  }
  const wrong = () => `rt_${"W".repeat(43)}`;
  const read = (id: string, token: string) => SELF.fetch(`https://ratchet.test/v1/runs/${id}`, { headers: bearer(token) });

  it("wrong run tokens: 404 up to the limit, then 429; then even the right token waits, without the run being asked; other runs and the deployment token go on", async () => {
    const target = await userRun();
    const other = await userRun();
    for (let i = 0; i < 4; i++) await expectError(await read(target.id, wrong()), 404, "not-found");
    const refused = await read(target.id, wrong());
    expect(refused.headers.get("retry-after")).toBe("60");
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("failed authentications");
    await expectError(await read(target.id, target.token), 429, "rate-limited");
    expect((await read(other.id, other.token)).status).toBe(200);
    expect((await read(target.id, "")).status).toBe(401);
    expect((await SELF.fetch(`https://ratchet.test/v1/runs/${target.id}`, { headers: bearer() })).status).toBe(200);
  });

  it("wrong tickets and wrong callback tokens count too, and the result route is rate-limited per run", async () => {
    const target = await userRun();
    const events = (ticket: string) => SELF.fetch(`https://ratchet.test/v1/runs/${target.id}/events?ticket=${ticket}`, { headers: { Accept: "text/event-stream" } });
    const result = (token: string) => postJson(`/v1/runs/${target.id}/calls/s1~tool~1~c1/result`, { content: "x" }, bearer(token));
    await expectError(await events(`tk_${"x".repeat(43)}`), 401, "unauthorized");
    await expectError(await events("nonsense"), 401, "unauthorized");
    await expectError(await result("cb_wrong"), 401, "unauthorized");
    await expectError(await result("cb_wrong"), 401, "unauthorized");
    await expectError(await result("cb_wrong"), 429, "rate-limited");
    await expectError(await events(`tk_${"x".repeat(43)}`), 429, "rate-limited");
  });
});
