// The run as its inbox lists it: the fields a status change moves, and a waiting input too large
// to list left out.
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { summaryOf, WAITING_INPUT_MAX_BYTES } from "../../src/durable/outbox/run-summary";
import { decodeCursor, encodeCursor } from "../../src/http/routes/runs/cursor";

const view: RunView = {
  id: "run_x",
  status: "waiting",
  stoppedBy: "asked",
  model: "m",
  provider: "scripted",
  steps: 2,
  maxSteps: 10,
  spentUsd: 0.02,
  budgetUsd: 1,
  waiting: { kind: "ask", callId: "q", name: "ask", input: { question: "Which?" } },
  lastSeq: 9,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:05.000Z",
  metadata: { chat: 1 },
  subject: "u",
};

describe("summaryOf", () => {
  it("keeps what a listing shows and adds the version", () => {
    expect(summaryOf(view, 3)).toEqual({
      id: "run_x",
      status: "waiting",
      stoppedBy: "asked",
      steps: 2,
      spentUsd: 0.02,
      createdAt: view.createdAt,
      updatedAt: view.updatedAt,
      metadata: { chat: 1 },
      waiting: view.waiting,
      subject: "u",
      version: 3,
    });
  });

  it("leaves out a waiting input past 32 KiB, saying so", () => {
    const big = { ...view, waiting: { kind: "client-tool" as const, callId: "c", name: "pick", input: { text: "x".repeat(WAITING_INPUT_MAX_BYTES) } } };
    expect(summaryOf(big, 1).waiting).toEqual({ kind: "client-tool", callId: "c", name: "pick", input: null, truncated: true });
  });

  it("lists a toolset batch's actions, and leaves them out with the input when the two pass 32 KiB", () => {
    const batch = [
      { callId: "b1", action: "navigate", input: { url: "https://a.example/" } },
      { callId: "b2", action: "type", input: { text: "hi" } },
    ];
    const waiting = { kind: "client-toolset" as const, callId: "b1", name: "browser", input: batch[0]!.input, batch };
    expect(summaryOf({ ...view, waiting }, 1).waiting).toEqual(waiting);
    const big = { ...waiting, batch: [...batch, { callId: "b3", action: "type", input: { text: "x".repeat(WAITING_INPUT_MAX_BYTES) } }] };
    expect(summaryOf({ ...view, waiting: big }, 1).waiting).toEqual({ kind: "client-toolset", callId: "b1", name: "browser", input: null, truncated: true });
  });
});

describe("cursors", () => {
  it("round-trip, and anything else is no cursor", () => {
    const position = { createdAt: "2026-01-01T00:00:00.000Z", id: "run_abc" };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    for (const bad of ["", "x", "bm90IGpzb24", encodeCursor({ createdAt: "a", id: "b" }).slice(0, -2), btoa(JSON.stringify([1, 2]))]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
  });
});
