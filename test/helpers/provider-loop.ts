// runToolLoop with a real provider against its fake server (test/providers/*-loop.test.ts): a run
// with the suites' defaults, and the resume test that every provider passes the same way.
import { describe, expect, it } from "vitest";
import { runToolLoop } from "../../src/loop";
import { Crash, crashingJournal, memoryJournal } from "./journal";
import { echoTool } from "./scripted";

type LoopOptions = Parameters<typeof runToolLoop>[0];
export type LoopRun = (model: string, more?: Partial<LoopOptions>) => ReturnType<typeof runToolLoop>;

/**
 * A run on a fresh `generate`: one question, the echo tool, a fresh memory journal, and no
 * short-answer check (the suites' scripts end on short answers); `more` overrides any of them.
 */
export function loopRunner(generate: () => LoopOptions["generate"]): LoopRun {
  return (model, more = {}) =>
    runToolLoop({
      generate: generate(),
      model,
      system: "You are a careful assistant.",
      messages: [{ role: "user", content: "Please help." }],
      tools: [echoTool()],
      minAnswerChars: 0,
      step: memoryJournal().step,
      ...more,
    });
}

type Turn = { text: string; toolCalls?: Array<{ id: string; name: string; input: { text: string } }> };

/** The vendor's fake server: a fresh model name, its script, and the raw requests it recorded. */
export type FakeVendor = {
  uniqueModel: () => string;
  script: (model: string, turns: Turn[]) => Promise<unknown>;
  recorded: (model: string) => Promise<Array<{ raw: string }>>;
};

/** A run that dies in the middle of a model step sends, once resumed, the very requests of a run that did not. */
export function resumeMidRun(run: LoopRun, fake: FakeVendor, callPrefix: string, more: Partial<LoopOptions> = {}): void {
  describe("resume mid-run", () => {
    it("a run that dies in the middle of a model step sends byte-identical requests when it resumes", async () => {
      const turns: Turn[] = [
        ...Array.from({ length: 4 }, (_v, i) => ({ text: `Step ${i}.`, toolCalls: [{ id: `${callPrefix}${i}`, name: "echo", input: { text: `item ${i}` } }] })),
        { text: "Finished." },
      ];
      const reference = fake.uniqueModel();
      const resumed = fake.uniqueModel();
      await fake.script(reference, turns);
      await fake.script(resumed, turns);
      const options = { system: "S ".repeat(800), messages: [{ role: "user" as const, content: "Go through the items." }], maxSteps: 8, ...more };
      await run(reference, options);

      // Fresh steps: model/1, tool/1, model/2, tool/2, model/3 (index 4) dies after its request was sent.
      const store = new Map<string, unknown>();
      await expect(run(resumed, { ...options, step: crashingJournal(store, { at: 4, where: "inside-work" }).step })).rejects.toBeInstanceOf(Crash);
      const result = await run(resumed, { ...options, step: memoryJournal(store).step });
      expect(result).toMatchObject({ stoppedBy: "done", finalText: "Finished." });

      const sent = (await fake.recorded(resumed)).map((request) => request.raw.replaceAll(resumed, reference));
      const expected = (await fake.recorded(reference)).map((request) => request.raw);
      expect(sent).toHaveLength(expected.length + 1);
      expect(sent[2]).toBe(sent[3]);
      expect([...sent.slice(0, 3), ...sent.slice(4)]).toEqual(expected);
    });
  });
}
