// An event's stored text made with a shared list of passes spliced on (event-text.ts) and its item
// in a batch of step rows (step-batch.ts eventJson) against JSON.stringify of the same values, on
// seeded random events (quotes, backslashes, control characters, text that is not ASCII, lone
// surrogates); and the lists shared from call to call (loop/guardrails/pass-list.ts).
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/api/types";
import { eventJson } from "../../src/durable/engine/journal/step-batch";
import { eventText, passesTail } from "../../src/durable/events/log/event-text";
import { sharedList, sharedPass } from "../../src/loop/guardrails/pass-list";
import type { GuardrailPass } from "../../src/loop/guardrails/guardrail-types";
import { seededRandom } from "../helpers/seeded-random";

const PIECES = ["a", "Z", " ", '"', "\\", "\n", "\u0001", "\u007f", "é", "語", "\u2028", "😀", "\ud83d", "\ude00", "/", "<", "rm -rf", "0"];

function text(next: () => number, max = 12): string {
  const n = Math.floor(next() * max);
  let out = "";
  for (let i = 0; i < n; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

type ToolCallEvent = Extract<RunEvent, { type: "tool-call" }>;

/** A tool-call event as the run's loop makes it (run-events.ts actionFor: the optional fields after, in this order). */
function toolCall(next: () => number, passes: readonly GuardrailPass[] | undefined): ToolCallEvent {
  const event: ToolCallEvent = { type: "tool-call", step: Math.floor(next() * 1000), callId: text(next), name: text(next), input: { expression: text(next), nested: [text(next), next()] } };
  if (next() < 0.3) event.toolset = text(next);
  if (passes !== undefined) event.guardrailsPassed = passes as GuardrailPass[];
  return event;
}

/** A list of passes as the tool checks make it: shared with the previous one where the same. */
function passList(next: () => number, previous: readonly GuardrailPass[] | undefined): readonly GuardrailPass[] {
  const making: GuardrailPass[] = [];
  const n = 1 + Math.floor(next() * 3);
  for (let i = 0; i < n; i++) making.push(sharedPass(previous, i, ["no-shell", "no-secrets", "small", text(next, 3)][Math.floor(next() * 4)]!, next() < 0.7 ? "The text contains no denied word." : text(next)));
  return sharedList(previous, making);
}

describe("an event's text with its list of passes spliced on", () => {
  it("is JSON.stringify({ seq, at, ...event }), character for character, and its batch item JSON.stringify([seq, dedupe, at, text]), or with a list the text without it and the list's id", () => {
    const next = seededRandom(7);
    let previous: readonly GuardrailPass[] | undefined;
    let spliced = 0;
    for (let i = 0; i < 3_000; i++) {
      const passes = next() < 0.8 ? (previous = passList(next, previous)) : undefined;
      const event = toolCall(next, passes);
      const seq = 1 + Math.floor(next() * 1e9);
      const at = new Date(1_700_000_000_000 + Math.floor(next() * 1e10)).toISOString();
      const logged = eventText(seq, at, event);
      expect(logged.text).toBe(JSON.stringify({ seq, at, ...event }));
      expect(logged.seq).toBe(seq);
      if (logged.tail !== undefined) {
        spliced++;
        expect(logged.head! + logged.tail.text).toBe(logged.text);
      }
      const dedupe = next() < 0.5 ? null : text(next);
      if (logged.tail === undefined) expect(eventJson(seq, dedupe, at, logged.text, logged)).toBe(JSON.stringify([seq, dedupe, at, logged.text]));
      else {
        // Stored without its list, the list's place a closing brace (JSON of the event without it), and the read's splice gives the text back.
        const item = JSON.parse(eventJson(seq, dedupe, at, logged.text, logged)) as [number, string | null, string, string, number];
        expect(item).toEqual([seq, dedupe, at, logged.head! + "}", logged.tail.id]);
        expect(JSON.parse(item[3])).toEqual(JSON.parse(JSON.stringify({ ...JSON.parse(logged.text), guardrailsPassed: undefined })));
        expect(item[3].slice(0, -1) + logged.tail.text).toBe(logged.text);
        expect(Number.isSafeInteger(item[4])).toBe(true);
      }
    }
    // The case it is for was met (every event with a list: frozen, and last).
    expect(spliced).toBeGreaterThan(2_000);
  });

  it("is JSON.stringify's for other events and for a list that is not last, and splices nothing then", () => {
    const list = sharedList(undefined, [sharedPass(undefined, 0, "no-shell", "The text does not match /x/.")]);
    const notLast = { type: "tool-call", step: 1, callId: "c1", guardrailsPassed: list, name: "calculator", input: {} } as unknown as RunEvent;
    const logged = eventText(4, "2026-12-07T00:00:00.000Z", notLast);
    expect(logged.text).toBe(JSON.stringify({ seq: 4, at: "2026-12-07T00:00:00.000Z", ...notLast }));
    expect(logged.tail).toBeUndefined();
    const step: RunEvent = { type: "step", step: 2, spentUsd: 0.25 };
    expect(eventText(5, "2026-12-07T00:00:00.000Z", step)).toEqual({ seq: 5, text: JSON.stringify({ seq: 5, at: "2026-12-07T00:00:00.000Z", ...step }) });
  });

  it("writes a list that could change as it is now: not frozen, or a pass that is not frozen or holds more than its name and reason", () => {
    const open: GuardrailPass[] = [{ name: "a", reason: "one" }];
    const frozenOuter = Object.freeze([{ name: "a", reason: "one" }]);
    const extra = Object.freeze([Object.freeze({ name: "a", reason: "one", more: { x: 1 } })]);
    const getter = Object.freeze([Object.freeze(Object.defineProperty({ name: "a" }, "reason", { get: () => "late", enumerable: true }))]);
    for (const list of [open, frozenOuter, extra, getter] as unknown as readonly GuardrailPass[][]) expect(passesTail(list)).toBeUndefined();
    const event: ToolCallEvent = { type: "tool-call", step: 1, callId: "c1", name: "calculator", input: {}, guardrailsPassed: open };
    expect(eventText(1, "t", event).text).toContain('"reason":"one"');
    open[0] = { name: "a", reason: "two" };
    expect(eventText(1, "t", event).text).toBe(JSON.stringify({ seq: 1, at: "t", ...event }));
    expect(eventText(1, "t", event).text).toContain('"reason":"two"');
  });

  it("makes a batch item JSON.stringify's when the body is not the event's text (a spilled text's reference); with the text, the text without its list and the list's id", () => {
    const list = sharedList(undefined, [sharedPass(undefined, 0, "no-shell", 'a "quoted" reason')]);
    const event: ToolCallEvent = { type: "tool-call", step: 1, callId: "c1", name: "calculator", input: {}, guardrailsPassed: list as GuardrailPass[] };
    const logged = eventText(3, "t", event);
    expect(logged.tail).toBeDefined();
    expect(eventJson(3, null, "t", "spill:event/3", logged)).toBe(JSON.stringify([3, null, "t", "spill:event/3"]));
    expect(eventJson(3, null, "t", logged.text, logged)).toBe(JSON.stringify([3, null, "t", `${logged.head!}}`, logged.tail!.id]));
  });
});

describe("the lists of passes shared from call to call", () => {
  it("gives the previous list's pass and the previous list when the same, a new frozen one otherwise", () => {
    const first = sharedList(undefined, [sharedPass(undefined, 0, "a", "one"), sharedPass(undefined, 1, "b", "two")]);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.every((pass) => Object.isFrozen(pass))).toBe(true);
    const again = [sharedPass(first, 0, "a", "one"), sharedPass(first, 1, "b", "two")];
    expect(again[0]).toBe(first[0]);
    expect(sharedList(first, again)).toBe(first);
    const changed = [sharedPass(first, 0, "a", "one"), sharedPass(first, 1, "b", "three")];
    expect(changed[0]).toBe(first[0]);
    expect(changed[1]).not.toBe(first[1]);
    expect(changed[1]).toEqual({ name: "b", reason: "three" });
    const second = sharedList(first, changed);
    expect(second).not.toBe(first);
    expect(second).toEqual([{ name: "a", reason: "one" }, { name: "b", reason: "three" }]);
    // Shorter and longer lists are lists of their own.
    expect(sharedList(first, [sharedPass(first, 0, "a", "one")])).toEqual([{ name: "a", reason: "one" }]);
    expect(sharedList(first, [first[0]!, first[1]!, sharedPass(first, 2, "c", "x")])).toHaveLength(3);
    // A name that differs is a pass of its own even with the same reason.
    expect(sharedPass(first, 0, "z", "one")).not.toBe(first[0]);
  });
});
