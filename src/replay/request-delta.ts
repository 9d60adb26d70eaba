// A model request as what it adds to the one before it in the same loop (recording.ts, format 2):
// the leading messages it shares with that one are kept by count, the rest are written out, and of
// its other fields only those that changed (set, or unset when gone). Each delta carries the hash
// of the whole request (request-hash.ts). A long run's requests each hold the whole history; their
// deltas hold a step's worth each, so a recording grows with the run, not with its square.
import type { ChatMessage, GenerateRequest } from "../loop/types";
import { RequestHasher } from "./request-hash";

type OtherFields = Omit<GenerateRequest, "messages">;

export type RequestDelta = {
  /** requestHash of the whole request. */
  hash: string;
  /** How many of the previous request's messages this one starts with (0 for a loop's first request). */
  keep: number;
  /** The messages after those. */
  messages: ChatMessage[];
  /** The fields but messages that are new or changed since the previous request (all of them in a loop's first). */
  set?: Partial<OtherFields>;
  /** Fields the previous request had and this one has not. */
  unset?: (keyof OtherFields)[];
};

/** The JSON text of each field but messages; `known` gives a value's text already made (the tools, the same array from one request to the next). */
function fieldTexts(request: GenerateRequest, known: (value: unknown) => string | undefined): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [key, value] of Object.entries(request)) if (key !== "messages" && value !== undefined) texts.set(key, known(value) ?? JSON.stringify(value));
  return texts;
}

/** Turns one loop's requests, in order, into deltas. */
export class RequestDeltaEncoder {
  private readonly hasher = new RequestHasher();
  /** The previous request's messages, kept up to date in place: a step costs what it adds, not a copy of the history. */
  private readonly previous: ChatMessage[] = [];
  /** The JSON text of each of those messages, where it was needed. */
  private readonly previousTexts: (string | undefined)[] = [];
  private fields = new Map<string, string>();
  private tools: GenerateRequest["tools"] | undefined;

  next(request: GenerateRequest): RequestDelta {
    const hash = this.hasher.hash(request);
    const { messages } = request;
    const shared = Math.min(messages.length, this.previous.length);
    let keep = 0;
    while (keep < shared && messages[keep] === this.previous[keep]) keep++;
    // A message may be an equal copy (a cache mark set again on a new copy): compared as text from
    // there on, stopping at the first that differs.
    while (keep < shared) {
      const text = JSON.stringify(messages[keep]);
      if (text !== (this.previousTexts[keep] ?? JSON.stringify(this.previous[keep]))) break;
      this.previous[keep] = messages[keep]!;
      this.previousTexts[keep] = text;
      keep++;
    }
    this.previous.length = keep;
    this.previousTexts.length = keep;
    for (let i = keep; i < messages.length; i++) {
      this.previous.push(messages[i]!);
      this.previousTexts.push(undefined);
    }
    const delta: RequestDelta = { hash, keep, messages: messages.slice(keep) };
    const before = this.fields.get("tools");
    const fields = fieldTexts(request, (value) => (value === this.tools && before !== undefined ? before : undefined));
    this.tools = request.tools;
    const set: Record<string, unknown> = {};
    for (const [key, text] of fields) if (this.fields.get(key) !== text) set[key] = JSON.parse(text);
    const unset = [...this.fields.keys()].filter((key) => !fields.has(key)) as (keyof OtherFields)[];
    if (Object.keys(set).length > 0) delta.set = set as Partial<OtherFields>;
    if (unset.length > 0) delta.unset = unset;
    this.fields = fields;
    // The messages as they are now: a later change to an object the loop handed out is not recorded.
    return JSON.parse(JSON.stringify(delta)) as RequestDelta;
  }
}

/** Rebuilds one loop's requests, in order, from their deltas. */
export class RequestDeltaDecoder {
  /** The current request's messages, kept up to date in place: applying a delta costs what it adds. */
  private readonly messages: ChatMessage[] = [];
  private fields: Partial<OtherFields> = {};

  /** Moves on to the request of `delta`. */
  apply(delta: RequestDelta): void {
    if (delta.keep > this.messages.length) throw new RangeError(`A request delta keeps ${delta.keep} messages of a request that had ${this.messages.length}.`);
    this.messages.length = delta.keep;
    for (const message of delta.messages) this.messages.push(message);
    if (delta.set !== undefined || delta.unset !== undefined) {
      const fields: Partial<OtherFields> = { ...this.fields, ...delta.set };
      for (const key of delta.unset ?? []) delete fields[key];
      this.fields = fields;
    }
  }

  /** The current request, whole (its own copy of the messages). */
  current(): GenerateRequest {
    return { ...this.fields, messages: this.messages.slice() } as GenerateRequest;
  }

  /** apply(delta), then the request. */
  next(delta: RequestDelta): GenerateRequest {
    this.apply(delta);
    return this.current();
  }
}
