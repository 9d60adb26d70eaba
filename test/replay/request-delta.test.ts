// A recording's requests as deltas (src/replay/request-delta.ts) and their hashes
// (src/replay/request-hash.ts), as pure functions: a loop's requests encoded in order and decoded
// in order come back the same; a delta holds what its request adds (the new messages, the fields
// that changed), not the history; the hash is of the whole request, the same however it is
// reached, and another for any change of a message or a field.
import { describe, expect, it } from "vitest";
import type { ChatMessage, GenerateRequest } from "../../src/loop/types";
import { RequestDeltaDecoder, RequestDeltaEncoder, type RequestDelta } from "../../src/replay/request-delta";
import { hashText, RequestHasher, requestHash } from "../../src/replay/request-hash";
import { requestCheck } from "../../src/replay/request-check";

/** A loop's requests as the loop builds them: each shares its history's message objects with the one before. */
function loopRequests(steps: number): GenerateRequest[] {
  const history: ChatMessage[] = [{ role: "user", content: "count" }];
  const requests: GenerateRequest[] = [];
  for (let step = 1; step <= steps; step++) {
    const last = step === steps;
    // A cache mark on a copy of the newest user-side message, as cache-marks.ts sets it; a note at the end on the last.
    const marked = history.slice();
    const at = marked.length - 1;
    marked[at] = { ...marked[at]!, content: [{ type: "text", text: JSON.stringify(marked[at]!.content), cache: true }] } as ChatMessage;
    if (last) marked.push({ role: "user", content: "Answer now." });
    const request: GenerateRequest = { prompt: "", model: "m", messages: marked, tools: [{ name: "calculator", description: "adds", inputSchema: { type: "object" } }], toolChoice: last ? "none" : "auto", cacheSystem: true, call: step, system: "Count." };
    if (step === 2) request.maxTokens = 100;
    requests.push(request);
    history.push({ role: "assistant", content: `Step ${step}.`, toolCalls: [{ id: `c${step}`, name: "calculator", input: { expression: `${step} + 1` } }] });
    history.push({ role: "tool", toolCallId: `c${step}`, content: String(step + 1) });
  }
  return requests;
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function encodeAll(requests: GenerateRequest[]): RequestDelta[] {
  const encoder = new RequestDeltaEncoder();
  return requests.map((request) => encoder.next(request));
}

describe("request deltas", () => {
  it("decode to the requests they were encoded from, in order", () => {
    const requests = loopRequests(6);
    const decoder = new RequestDeltaDecoder();
    const decoded = encodeAll(requests).map((delta) => decoder.next(json(delta)));
    expect(decoded).toEqual(json(requests));
  });

  it("hold what a request adds: the messages from the first that changed, and the fields that changed or went", () => {
    const deltas = encodeAll(loopRequests(4));
    expect(deltas[0]).toMatchObject({ keep: 0, set: { model: "m", system: "Count.", toolChoice: "auto", call: 1 } });
    // Request 2 keeps request 1's history but its marked copy, and adds the turn and its tool result.
    expect(deltas[1]!.keep).toBe(0);
    expect(deltas[1]!.messages).toHaveLength(3);
    expect(deltas[1]!.set).toEqual({ call: 2, maxTokens: 100 });
    expect(deltas[2]!.keep).toBe(2);
    expect(deltas[2]!.messages).toHaveLength(3);
    expect(deltas[2]!.set).toEqual({ call: 3 });
    expect(deltas[2]!.unset).toEqual(["maxTokens"]);
    expect(deltas[3]!.set).toEqual({ toolChoice: "none", call: 4 });
    expect(deltas[3]!.messages).toHaveLength(4);
  });

  it("stay the size of a step however long the history", () => {
    const deltas = encodeAll(loopRequests(400));
    const size = (delta: RequestDelta) => JSON.stringify(delta).length;
    expect(size(deltas[398]!)).toBeLessThan(size(deltas[10]!) + 64);
    expect(deltas[398]!.keep).toBe(deltas[10]!.keep + 2 * 388);
  });

  it("keep an equal copy of a message as kept, and write a changed one out", () => {
    const first: GenerateRequest = { prompt: "", model: "m", messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }], tools: [], toolChoice: "auto", cacheSystem: false };
    const encoder = new RequestDeltaEncoder();
    encoder.next(first);
    expect(encoder.next({ ...first, messages: json(first.messages) })).toMatchObject({ keep: 2, messages: [] });
    expect(encoder.next({ ...first, messages: [first.messages[0]!, { role: "user", content: "c" }] })).toMatchObject({ keep: 1, messages: [{ role: "user", content: "c" }] });
  });

  it("refuse a delta that keeps more messages than the request before had", () => {
    const decoder = new RequestDeltaDecoder();
    expect(() => decoder.next({ hash: "0", keep: 3, messages: [] })).toThrow(/keeps 3 messages of a request that had 0/);
  });
});

describe("request hashes", () => {
  it("are of the whole request: the same whether hashed alone, after the loop's earlier requests, or from a copy", () => {
    const requests = loopRequests(5);
    const hasher = new RequestHasher();
    const inOrder = requests.map((request) => hasher.hash(request));
    expect(inOrder).toEqual(requests.map((request) => requestHash(json(request))));
    expect(encodeAll(requests).map((delta) => delta.hash)).toEqual(inOrder);
    expect(new Set(inOrder).size).toBe(requests.length);
  });

  it("change with any message or field", () => {
    const [, request] = loopRequests(3) as [GenerateRequest, GenerateRequest];
    const base = requestHash(request);
    const changedMessage = json(request);
    changedMessage.messages[1] = { ...changedMessage.messages[1]!, content: "Step 1!" } as ChatMessage;
    const dropped = json(request);
    dropped.messages.pop();
    for (const other of [changedMessage, dropped, { ...request, system: "Count!" }, { ...request, cacheSystem: false }]) expect(requestHash(other)).not.toBe(base);
  });

  it("hashText gives 16 hex digits, another for a one-character change", () => {
    expect(hashText("ratchet")).toMatch(/^[0-9a-f]{16}$/);
    expect(hashText("ratchet")).toBe(hashText("ratchet"));
    expect(hashText("ratchet")).not.toBe(hashText("ratchef"));
    expect(hashText("")).not.toBe(hashText("\u0000"));
  });
});

describe("the replay's request check", () => {
  it("passes the same requests; on a hash mismatch names the first differing field, or none for key order alone", () => {
    const requests = loopRequests(3);
    const deltas = encodeAll(requests).map(json);
    const same = requestCheck("delta");
    expect(requests.map((request, i) => same(request, deltas[i]!))).toEqual([undefined, undefined, undefined]);
    const changed = requestCheck("delta");
    expect(changed(requests[0]!, deltas[0]!)).toBeUndefined();
    expect(changed({ ...requests[1]!, system: "Be long." }, deltas[1]!)).toBe("system");
    const reordered = requestCheck("delta");
    const { prompt, ...rest } = requests[0]!;
    expect(reordered({ ...rest, prompt }, deltas[0]!)).toBeUndefined();
    const message = requestCheck("delta");
    const other = json(requests[0]!);
    other.messages[0] = { role: "user", content: [{ type: "text", text: "other", cache: true }] };
    expect(message(other, deltas[0]!)).toBe("messages.0.content.0.text");
  });
});
