// A real crash under child runs (docs/children.md): 3 parents each hand 2 agent calls out at once;
// each child makes two slow HTTP tool calls. wrangler dev is SIGKILLed (its whole process group)
// while the children are mid-run, then started again on the same --persist-to. Every child is
// created once (one child-started per call, one run-started in each child's log), no model or tool
// call finished before the kill runs again (counted at the tool server and in the stored events),
// and every parent finishes with both children's answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRun, getMessages, getRun, type Created } from "./support/api";
import { startDevServer, type DevServer } from "./support/dev-server";
import { httpTool } from "./support/scripts";
import { watchRun } from "./support/run-watch";
import { readEventsUntilEnd, type SseEvent } from "./support/sse";
import { startToolServer, type ToolServer } from "./support/tool-server";
import { freePort } from "./support/http-server";

const PARENTS = 3;
const PORT = await freePort();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type ChildView = { id: string; callId: string; status: string; spentUsd: number };
type ParentView = { status: string; finalText?: string; children?: ChildView[] };

function childScript(label: string) {
  return [
    { text: `${label} one.`, toolCalls: [{ id: "w1", name: "work", input: { n: 1 } }], delayMs: 300, costUsd: 0.001 },
    { text: `${label} two.`, toolCalls: [{ id: "w2", name: "work", input: { n: 2 } }], delayMs: 300, costUsd: 0.001 },
    { text: `${label}: answered.`, delayMs: 300, costUsd: 0.001 },
  ];
}

function agent(name: string, tools: ToolServer) {
  return { type: "agent", name, description: `${name}: a helper`, run: { provider: "scripted", model: "scripted-model", minAnswerChars: 0, maxSteps: 5, budget: { usd: 0.05 }, tools: [httpTool("work", `${tools.url}/work`)], script: childScript(name) } };
}

async function parentView(dev: DevServer, run: Created): Promise<ParentView> {
  return (await getRun(dev.url, run.id, run.token)) as unknown as ParentView;
}

const ofType = (events: SseEvent[], type: string) => events.filter((event) => event.data.type === type);
const before = (events: SseEvent[], at: number) => events.filter((event) => Date.parse(String(event.data.at)) < at);

describe("a real crash of wrangler dev with child runs", () => {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-crash-children-"));
  let dev: DevServer | undefined;
  let tools: ToolServer | undefined;
  afterAll(async () => {
    await dev?.kill();
    await tools?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("3 parents × 2 children: every child created once, no finished call repeated, every parent finishes", async () => {
    tools = await startToolServer(700);
    dev = await startDevServer({ port: PORT, persistTo: dir });
    const parents: Created[] = [];
    for (let i = 0; i < PARENTS; i++) {
      parents.push(
        await createRun(dev.url, "dev-token", {
          messages: [{ role: "user", content: `parent ${i}` }],
          minAnswerChars: 0,
          budget: { usd: 1 },
          tools: [agent("alpha", tools), agent("beta", tools)],
          script: [
            { text: "Handing out.", toolCalls: [{ id: "a", name: "alpha", input: { task: `alpha ${i}` } }, { id: "b", name: "beta", input: { task: `beta ${i}` } }], delayMs: 200, costUsd: 0.001 },
            { text: "Parent done.", delayMs: 200, costUsd: 0.001 },
          ],
        }),
      );
    }

    // Kill when every parent has started both children, some tool calls of the children have
    // been answered and others are in flight at the tool server.
    const childIds: string[] = [];
    for (const parent of parents) {
      let view = await parentView(dev, parent);
      for (let i = 0; i < 300 && (view.children?.length ?? 0) < 2; i++) {
        await sleep(100);
        view = await parentView(dev, parent);
      }
      expect(view.children?.length).toBe(2);
      childIds.push(...view.children!.map((child) => child.id));
    }
    // The children watched with the parents' tokens: a tool-result a client saw was stored.
    const watches = childIds.map((id, index) => watchRun({ base: dev!.url, id, token: parents[Math.floor(index / 2)]!.token, deadlineMs: 60_000 }));
    const stored = () => watches.reduce((sum, watch) => sum + watch.events.filter((event) => event.type === "tool-result").length, 0);
    await Promise.all(watches.map((watch) => watch.until(() => stored() >= 2, 60_000, () => `no tool result stored:\n${dev!.output()}`)));
    const inFlightNow = () => [...tools!.calls.keys()].filter((key) => !tools!.answered.has(key));
    await tools.until(() => tools!.answered.size >= 2 && inFlightNow().length > 0, 60_000, () => `children made no tool calls:\n${dev!.output()}`);
    const inFlight = inFlightNow();
    await dev.kill();
    const killedAt = Date.now();
    for (const watch of watches) watch.close();
    expect(inFlight.length).toBeGreaterThan(0);
    const storedAtKill = stored();
    const callsAtKill = new Map(tools.calls);

    // Restart on the same storage. The children go on by their own alarms and report to their
    // parents through their outboxes; the parents are only read, never answered or stepped by a client.
    dev = await startDevServer({ port: PORT, persistTo: dir });
    const views: ParentView[] = [];
    for (const parent of parents) {
      let view = await parentView(dev, parent);
      for (let i = 0; i < 600 && view.status === "running"; i++) {
        await sleep(200);
        view = await parentView(dev, parent);
      }
      views.push(view);
    }

    const allChildIds: string[] = [];
    let finishedChecked = 0;
    for (const [index, parent] of parents.entries()) {
      const view = views[index]!;
      expect(view, dev.output()).toMatchObject({ status: "finished", finalText: "Parent done." });
      expect(view.children!.map((child) => [child.callId, child.status])).toEqual([
        ["a", "finished"],
        ["b", "finished"],
      ]);
      const parentEvents = await readEventsUntilEnd(`${dev.url}/v1/runs/${parent.id}/events`, parent.token);
      // One start per call: the replay reached the child it had made.
      const startedEvents = ofType(parentEvents, "child-started").map((event) => [event.data.callId, event.data.childId]);
      expect(startedEvents).toEqual(view.children!.map((child) => [child.callId, child.id]));
      expect(ofType(parentEvents, "child-ended").map((event) => event.data.childId).sort()).toEqual(view.children!.map((child) => child.id).sort());
      expect(ofType(parentEvents, "model").map((event) => event.data.step)).toEqual([1, 2]);
      const seqs = parentEvents.map((event) => Number(event.id));
      expect(seqs).toEqual(seqs.map((_s, i) => i + 1));
      const results = (await getMessages(dev.url, parent.id, parent.token)).filter((message) => message.role === "tool");
      expect(results.map((message) => [message.toolCallId, message.content])).toEqual([
        ["a", "alpha: answered."],
        ["b", "beta: answered."],
      ]);

      for (const child of view.children!) {
        allChildIds.push(child.id);
        const events = await readEventsUntilEnd(`${dev.url}/v1/runs/${child.id}/events`, parent.token);
        const childSeqs = events.map((event) => Number(event.id));
        expect(childSeqs).toEqual(childSeqs.map((_s, i) => i + 1));
        // Created once: one run-started in its log, and its tool calls are all its own keys.
        expect(ofType(events, "run-started")).toHaveLength(1);
        // No model call repeated: each step's model event once, in order.
        expect(ofType(events, "model").map((event) => event.data.step)).toEqual([1, 2, 3]);
        const toolResults = ofType(events, "tool-result").map((event) => `${event.data.step}/${event.data.callId}`);
        expect(toolResults).toEqual(["1/w1", "2/w2"]);
        const keys = [...tools.calls.keys()].filter((key) => key.startsWith(`${child.id}/`));
        expect(keys).toHaveLength(2);
        // A tool call whose result was stored before the kill never went out again.
        for (const result of ofType(before(events, killedAt), "tool-result")) {
          finishedChecked++;
          const key = keys.find((candidate) => candidate.endsWith(`/tool/${result.data.step}/${result.data.callId}`))!;
          expect(tools.calls.get(key), key).toBe(1);
        }
        // A call in flight at the kill went out at most once more, with the same Idempotency-Key.
        for (const key of keys) expect(tools.calls.get(key), key).toBeLessThanOrEqual((callsAtKill.get(key) ?? 0) + 1);
      }
    }
    expect(new Set(allChildIds).size).toBe(PARENTS * 2);
    expect(allChildIds.sort()).toEqual([...childIds].sort());
    // Every tool result a client saw before the kill was checked above (and maybe more).
    expect(finishedChecked).toBeGreaterThanOrEqual(storedAtKill);
    // No tool call from a run that is not one of the six children.
    const callers = new Set([...tools.calls.keys()].map((key) => key.split("/")[0]));
    expect([...callers].sort()).toEqual([...allChildIds].sort());
        console.log(`[crash-children] ${PARENTS} parents × 2 children; ${callsAtKill.size} tool calls made before SIGKILL (${inFlight.length} in flight, ${finishedChecked} with their results stored: none sent again), ${[...tools.calls.values()].filter((count) => count === 2).length} resent with the same Idempotency-Key`);
  }, 300_000);
});
