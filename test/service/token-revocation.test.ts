// DELETE /v1/tokens/:id: a user token revoked before its expiry is refused at once, by the backend
// (deployment token) or by the token itself; the revocation lives in the subject's inbox.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, createWith, freshSubject } from "../helpers/inbox";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";

async function mint(subject: string): Promise<{ token: string; id: string }> {
  const response = await SELF.fetch(`${BASE}/v1/tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ subject }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; id: string };
}

const revoke = (id: string, token: string) => SELF.fetch(`${BASE}/v1/tokens/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } });
const list = (token: string) => SELF.fetch(`${BASE}/v1/runs`, { headers: { Authorization: `Bearer ${token}` } });

describe("DELETE /v1/tokens/:id", () => {
  it("the backend revokes a user token by its id: 401 at once everywhere, other tokens of the subject unharmed", async () => {
    const subject = freshSubject("revoked");
    const phone = await mint(subject);
    const other = await mint(subject);
    expect(phone.id).toMatch(/^tok_[A-Za-z0-9_-]{22}\.[0-9a-f]{64}$/);
    const { run } = await createWith(TEST_API_TOKEN, { subject });
    expect((await list(phone.token)).status).toBe(200);
    expect((await revoke(phone.id, TEST_API_TOKEN)).status).toBe(204);
    const { error } = await expectError(await list(phone.token), 401, "unauthorized");
    expect(error.message).toContain("revoked");
    await expectError(await SELF.fetch(`${BASE}/v1/runs/${run.id}`, { headers: { Authorization: `Bearer ${phone.token}` } }), 401, "unauthorized");
    await expectError(await SELF.fetch(`${BASE}/v1/inbox/tickets`, { method: "POST", headers: { Authorization: `Bearer ${phone.token}` } }), 401, "unauthorized");
    expect((await list(other.token)).status).toBe(200);
    // Revoking again changes nothing.
    expect((await revoke(phone.id, TEST_API_TOKEN)).status).toBe(204);
  });

  it("a user token revokes itself, and no other token; a run token revokes none; an id never given is 404", async () => {
    const subject = freshSubject("self");
    const phone = await mint(subject);
    const sibling = await mint(subject);
    await expectError(await revoke(sibling.id, phone.token), 403, "forbidden");
    const { token: runToken } = await createWith(TEST_API_TOKEN, { subject });
    await expectError(await revoke(phone.id, runToken), 403, "forbidden");
    await expectError(await revoke("tok_nonsense", TEST_API_TOKEN), 404, "not-found");
    expect((await revoke(phone.id, phone.token)).status).toBe(204);
    await expectError(await list(phone.token), 401, "unauthorized");
    expect((await list(sibling.token)).status).toBe(200);
  });
});
