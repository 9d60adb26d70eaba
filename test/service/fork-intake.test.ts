// A fork by a run token or a user token is a new run of the source's subject, admitted by the one
// intake like any other: a source with no subject is forked by the deployment token only (403), the
// fork's budget is at most the source's (400 on budget.usd), and it is reserved from the subject's
// day (402 spend-limit past it). The create rate limits are tested in test/rate-limits.
import { describe, expect, it } from "vitest";
import { freshSubject, settle, userToken } from "../helpers/inbox";
import { api, driveRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

function fork(id: string, token: string, body: Record<string, unknown>): Promise<Response> {
  return api(`/v1/runs/${id}/fork`, token, { method: "POST", body: JSON.stringify({ atStep: 1, ...body }) });
}

async function finishedSource(extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "one" }], minAnswerChars: 0, ...extra });
  await driveRun(run.id);
  return { id: run.id, token };
}

describe("forks by a run or user token", () => {
  it("a source with no subject: its run token's fork is 403 (no day to charge it to); the deployment token's is 201", async () => {
    const source = await finishedSource({ budget: { usd: 0.01 } });
    const refused = await fork(source.id, source.token, { budget: { usd: 10 } });
    const text = await refused.text();
    expect(refused.status, text).toBe(403);
    expect(text).toContain("only the deployment token");
    expect((await fork(source.id, source.token, {})).status).toBe(403);
    expect((await fork(source.id, TEST_API_TOKEN, { budget: { usd: 10 } })).status).toBe(201);
  });

  it("the fork's budget is at most the source's: 400 on budget.usd for a run or user token, not for the deployment token", async () => {
    const subject = freshSubject("fork-budget");
    const source = await finishedSource({ subject, budget: { usd: 0.01 } });
    for (const token of [source.token, await userToken(subject)]) {
      const refused = await fork(source.id, token, { budget: { usd: 10 } });
      const { error } = (await refused.json()) as { error: { issues: { path: string; message: string }[] } };
      expect(refused.status).toBe(400);
      expect(error.issues.map((issue) => issue.path)).toEqual(["budget.usd"]);
      expect((await fork(source.id, token, { budget: { usd: 0.01 } })).status).toBe(201);
    }
    expect((await fork(source.id, TEST_API_TOKEN, { budget: { usd: 10 } })).status).toBe(201);
  });

  it("what a fork keeps of its source was allowed its source: a user token forks a deployment's run with an HTTP tool, and may keep that tool, not add another", async () => {
    const subject = freshSubject("fork-kept");
    const tool = (name: string) => ({ type: "http", name, description: "Looks up.", inputSchema: { type: "object", properties: {} }, url: "http://127.0.0.1:9/lookup" });
    const source = await finishedSource({ subject, tools: [tool("lookup")] });
    const user = await userToken(subject);
    expect((await fork(source.id, user, {})).status).toBe(201);
    expect((await fork(source.id, user, { tools: [tool("lookup"), "calculator"] })).status).toBe(201);
    const added = await fork(source.id, user, { tools: [tool("lookup"), tool("another")] });
    const { error } = (await added.json()) as { error: { issues: { path: string }[] } };
    expect(added.status).toBe(400);
    expect(error.issues.map((issue) => issue.path)).toEqual(["tools.1"]);
  });

  it("a run token's fork is reserved from the source's subject's day, as any new run: past SUBJECT_BUDGET_USD_PER_DAY, 402", async () => {
    const subject = freshSubject("fork-day");
    const source = await finishedSource({ subject, budget: { usd: 10 } });
    await settle(source.id);
    const usage = async () => (await (await api(`/v1/usage?subject=${subject}`, TEST_API_TOKEN)).json()) as { reservedUsd: number };
    const before = (await usage()).reservedUsd;
    expect((await fork(source.id, source.token, { budget: { usd: 3 } })).status).toBe(201);
    expect((await usage()).reservedUsd - before).toBeCloseTo(3, 6);
    // SUBJECT_BUDGET_USD_PER_DAY is 20: with $3 held, at most one more fork of $10 fits.
    const answers: number[] = [];
    for (let i = 0; i < 2; i++) answers.push((await fork(source.id, source.token, { budget: { usd: 10 } })).status);
    expect(answers.at(-1)).toBe(402);
  });
});
