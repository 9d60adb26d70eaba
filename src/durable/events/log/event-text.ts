// An event's stored text: `JSON.stringify({ seq, at, ...event })`, the exact JSON clients get. A
// `tool-call` event's `guardrailsPassed` (the data checks its call passed) is most often the very
// list the call before carried, frozen (loop/guardrails/pass-list.ts): its JSON is made once per
// list (with its id, and as a JSON string's characters) and spliced onto the end of the event's
// text, instead of being written again with every call (BENCHMARKS.md, issue 50). The text is the
// one JSON.stringify makes, character for character (test/durable/event-text.test.ts). A run's
// batch of step rows stores such a list once, in `pass_list` under its id, and the event's row
// without it (../../engine/journal/step-batch.ts); a read puts it back (event-log.ts, eventsAfter).
import type { InboxEvent, RunEvent } from "../../../api/types";
import type { ExperimentEvent } from "../../../api/resources/eval-types";
import { Recent } from "../../../lib/recent";
import { hash53Number } from "../../../lib/hashing/cyrb53";

/** What an event log holds: a run's events, an inbox's, an experiment's. */
export type LogEvent = RunEvent | InboxEvent | ExperimentEvent;

/**
 * A `tool-call` event's passes as the end of its text (`,"guardrailsPassed":[…]}`), that end as the
 * characters of a JSON string, and its id where a run stores it once (`pass_list`: the text's
 * 53-bit hash; a clash with a stored list of another text is refused by the statement: step-batch.ts).
 */
export type PassesTail = { text: string; json: string; id: number };

/**
 * An event as written: its seq and text. `head` and `tail` are given when the text is `head` and
 * then `tail.text` (a spliced list of passes), so that the text need not be escaped whole again.
 */
export type LoggedEvent = { seq: number; text: string; head?: string; tail?: PassesTail };

/** A frozen pass whose JSON cannot change: a plain object holding its name and reason as data. */
function isFixedPass(pass: unknown): boolean {
  if (typeof pass !== "object" || pass === null || !Object.isFrozen(pass) || Object.getPrototypeOf(pass) !== Object.prototype) return false;
  const keys = Reflect.ownKeys(pass);
  if (keys.length !== 2) return false;
  return ["name", "reason"].every((key) => typeof Object.getOwnPropertyDescriptor(pass, key)?.value === "string");
}

/** A list whose JSON cannot change: frozen, an ordinary array of fixed passes. */
function isFixedList(list: readonly unknown[]): boolean {
  return Array.isArray(list) && Object.isFrozen(list) && Object.getPrototypeOf(list) === Array.prototype && Reflect.ownKeys(list).length === list.length + 1 && list.every(isFixedPass);
}

/** The newest lists' ends, found by identity (a run's calls share one or a few lists). */
const tails = new Recent<readonly unknown[], PassesTail | null>(8);

/** The end of the text of an event carrying `list`, or undefined when the list could change (then it is written as any value is). */
export function passesTail(list: readonly unknown[]): PassesTail | undefined {
  let tail = tails.get(list);
  if (tail === undefined) {
    let made: PassesTail | null = null;
    if (isFixedList(list)) {
      const text = `,"guardrailsPassed":${JSON.stringify(list)}}`;
      made = { text, json: JSON.stringify(text).slice(1, -1), id: hash53Number(text) };
    }
    tail = tails.set(list, made);
  }
  return tail ?? undefined;
}

/** True when `key` is the last of `event`'s enumerable keys, as JSON.stringify walks them. */
function lastKeyIs(event: object, key: string): boolean {
  let last: string | undefined;
  for (const own in event) last = own;
  return last === key;
}

/** The event `event` as logged with `seq` at `at`: its text is JSON.stringify({ seq, at, ...event }). */
export function eventText(seq: number, at: string, event: LogEvent): LoggedEvent {
  if (event.type === "tool-call" && event.guardrailsPassed !== undefined) {
    const tail = passesTail(event.guardrailsPassed);
    if (tail !== undefined && lastKeyIs(event, "guardrailsPassed")) {
      const copy = { seq, at, ...event };
      // Left out of the JSON (undefined), which ends where the list's would have begun.
      copy.guardrailsPassed = undefined;
      const head = JSON.stringify(copy).slice(0, -1);
      return { seq, text: head + tail.text, head, tail };
    }
  }
  return { seq, text: JSON.stringify({ seq, at, ...event }) };
}
