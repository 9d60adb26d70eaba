// Compaction on demand of a finished run of a subject (POST /v1/runs/:id/compact): its reservation
// was released when the run ended, so the summary reserves what the budget has left in the
// subject's day first (402 spend-limit when it does not fit), and the day then counts the summary's
// cost. Through the whole Worker, with the fake OpenAI server pricing the calls.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Usage } from "../../src/api/rules/spend";
import type { RunView } from "../../src/api/types";
import { scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { expectError } from "../helpers/http";
import { BASE, freshSubject, settle } from "../helpers/inbox";
import { api, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const calc = (i: number) => ({ text: `Step ${i}.`, toolCalls: [{ id: `call_${i}`, name: "calculator", input: { expression: `${i} + 1` } }] });

async function usage(subject: string): Promise<Usage> {
  const response = await SELF.fetch(`${BASE}/v1/usage?subject=${encodeURIComponent(subject)}`, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Usage;
}

async function finishedRun(subject: string, usd: number): Promise<{ run: RunView; token: string }> {
  const model = uniqueOpenAIModel();
  await scriptOpenAI(model, [calc(1), calc(2), { text: "Two steps done." }]);
  const { run, token } = await startRun({ provider: "openai", model, subject, budget: { usd }, messages: [{ role: "user", content: "Two steps." }], tools: ["calculator"], minAnswerChars: 0 });
  await settle(run.id);
  return { run: (await (await api(`/v1/runs/${run.id}`, token)).json()) as RunView, token };
}

const compact = (id: string, token: string) => api(`/v1/runs/${id}/compact`, token, { method: "POST", body: JSON.stringify({}) });

describe("compaction on demand and the subject's day", () => {
  it("a finished run's summary is reserved first and counted in the subject's day", async () => {
    const subject = freshSubject("compact");
    const { run, token } = await finishedRun(subject, 5);
    expect(run.status).toBe("finished");
    const before = await usage(subject);
    expect(before).toMatchObject({ reservedUsd: 0, spentUsd: run.spentUsd });

    const response = await compact(run.id, token);
    expect(response.status).toBe(202);
    const after = (await response.json()) as RunView;
    expect(after).toMatchObject({ status: "finished" });
    expect(after.spentUsd).toBeGreaterThan(run.spentUsd);
    await settle(run.id);
    // The summary's cost is in the day, and nothing stays held.
    expect(await usage(subject)).toMatchObject({ reservedUsd: 0, spentUsd: after.spentUsd });
    // The listing's summary says what the run spent now.
    const listed = (await (await SELF.fetch(`${BASE}/v1/runs?subject=${encodeURIComponent(subject)}`, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } })).json()) as { runs: { id: string; spentUsd: number }[] };
    expect(listed.runs.find((summary) => summary.id === run.id)?.spentUsd).toBe(after.spentUsd);
    // Again with no new turn: nothing to compact, nothing called, and no hold stays behind.
    expect((await compact(run.id, token)).status).toBe(202);
    expect(await usage(subject)).toMatchObject({ reservedUsd: 0, spentUsd: after.spentUsd });
  });

  it("a summary that does not fit the day is a 402 spend-limit, and nothing is called", async () => {
    const subject = freshSubject("compact-full");
    const { run, token } = await finishedRun(subject, 5);
    // Other runs hold all but a cent of the day.
    const spent = (await usage(subject)).spentUsd;
    await startRun({ subject, budget: { usd: 10 }, messages: [{ role: "user", content: "hold" }], script: [{ text: "x" }] });
    await startRun({ subject, budget: { usd: Math.round((10 - spent - 0.01) * 1e6) / 1e6 }, messages: [{ role: "user", content: "hold" }], script: [{ text: "x" }] });
    const { error } = await expectError(await compact(run.id, token), 402, "spend-limit");
    expect(error.message).toContain("SUBJECT_BUDGET_USD_PER_DAY");
    const view = (await (await api(`/v1/runs/${run.id}`, token)).json()) as RunView;
    expect(view.spentUsd).toBe(run.spentUsd);
    expect((await usage(subject)).leftUsd).toBeCloseTo(0.01, 6);
  });
});
