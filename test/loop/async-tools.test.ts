// Tools that answer later: every start of a turn is made before any wait, and a wait without a
// result yet suspends the loop (ToolPending passes through, nothing is stored), so a caller can
// run the loop again when results arrive, in any order, without starting a job twice.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolLoop, ToolPending } from "../../src/loop";
import type { AnyToolSpec, LoopEvent, RunToolLoopOptions, ToolSpec } from "../../src/loop";
import { memoryJournal, type MemoryJournal } from "../helpers/journal";
import { call, echoTool, scriptedModel } from "../helpers/scripted";

const user = [{ role: "user" as const, content: "go" }];

type Jobs = { starts: string[]; waits: string[]; results: Map<string, string> };

/** A start + wait tool whose results a test hands in by job name; a wait without one is pending. */
function asyncJob(jobs: Jobs, name = "job", costUsd = 0.1): ToolSpec<{ n: number }> {
  return {
    name,
    description: "An outside job that answers later.",
    schema: z.object({ n: z.number() }),
    start: async ({ n }, context) => {
      jobs.starts.push(context.key);
      return { handle: { job: `${name}-${n}` }, costUsd };
    },
    wait: async (handle, context) => {
      jobs.waits.push(context.key);
      const job = (handle as { job: string }).job;
      const result = jobs.results.get(job);
      if (result === undefined) throw new ToolPending(context.key);
      return { content: result, costUsd: 0.01 };
    },
  };
}

function jobs(): Jobs {
  return { starts: [], waits: [], results: new Map() };
}

function loop(journal: MemoryJournal, tools: AnyToolSpec[], turns: Parameters<typeof scriptedModel>[0], extra: Partial<RunToolLoopOptions> = {}) {
  return runToolLoop({ generate: scriptedModel(turns).generate, model: "m", messages: user, tools, minAnswerChars: 0, step: journal.step, ...extra });
}

const threeJobs = [
  { toolCalls: [call("job", { n: 1 }, "a"), call("job", { n: 2 }, "b"), call("job", { n: 3 }, "c")], costUsd: 0.001 },
  { text: "All three answered.", costUsd: 0.001 },
];

describe("start + wait tools that answer later", () => {
  it("every start of a turn is made, in call order, before the first wait", async () => {
    const j = jobs();
    for (const n of [1, 2, 3]) j.results.set(`job-${n}`, `result ${n}`);
    const journal = memoryJournal();
    const result = await loop(journal, [asyncJob(j)], threeJobs);
    expect(journal.worked).toEqual(["model/1", "start/1/a", "start/1/b", "start/1/c", "wait/1/a", "wait/1/b", "wait/1/c", "model/2"]);
    // Answers stay in call order in the history.
    expect(result.messages.slice(2, 5)).toEqual([
      { role: "tool", toolCallId: "a", content: "result 1" },
      { role: "tool", toolCallId: "b", content: "result 2" },
      { role: "tool", toolCallId: "c", content: "result 3" },
    ]);
    // Each start's cost counts once, though the turn's second pass reads it again.
    expect(result.spentUsd).toBeCloseTo(0.002 + 3 * 0.1 + 3 * 0.01, 10);
  });

  it("a wait with no result suspends the loop: ToolPending passes through unchanged, nothing is stored, no stop is emitted", async () => {
    const j = jobs();
    const journal = memoryJournal();
    const events: LoopEvent[] = [];
    const error = await loop(journal, [asyncJob(j)], threeJobs, { onStep: (event) => events.push(event) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolPending);
    expect((error as ToolPending).key).toBe("wait/1/a");
    expect([...journal.store.keys()]).toEqual(["model/1", "start/1/a", "start/1/b", "start/1/c"]);
    expect(events.some((event) => event.type === "stop")).toBe(false);
    expect(events.filter((event) => event.type === "tool-call").map((event) => (event as { key: string }).key)).toEqual(["start/1/a", "start/1/b", "start/1/c"]);
  });

  it("results arriving in reverse order: each rerun starts nothing again and the turn goes on when all have answered", async () => {
    const j = jobs();
    const store = new Map<string, unknown>();
    await expect(loop(memoryJournal(store), [asyncJob(j)], threeJobs)).rejects.toBeInstanceOf(ToolPending);

    j.results.set("job-3", "third");
    const second = memoryJournal(store);
    await expect(loop(second, [asyncJob(j)], threeJobs)).rejects.toMatchObject({ key: "wait/1/a" });
    // The first call still has no result: the loop waits in call order, so nothing new is stored.
    expect(second.worked).toEqual(["wait/1/a"]);

    j.results.set("job-2", "second");
    await expect(loop(memoryJournal(store), [asyncJob(j)], threeJobs)).rejects.toMatchObject({ key: "wait/1/a" });

    j.results.set("job-1", "first");
    const last = memoryJournal(store);
    const result = await loop(last, [asyncJob(j)], threeJobs);
    expect(last.worked).toEqual(["wait/1/a", "wait/1/b", "wait/1/c", "model/2"]);
    expect(j.starts).toEqual(["start/1/a", "start/1/b", "start/1/c"]);
    expect(result).toMatchObject({ stoppedBy: "done", finalText: "All three answered." });
    expect(result.messages.slice(2, 5).map((m) => (m as { content: string }).content)).toEqual(["first", "second", "third"]);
  });

  it("in a mixed turn the jobs start first; other calls run in call order while the jobs work", async () => {
    const j = jobs();
    j.results.set("job-1", "done");
    const echo = echoTool();
    const journal = memoryJournal();
    await loop(journal, [asyncJob(j), echo], [
      { toolCalls: [call("echo", { text: "x" }, "e1"), call("job", { n: 1 }, "j1"), call("echo", { text: "y" }, "e2")] },
      { text: "ok" },
    ]);
    expect(journal.worked).toEqual(["model/1", "start/1/j1", "tool/1/e1", "wait/1/j1", "tool/1/e2", "model/2"]);
  });

  it("a suspended loop that is cancelled answers its open calls 'Not run: cancel.' and waits on nothing", async () => {
    const j = jobs();
    const store = new Map<string, unknown>();
    await expect(loop(memoryJournal(store), [asyncJob(j)], threeJobs)).rejects.toBeInstanceOf(ToolPending);
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const waitsBefore = j.waits.length;
    const result = await loop(memoryJournal(store), [asyncJob(j)], threeJobs, { signal: controller.signal });
    expect(result.stoppedBy).toBe("cancel");
    expect(j.waits).toHaveLength(waitsBefore);
    expect(result.messages.slice(2)).toEqual(["a", "b", "c"].map((id) => ({ role: "tool", toolCallId: id, content: "Not run: cancel.", isError: true })));
  });

  it("jobs after a finish tool are not started unless the finish tool fails", async () => {
    const j = jobs();
    j.results.set("job-1", "one");
    const submit: ToolSpec<{ ok: boolean }> = {
      name: "submit",
      description: "Submit.",
      schema: z.object({ ok: z.boolean() }),
      run: async ({ ok }) => (ok ? { content: "submitted", value: "final" } : { content: "rejected", isError: true }),
    };
    // With a finish tool a text-only answer would get a reminder; the run ends by submitting again.
    const turn = (ok: boolean) => [{ toolCalls: [call("job", { n: 1 }, "j1"), call("submit", { ok }, "s"), call("job", { n: 2 }, "j2")] }, { toolCalls: [call("submit", { ok: true }, "s2")] }];
    const finished = memoryJournal();
    const result = await loop(finished, [asyncJob(j), submit], turn(true), { finishTools: ["submit"] });
    expect(result.stoppedBy).toBe("finish-tool");
    expect(finished.worked).toEqual(["model/1", "start/1/j1", "wait/1/j1", "tool/1/s"]);
    expect(result.messages.at(-1)).toEqual({ role: "tool", toolCallId: "j2", content: "Not run: finish-tool.", isError: true });

    j.results.set("job-2", "two");
    const failed = memoryJournal();
    await loop(failed, [asyncJob(j), submit], turn(false), { finishTools: ["submit"] });
    expect(failed.worked).toEqual(["model/1", "start/1/j1", "wait/1/j1", "tool/1/s", "start/1/j2", "wait/1/j2", "model/2", "tool/2/s2"]);
  });

  it("a wait that throws another error is still a tool error the model sees", async () => {
    const broken: ToolSpec<{ n: number }> = {
      ...asyncJob(jobs()),
      wait: async () => {
        throw new Error("job lost");
      },
    };
    const result = await loop(memoryJournal(), [broken], [{ toolCalls: [call("job", { n: 1 }, "a")] }, { text: "sorry" }]);
    expect(result.messages[2]).toEqual({ role: "tool", toolCallId: "a", content: "Tool error: job lost", isError: true });
  });
});
