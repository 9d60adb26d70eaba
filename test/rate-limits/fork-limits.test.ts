// A fork is a new run: counted against the run-creation limits as POST /v1/runs is. This project's
// Worker allows 3 creations per subject a minute (SUBJECT_CREATE_RATE_LIMIT): a user token's run
// and two forks by its run token fit, the third fork is 429.
import { describe, expect, it } from "vitest";
import { script, uniqueModel } from "../fake-anthropic/client";
import { bearer, expectError, postJson } from "../helpers/http";
import { driveRun } from "../helpers/service-client";

describe("429 rate-limited: forks count as creations", () => {
  it("a run token's forks count against SUBJECT_CREATE_RATE_LIMIT of the source's subject", async () => {
    const subject = `fork-limited-${crypto.randomUUID()}`;
    const minted = (await (await postJson("/v1/tokens", { subject })).json()) as { token: string };
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ text: "The one answer of the source run, long enough to be a whole answer." }]);
    const created = await postJson("/v1/runs", { provider: "anthropic", model, messages: [{ role: "user", content: "hi" }], minAnswerChars: 0 }, bearer(minted.token));
    expect(created.status).toBe(201);
    const { run, token } = (await created.json()) as { run: { id: string }; token: string };
    await driveRun(run.id);
    const fork = () => postJson(`/v1/runs/${run.id}/fork`, { atStep: 1 }, bearer(token));
    expect((await fork()).status).toBe(201);
    expect((await fork()).status).toBe(201);
    const refused = await fork();
    expect(refused.headers.get("retry-after")).toBe("60");
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("subject");
  });
});
