// Typed final output through the service: `output: { schema, name? }` gives the run a finish tool
// whose checked input is its `final`; the run ends done when it is handed in, steps when it never
// is. On the scripted provider and on both real ones (their fake servers record the requests), and
// the 400s for an output the run could not use.
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import type { ChatMessage } from "../../src/loop/types";
import { recorded, script, uniqueModel } from "../fake-anthropic/client";
import { recordedOpenAI, scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { expectError } from "../helpers/http";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const schema = {
  type: "object",
  properties: { product: { type: "number" }, prime: { type: "boolean" } },
  required: ["product", "prime"],
  additionalProperties: false,
};
const user = [{ role: "user", content: "What is 17 × 23, and is it prime?" }];
const handIn = (id: string, input: unknown, name = "final_answer") => ({ toolCalls: [{ id, name, input }] });

async function messagesOf(id: string, token: string): Promise<ChatMessage[]> {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: ChatMessage[] }).messages;
}

describe("typed final output", () => {
  it("the hand-in, checked against the schema, is the run's final, and the run ends done; a wrong one goes back to the model", async () => {
    const { run, token } = await startRun({
      messages: user,
      tools: ["calculator"],
      output: { schema },
      script: [
        { toolCalls: [{ id: "c", name: "calculator", input: { expression: "17 * 23" } }] },
        handIn("f1", { product: "391", prime: false }),
        handIn("f2", { product: 391, prime: false }),
      ],
    });
    await driveRun(run.id);
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "done", final: { product: 391, prime: false }, steps: 3 });
    const refused = (await messagesOf(run.id, token)).find((message) => message.role === "tool" && message.toolCallId === "f1");
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/^Invalid input for final_answer:\n- product: /) });
    const end = (await storedEvents(stubFor(run.id))).at(-1);
    expect(end).toMatchObject({ type: "end", stoppedBy: "done", final: { product: 391, prime: false } });
  });

  it("never handed in: text turns are reminded, and the run ends on steps with no final", async () => {
    const { run, token } = await startRun({ messages: user, output: { schema, name: "submit_answer" }, maxSteps: 3, script: [{ text: "391." }, { text: "It is 391." }, { text: "391, not prime." }] });
    await driveRun(run.id);
    const view: RunView = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "steps", steps: 3 });
    expect(view).not.toHaveProperty("final");
    const starts = (await storedEvents(stubFor(run.id))).filter((event): event is Extract<StoredEvent, { type: "step-start" }> => event.type === "step-start");
    expect(starts.map((event) => event.last)).toEqual([false, false, true]);
  });

  it("on anthropic: offered every step with the schema as its input_schema, and alone on the last", async () => {
    const model = uniqueModel("claude-sonnet-5-5");
    await script(model, [{ toolCalls: [{ id: "toolu_c", name: "calculator", input: { expression: "17 * 23" } }] }, handIn("toolu_f", { product: 391, prime: false })]);
    const { run, token } = await startRun({ provider: "anthropic", model, messages: user, tools: ["calculator"], output: { schema }, maxSteps: 2 });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", final: { product: 391, prime: false } });
    const bodies = (await recorded(model)).map((request) => request.body as { tools: Array<{ name: string; input_schema?: unknown }>; tool_choice?: unknown });
    expect(bodies[0]!.tools.map((tool) => tool.name)).toEqual(["calculator", "final_answer"]);
    expect(bodies[0]!.tools[1]!.input_schema).toEqual(schema);
    expect(bodies[1]!.tools.map((tool) => tool.name)).toEqual(["final_answer"]);
    expect(bodies[1]!.tool_choice).toBeUndefined();
  });

  it("on openai: a function tool with the schema as its parameters", async () => {
    const model = uniqueOpenAIModel();
    await scriptOpenAI(model, [handIn("call_f", { product: 391, prime: false }, "answer")]);
    const { run, token } = await startRun({ provider: "openai", model, messages: user, output: { schema, name: "answer" } });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", final: { product: 391, prime: false }, steps: 1 });
    const [body] = (await recordedOpenAI(model)).map((request) => request.body as { tools: Array<{ type: string; function: { name: string; parameters: unknown } }> });
    expect(body!.tools).toEqual([{ type: "function", function: expect.objectContaining({ name: "answer", parameters: schema }) }]);
  });
});

describe("an output the run could not use is a 400 naming it", () => {
  const create = (extra: Record<string, unknown>) =>
    api("/v1/runs", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ provider: "scripted", messages: user, ...extra }) });
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["a schema of a string", { output: { schema: { type: "string" } } }, "output.schema"],
    ["a schema with no type", { output: { schema: { properties: {} } } }, "output.schema"],
    ["a schema that is no object", { output: { schema: [] } }, "output.schema"],
    ["a $ref to nowhere", { output: { schema: { type: "object", properties: { a: { $ref: "#/nowhere" } } } } }, "output.schema"],
    ["no schema", { output: {} }, "output.schema"],
    ["a name no provider takes", { output: { schema, name: "final answer!" } }, "output.name"],
    ["a name a tool has", { tools: ["calculator"], output: { schema, name: "calculator" } }, "output.name"],
    ["the default name a tool has", { tools: [{ type: "client", name: "final_answer", description: "d", inputSchema: { type: "object" } }], output: { schema } }, "output"],
    ["an unknown field", { output: { schema, strict: true } }, "output.strict"],
  ];
  for (const [name, body, path] of cases) {
    it(name, async () => {
      const refused = await expectError(await create(body), 400, "invalid-request");
      expect(refused.error.issues?.map((issue) => issue.path)).toEqual([path]);
    });
  }
});
