// GET /v1/runs/:id with a run or user token asks the run's object once: the token's check and the
// view in one call (viewFor; requireRun's `view`). What each caller gets is what it got from the
// check and the view asked one after the other: the view to the run's token, its parent's token and
// its subject's user token, the deployment token's view; 404 to another run's token or subject.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/text/encoding";
import { expectError } from "../helpers/http";
import { freshSubject, userToken } from "../helpers/inbox";
import { stubFor, valueOf } from "../helpers/runs";
import { api, driveRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const hi = [{ role: "user", content: "hi" }];

describe("GET /v1/runs/:id: the token's check and the view in one call", () => {
  it("the run's token and its subject's user token see the deployment token's view; another run's token and another subject get 404", async () => {
    const subject = freshSubject("view");
    const { run, token } = await startRun({ subject, messages: hi, script: [{ text: "Done." }], minAnswerChars: 0 });
    await driveRun(run.id);
    const deployment = await (await api(`/v1/runs/${run.id}`, TEST_API_TOKEN)).json();
    expect(deployment).toMatchObject({ id: run.id, status: "finished", subject });

    const byToken = await api(`/v1/runs/${run.id}`, token);
    expect(byToken.status).toBe(200);
    expect(await byToken.json()).toEqual(deployment);
    const byUser = await api(`/v1/runs/${run.id}`, await userToken(subject));
    expect(byUser.status).toBe(200);
    expect(await byUser.json()).toEqual(deployment);

    const other = await startRun({ messages: hi, script: [{ text: "Other." }], minAnswerChars: 0 });
    await expectError(await api(`/v1/runs/${run.id}`, other.token), 404, "not-found");
    await expectError(await api(`/v1/runs/${run.id}`, await userToken(freshSubject("other"))), 404, "not-found");
  });

  it("viewFor answers the view to the run's token and subject, and null (nothing read) to anyone else", async () => {
    const subject = freshSubject("view-for");
    const { run, token } = await startRun({ subject, messages: hi, script: [{ text: "Done." }], minAnswerChars: 0 });
    const stub = stubFor(run.id);
    const view = valueOf(await stub.view());
    expect(valueOf((await stub.viewFor({ tokenHash: await sha256Hex(token) }))!)).toEqual(view);
    expect(valueOf((await stub.viewFor({ subject }))!)).toEqual(view);
    expect(await stub.viewFor({ tokenHash: await sha256Hex(`${token}x`) })).toBeNull();
    expect(await stub.viewFor({ subject: `${subject}-other` })).toBeNull();
  });
});
