// The public A2A card (GET /a2a/{name}/.well-known/agent-card.json) is limited per client address
// (AGENT_CARD_RATE_LIMIT; this project's Worker allows 3 a minute, wrangler.toml 100): each read the
// isolate's cache cannot answer is a read of the one agents object. Past it, 429 rate-limited with
// Retry-After in the API's error shape, for known and unknown names alike, and for a run token
// (which reads the card as no token does); another address, the deployment token and a user token
// (limited per subject) read on.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentName, makeAgent } from "../helpers/agents";
import { bearer, expectError } from "../helpers/http";
import { freshSubject, userToken } from "../helpers/inbox";

/** An address no other test uses (the IPv6 documentation range, RFC 3849). */
const freshAddress = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`;

function card(name: string, address: string, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`https://ratchet.test/a2a/${name}/.well-known/agent-card.json`, { headers: { "CF-Connecting-IP": address, ...headers } });
}

describe("429 rate-limited: agent cards read without credentials, per client address", () => {
  it("the fourth read in a minute from one address is refused, a miss counting as a read; other callers read on", async () => {
    const name = agentName("card-limited");
    await makeAgent({ name });
    const address = freshAddress();
    expect((await card(name, address)).status).toBe(200);
    expect((await card(name, address)).status).toBe(200);
    await expectError(await card(agentName("no-such"), address), 404, "not-found");
    const refused = await card(name, address);
    expect(refused.headers.get("retry-after")).toBe("60");
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("address");
    // A run token is no credential here; an unknown name and one that fits no agent are refused alike.
    await expectError(await card(name, address, bearer(`rt_${"a".repeat(43)}`)), 429, "rate-limited");
    await expectError(await card("Not_A_Name", address), 429, "rate-limited");
    expect((await card(name, freshAddress())).status).toBe(200);
    expect((await card(name, address, bearer())).status).toBe(200);
    expect((await card(name, address, bearer(await userToken(freshSubject("card-reader"))))).status).toBe(200);
  });
});
