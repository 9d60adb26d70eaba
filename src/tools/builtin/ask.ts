// The built-in question tool. The loop never runs it: a call stops the run in `waiting` until the
// person answers (the loop recognises it by its name, "ask"), so it has a schema and no `run`.
import { z } from "zod";
import { ASK_TOOL } from "../../loop/tool-calls/plan-call";
import type { ToolSpec } from "../../loop/types";

const askInput = z.object({
  question: z.string().min(1).describe("The question for the person, complete and self-contained."),
  choices: z.array(z.string().min(1)).optional().describe("Answers to offer, when the question has a few likely ones."),
});

export const askTool: ToolSpec<z.infer<typeof askInput>> = {
  name: ASK_TOOL,
  description:
    "Ask the person a question and wait for the answer. Use it only when you cannot go on without " +
    "their decision or information; ask one question at a time.",
  schema: askInput,
};
