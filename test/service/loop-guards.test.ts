// A loop guard's warning reaches the model: through the service on the anthropic provider (the
// official SDK against the fake Anthropic server), the request after the turn that tripped it ends
// with the note, and the history the run keeps does not hold it.
import { describe, expect, it } from "vitest";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { api, driveRun, startRun } from "../helpers/service-client";

type Body = { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> };
const textOf = (content: Body["messages"][number]["content"]) => (typeof content === "string" ? content : content.map((block) => block.text ?? "").join(""));

describe("a loop guard's warning through the service", () => {
  it("the next request ends with the note; the run goes on and the note stays out of its history", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    const same = (id: string) => ({ text: "Let me check again.", toolCalls: [{ id, name: "calculator", input: { expression: "6*7" } }] });
    await script(model, [same("toolu_1"), same("toolu_2"), { text: "It is 42, as the first result said." }]);
    const { run, token } = await startRun({
      provider: "anthropic",
      model,
      messages: [{ role: "user", content: "What is 6*7?" }],
      tools: ["calculator"],
      minAnswerChars: 0,
      loopGuards: { sameCall: { warn: 2 } },
    });
    await driveRun(run.id);
    const bodies = (await recorded(model)).filter((request) => request.outcome === "ok").map((request) => request.body as unknown as Body);
    expect(bodies).toHaveLength(3);
    const last = bodies[2]!.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(textOf(last.content)).toContain("You have made the same tool call with the same input 2 times");
    expect(textOf(bodies[1]!.messages.at(-1)!.content)).not.toContain("looks like a loop");
    const history = ((await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: Body["messages"] }).messages;
    expect(history.some((message) => textOf(message.content).includes("looks like a loop"))).toBe(false);
  });
});
