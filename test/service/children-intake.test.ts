// An agent tool's child is admitted when it starts (src/durable/children/child-intake.ts): its
// template was admitted with its parent, and is checked again by the one intake against today's
// settings. A template that today's settings refuse (here: a parent stored straight into its object,
// as one made before a cap was lowered or a host taken off the list would be) starts no child; the
// agent call's result is an error that names the setting.
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { agentTool, callAgents } from "../helpers/children";
import { createRun, drive, storedEvents, stubFor, valueOf, viewOf } from "../helpers/runs";

type Message = { role: string; content: unknown; isError?: boolean };

async function toolResults(id: string): Promise<Message[]> {
  const { messages } = valueOf(await stubFor(id).messages());
  return (messages as Message[]).filter((message) => message.role === "tool");
}

const started = (events: StoredEvent[]) => events.filter((event) => event.type === "child-started");

describe("a child's start goes through the intake", () => {
  for (const [what, run, setting] of [
    ["maxSteps past MAX_STEPS_LIMIT", { maxSteps: 101 }, "MAX_STEPS_LIMIT"],
    ["an MCP server at a host not on the allow list", { mcpServers: [{ name: "docs", url: "https://not-allowed.example/mcp" }] }, "HTTP_TOOL_ALLOW"],
  ] as const) {
    it(`a template with ${what}: no child, and the call's error result names ${setting}`, async () => {
      const { id, stub } = await createRun({
        tools: [agentTool("helper", [{ text: "never" }], run)],
        minAnswerChars: 0,
        budget: { usd: 1 },
        script: [callAgents([["c1", "helper", "Do it."]]), { text: "The helper could not start." }],
      });
      await drive(stub);
      const view = await viewOf(stub);
      expect(view.status).toBe("finished");
      expect(started(await storedEvents(stub))).toEqual([]);
      const [result] = await toolResults(id);
      expect(result).toMatchObject({ isError: true });
      expect(JSON.stringify(result!.content)).toContain(setting);
    });
  }
});
