// The A2A door's rate limits are the API's: a message that starts a run of a stored agent counts as
// POST /v1/runs does. This project's Worker allows 3 creations per subject a minute
// (SUBJECT_CREATE_RATE_LIMIT): a user token's fourth new task is 429 in the API's error shape, and
// a message to a task it already has is no creation.
import { describe, expect, it } from "vitest";
import { makeAgent, agentName, scriptedTemplate } from "../helpers/agents";
import { bearer, expectError, postJson } from "../helpers/http";

describe("429 rate-limited: A2A messages that start runs count as creations", () => {
  it("a user token's fourth new task of one subject in a minute is refused; GetTask on one it has is not a creation", async () => {
    const name = agentName("limited");
    await makeAgent({ name, run: scriptedTemplate("Hello.") });
    const minted = (await (await postJson("/v1/tokens", { subject: `a2a-limited-${crypto.randomUUID()}` })).json()) as { token: string };
    const send = (text: string) =>
      postJson(`/a2a/${name}`, { jsonrpc: "2.0", id: text, method: "SendMessage", params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] }, configuration: { returnImmediately: true } } }, bearer(minted.token));
    const tasks: string[] = [];
    for (const text of ["one", "two", "three"]) {
      const answer = (await (await send(text)).json()) as { result: { task: { id: string } } };
      tasks.push(answer.result.task.id);
    }
    const refused = await send("four");
    expect(refused.headers.get("retry-after")).toBe("60");
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("subject");
    const read = await postJson(`/a2a/${name}`, { jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: tasks[0] } }, bearer(minted.token));
    expect(await read.json()).toMatchObject({ id: 5, result: { id: tasks[0], status: { state: "TASK_STATE_WORKING" } } });
  });
});
