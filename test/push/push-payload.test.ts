// What a push says: the ask's own question, a line for the other kinds of waiting and for an ended
// run, the run's title, and never more than 3 KB of JSON (a long question cut on a code point).
import { describe, expect, it } from "vitest";
import type { RunSummary, SummaryWaiting } from "../../src/api/types";
import { MAX_PUSH_PAYLOAD_BYTES, pushPayload, runPageUrl } from "../../src/push/push-payload";

function run(waiting?: SummaryWaiting, metadata?: Record<string, unknown>): RunSummary {
  return { id: "run_abc", status: waiting === undefined ? "finished" : "waiting", steps: 1, spentUsd: 0, createdAt: "", updatedAt: "", version: 2, ...(waiting === undefined ? {} : { waiting }), ...(metadata === undefined ? {} : { metadata }) };
}

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe("pushPayload", () => {
  it.each<[string, SummaryWaiting, string]>([
    ["an ask", { kind: "ask", callId: "q", name: "ask", input: { question: "Which day?" } }, "Which day?"],
    ["an ask without a question", { kind: "ask", callId: "q", name: "ask", input: {} }, "The run asks you something."],
    ["an approval", { kind: "approval", callId: "c", name: "deploy", input: { env: "prod" } }, "May the run call deploy?"],
    ["a client tool", { kind: "client-tool", callId: "c", name: "pick_photo", input: null, truncated: true }, "The run calls the client tool pick_photo."],
    ["a client toolset", { kind: "client-toolset", callId: "c", name: "computer", input: {} }, "The run asks your client to run actions of computer."],
  ])("words %s", (_name, waiting, question) => {
    expect(pushPayload("run.waiting", run(waiting), "https://x.test/console/#run_abc")).toEqual({ runId: "run_abc", kind: "run.waiting", question, url: "https://x.test/console/#run_abc" });
  });

  it("says how a run ended, and carries its title", () => {
    expect(pushPayload("run.finished", run(undefined, { title: "Report" }), "u")).toEqual({ runId: "run_abc", kind: "run.finished", question: "The run finished.", title: "Report", url: "u" });
    expect(pushPayload("run.failed", run(), "u").question).toBe("The run failed.");
  });

  it("cuts a long question (and title) so the JSON stays within 3 KB, on a code point", () => {
    const long = run({ kind: "ask", callId: "q", name: "ask", input: { question: `${"🙂".repeat(2000)}"\\` } }, { title: "t".repeat(500) });
    const payload = pushPayload("run.waiting", long, "https://x.test/console/#run_abc");
    expect(bytes(payload)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    expect(bytes(payload)).toBeGreaterThan(MAX_PUSH_PAYLOAD_BYTES - 8);
    expect(payload.question.endsWith("🙂…")).toBe(true);
    expect([...payload.title!]).toHaveLength(120);
    const short = pushPayload("run.waiting", run({ kind: "ask", callId: "q", name: "ask", input: { question: "Short?" } }), "u");
    expect(short.question).toBe("Short?");
  });

  it("opens the console's page of the run", () => {
    expect(runPageUrl("https://ratchet.example.com/", "run_abc")).toBe("https://ratchet.example.com/console/#run_abc");
  });
});
