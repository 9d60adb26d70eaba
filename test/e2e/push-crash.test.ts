// A push survives a real crash: a run of a subscribed subject starts waiting, its inbox sends the
// push, and wrangler dev is SIGKILLed (its whole process group) while the push is in flight (the
// local push service holds it unanswered); started again on the same --persist-to, with no client
// call, the inbox's alarm sends the push again and the push service takes it — verified (VAPID,
// decrypted with http_ece) and the same payload.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startPushService, type PushService } from "../push-service/server";
import { createRun, request } from "./support/api";
import { startDevServer, type DevServer } from "./support/dev-server";
import { LOCAL_TOKEN, localVars } from "./support/local-vars";
import { freePort } from "./support/http-server";

const PORT = await freePort();

describe("a push and a real crash of wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-push-crash-"));
  let dev: DevServer | undefined;
  let service: PushService | undefined;

  afterAll(async () => {
    await dev?.kill();
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("SIGKILL between the run's wait and the push's answer: after the restart the push is delivered, by itself", async () => {
    service = await startPushService(localVars().VAPID_PUBLIC_KEY!);
    const vars = { PUSH_HOSTS: "http://127.0.0.1" };
    dev = await startDevServer({ port: PORT, persistTo: dir, vars });
    const subject = `crash-${Date.now()}`;
    const subscription = service.subscribe({ hold: 1 });
    const subscribed = await request(dev.url, `/v1/push/subscriptions?subject=${subject}`, LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ endpoint: subscription.endpoint, keys: subscription.keys }) });
    expect(subscribed.status).toBe(201);
    const created = await createRun(dev.url, LOCAL_TOKEN, { provider: "scripted", subject, messages: [{ role: "user", content: "hi" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Still there?" } }] }, { text: "Yes." }] });
    // The push is in flight: the push service has it and has not answered.
    await service.until(() => service!.pushes(subscription.id).length === 1, 30_000, () => "the first push never arrived");
    expect(service.pushes(subscription.id)[0]).toMatchObject({ held: true, verified: true });
    await dev.kill();

    dev = await startDevServer({ port: PORT, persistTo: dir, vars });
    // No request touches the run or the inbox: the inbox's alarm (the attempt's lease, 15 s) sends it again.
    await service.until(() => service!.pushes(subscription.id).length >= 2, 90_000, () => `the push was not sent again after the restart (${service!.pushes(subscription.id).length} arrived)`);
    const [first, second] = service.pushes(subscription.id);
    expect(second).toMatchObject({ verified: true, answered: 201 });
    expect(second!.problems).toEqual([]);
    expect(second!.payload).toEqual(first!.payload);
    expect(second!.payload).toMatchObject({ runId: created.run.id, kind: "run.waiting", question: "Still there?" });
    const listed = (await (await request(dev.url, `/v1/push/subscriptions?subject=${subject}`, LOCAL_TOKEN)).json()) as { subscriptions: { lastStatus?: number }[] };
    expect(listed.subscriptions[0]?.lastStatus).toBe(201);
  });
});
