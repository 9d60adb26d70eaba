// Inputs that would cost too much: a caller's regular expression that backtracks exponentially
// on JavaScript's engine, met by a model's input. Through the whole Worker.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/loop/types";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const evilSchema = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] };

describe("a client tool whose schema has ^(a+)+$", () => {
  it("answers the model's 36 a and a ! at once (the schema's problem goes back to the model), and the run finishes", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "pick" }],
      tools: [{ type: "client", name: "pick", description: "Pick a string.", inputSchema: evilSchema }],
      script: [{ toolCalls: [{ id: "c1", name: "pick", input: { s: `${"a".repeat(36)}!` } }] }, { text: "I could not pick it." }],
    });
    await driveRun(run.id);
    expect((await getRun(run.id, TEST_API_TOKEN)).status).toBe("finished");
    const { messages } = (await (await api(`/v1/runs/${run.id}/messages`, TEST_API_TOKEN)).json()) as { messages: ChatMessage[] };
    const answered = messages.find((message) => message.role === "tool" && message.toolCallId === "c1");
    expect(JSON.stringify(answered?.content)).toContain("String does not match pattern.");
  });
});
