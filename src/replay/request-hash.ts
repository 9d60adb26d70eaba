// The hash a recording keeps of each model request (recording.ts, format 2), and the hasher that
// gives it in time proportional to what a request adds to the one before.
//
// Why a pure 64-bit hash and not crypto.subtle's SHA-256: a step hashes a few small strings (its
// new messages and the request's other fields), where SHA-256 through crypto.subtle costs an
// async call, a TextEncoder copy and a per-call overhead larger than the hashing itself; this one
// is synchronous and runs the same in workerd and Node. It guards against accidental divergence
// (a recording against today's loop), not an adversary: whoever can edit a recording can edit its
// requests as well. Two independent 32-bit lanes give 64 bits: a false match among a run's few
// thousand requests has odds near n / 2^64.
//
// The hash of a request is of its JSON text as built (JSON.stringify, keys in the order the code
// set them): a change of key order alone gives another hash, and the replay's field-by-field
// comparison then finds no difference (replay.ts). That costs time, never a false divergence.
import { cyrb53Lanes } from "../lib/hashing/cyrb53";
import type { ChatMessage, GenerateRequest } from "../loop/types";

/** 16 hex digits of `text`: cyrb53's two lanes, the first with the text's length mixed in. */
export function hashText(text: string): string {
  const [h1, h2] = cyrb53Lanes(text);
  return ((h1 ^ text.length) >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}

/**
 * The hash of the whole request: of the chain of its messages (each message's JSON text hashed
 * once, chained in order), of its tools' JSON text and of the JSON text of its other fields. The
 * same request always has the same hash, however it was hashed before.
 */
export function requestHash(request: GenerateRequest): string {
  return new RequestHasher().hash(request);
}

/** The request's fields but its messages and tools, as JSON text. */
export function otherFieldsText(request: GenerateRequest): string {
  const { messages: _messages, tools: _tools, ...rest } = request;
  return JSON.stringify(rest);
}

const START = hashText("");

/**
 * Hashes one loop's requests in order. Requests of one loop share their history's message objects
 * (the loop sets cache marks on copies and never changes a message it handed out: cache-marks.ts),
 * so the messages a request shares with the one before, by identity, keep their chained hashes:
 * only what the request adds is hashed, plus one identity check per message. The tools, the same
 * array from one request to the next, are hashed once.
 */
export class RequestHasher {
  /** The previous request's messages (a copy, kept up to date in place). */
  private readonly messages: ChatMessage[] = [];
  /** chain[i]: the chained hash of messages[0..i]. */
  private readonly chain: string[] = [];
  private tools: GenerateRequest["tools"] | undefined;
  private toolsHash = "";

  hash(request: GenerateRequest): string {
    const { messages } = request;
    let same = 0;
    const shared = Math.min(messages.length, this.messages.length);
    while (same < shared && messages[same] === this.messages[same]) same++;
    // In place: a step costs what it adds, not a copy of the history.
    this.messages.length = same;
    this.chain.length = same;
    for (let i = same; i < messages.length; i++) {
      this.messages.push(messages[i]!);
      this.chain.push(hashText(`${this.chain[i - 1] ?? START}\n${JSON.stringify(messages[i])}`));
    }
    if (request.tools !== this.tools) {
      this.tools = request.tools;
      this.toolsHash = hashText(JSON.stringify(request.tools));
    }
    return hashText(`${messages.length}:${this.chain.at(-1) ?? START}:${this.toolsHash}:${otherFieldsText(request)}`);
  }
}
