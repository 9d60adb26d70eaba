// What a tool server's answer means for the model (docs/http-tools.md "The answer"): a 2xx with
// JSON `{ content, isError?, costUsd? }` or plain text is a result; anything else is an error
// result the model sees and can react to.
import { z } from "zod";
import type { ToolOutput } from "../../loop/types";

const SNIPPET_LENGTH = 300;

const answerSchema = z.object({
  content: z.union([
    z.string(),
    z.array(
      z.union([
        z.object({ type: z.literal("text"), text: z.string() }),
        z.object({ type: z.literal("image"), mimeType: z.string(), hash: z.string(), path: z.string().optional() }),
      ]),
    ),
  ]),
  isError: z.boolean().optional(),
  costUsd: z.number().nonnegative().optional(),
});

export function failure(message: string): ToolOutput {
  return { content: message, isError: true };
}

/** "30 seconds", or milliseconds when the time is not whole seconds. */
export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`;
}

function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** One line of at most 300 characters of what a far side said (an error page, an answer). */
export function snippet(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > SNIPPET_LENGTH ? `${line.slice(0, SNIPPET_LENGTH - 1)}…` : line;
}

/** The result of a JSON answer `{ content, isError?, costUsd? }` (also what an async tool's callback sends). */
export function outputOfAnswer(answer: z.infer<typeof answerSchema>): ToolOutput {
  const output: ToolOutput = { content: answer.content };
  if (answer.isError === true) output.isError = true;
  if (answer.costUsd !== undefined) output.costUsd = answer.costUsd;
  return output;
}

function outputOf(response: Response, text: string, name: string): ToolOutput {
  const type = mediaType(response);
  if (type === "text/plain") return { content: text };
  if (type !== "" && !/^application\/([\w.-]+\+)?json$/.test(type)) {
    return failure(`HTTP tool ${name} answered with Content-Type ${type}; expected application/json or text/plain.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failure(`HTTP tool ${name} answered with a body that is not JSON.`);
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    return failure(`HTTP tool ${name} answered JSON without a valid "content" (expected { content, isError?, costUsd? }).`);
  }
  return outputOfAnswer(parsed.data);
}

/** The result a response with `text` as its body stands for. */
export function answerOf(name: string, response: Response, text: string): ToolOutput {
  if (response.status >= 300 && response.status < 400) {
    return failure(`HTTP tool ${name} answered ${response.status} (a redirect); redirects are not followed.`);
  }
  if (response.status < 200 || response.status >= 300) {
    const detail = snippet(text);
    return failure(`HTTP tool ${name} answered ${response.status}${detail === "" ? "." : `: ${detail}`}`);
  }
  return outputOf(response, text, name);
}
