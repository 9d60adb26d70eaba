// spillsFrom (src/durable/storage/spill.ts): whether a text is spilled, read from a start the text
// begins with (a rope's first part, so that the rope is not made flat), is spills(text) itself —
// on seeded random starts and ends around the mark and the inline limit; and a spliced event's
// check (event-log.ts eventSpills) is its text's.
import { describe, expect, it } from "vitest";
import { eventSpills } from "../../src/durable/events/log/event-log";
import { eventText } from "../../src/durable/events/log/event-text";
import { INLINE_MAX_BYTES, spills, spillsFrom } from "../../src/durable/storage/spill";
import { seededRandom } from "../helpers/seeded-random";

const PIECES = ["@", "@spill", "@spill:", "spill:", ":", "{", "a", "é", "語", "😀", ""];

describe("spillsFrom", () => {
  it("is spills(text) for a text that begins with the start given, whatever the start's length", () => {
    const next = seededRandom(11);
    const pick = () => PIECES[Math.floor(next() * PIECES.length)]!;
    let marked = 0;
    for (let i = 0; i < 5_000; i++) {
      const start = pick() + pick() + (next() < 0.3 ? pick() : "");
      const rest = pick() + pick();
      const text = start + rest;
      if (spills(text)) marked++;
      expect(spillsFrom(text, start)).toBe(spills(text));
    }
    expect(marked).toBeGreaterThan(100);
    // Past the inline limit: spilled whatever the start (3 bytes a character at most, then counted).
    const long = "{" + "語".repeat(INLINE_MAX_BYTES / 3 + 1);
    expect(spillsFrom(long, "{")).toBe(true);
    const fits = "{" + "a".repeat(INLINE_MAX_BYTES - 1);
    expect([spillsFrom(fits, "{a"), spills(fits)]).toEqual([false, false]);
  });

  it("a spliced event's check is its text's", () => {
    const list = Object.freeze([Object.freeze({ name: "small", reason: "3 characters, at most 9." })]);
    const logged = eventText(3, "t", { type: "tool-call", step: 1, callId: "c1", name: "calculator", input: { expression: "1" }, guardrailsPassed: list as never });
    expect(logged.head).toBeDefined();
    expect(eventSpills(logged)).toBe(spills(logged.text));
    const big = eventText(4, "t", { type: "tool-call", step: 1, callId: "c1", name: "calculator", input: { expression: "x".repeat(INLINE_MAX_BYTES) }, guardrailsPassed: list as never });
    expect([eventSpills(big), spills(big.text)]).toEqual([true, true]);
  });
});
