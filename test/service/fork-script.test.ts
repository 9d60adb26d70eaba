// A fork of a scripted run may bring a script of its own, so a fork can go its own way offline:
// its first turn is the fork's first live model call (the prefix is replayed from the journal).
// Without one it plays the source's next turn again, as before.
import { describe, expect, it } from "vitest";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

async function scriptedSource() {
  const { run } = await startRun({
    provider: "scripted",
    messages: [{ role: "user", content: "Count." }],
    tools: ["calculator"],
    minAnswerChars: 0,
    script: [{ text: "One.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1 + 1" } }], costUsd: 0.001 }, { text: "The source's answer.", costUsd: 0.002 }],
  });
  await driveRun(run.id);
  return run.id;
}

async function fork(id: string, body: Record<string, unknown>) {
  const answer = await api(`/v1/runs/${id}/fork`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify(body) });
  expect(answer.status, await answer.clone().text()).toBe(201);
  const { run, token } = (await answer.json()) as { run: { id: string }; token: string };
  await driveRun(run.id);
  return getRun(run.id, token);
}

describe("a fork's own script", () => {
  it("plays from the fork's first live model call", async () => {
    const source = await scriptedSource();
    const view = await fork(source, { atStep: 1, script: [{ text: "The fork's own answer.", costUsd: 0.003 }] });
    expect(view).toMatchObject({ status: "finished", finalText: "The fork's own answer.", steps: 2, spentUsd: 0.003, inheritedUsd: 0.001 });
  });

  it("without one, the fork plays the source's next turn", async () => {
    const source = await scriptedSource();
    const view = await fork(source, { atStep: 1 });
    expect(view).toMatchObject({ status: "finished", finalText: "The source's answer." });
  });

  it("a script that fails the schema is a 400 at its path", async () => {
    const source = await scriptedSource();
    const answer = await api(`/v1/runs/${source}/fork`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ atStep: 1, script: [{ delayMs: -1 }] }) });
    expect(answer.status).toBe(400);
    const { error } = (await answer.json()) as { error: { issues: { path: string }[] } };
    expect(error.issues[0]!.path).toMatch(/^script\.0/);
  });
});
