// Typed final output as a finish tool: the model hands in its answer as the tool's input, which is
// checked against the output's schema like any tool's (problems go back to the model as an error
// result) and becomes the loop's `final`. The loop offers it on every step and alone on the last.
import type { AnyToolSpec, OutputOptions } from "../types";

export const DEFAULT_OUTPUT_TOOL = "final_answer";

/** What the model reads in the history once its answer was taken. */
export const OUTPUT_RECEIVED = "Final answer received.";

export function outputToolName(output: OutputOptions): string {
  return output.name ?? DEFAULT_OUTPUT_TOOL;
}

export function outputTool(output: OutputOptions): AnyToolSpec {
  const spec: AnyToolSpec = {
    name: outputToolName(output),
    description:
      output.description ??
      "Hand in your final answer: call this once, with the whole answer as the input, when the work is done. The run ends when the answer is accepted; an answer that does not fit the schema comes back with what to fix.",
    run: async (input) => ({ content: OUTPUT_RECEIVED, value: input }),
  };
  if (output.schema !== undefined) spec.schema = output.schema;
  if (output.inputSchema !== undefined) spec.inputSchema = output.inputSchema;
  if (output.validate !== undefined) spec.validate = output.validate.bind(output);
  return spec;
}
