// Anthropic's answer to a prompt too long for the model's context window: a 400
// invalid_request_error ("prompt is too long: 210000 tokens > 200000 maximum", or "input length and
// `max_tokens` exceed context limit"). Not a failure to retry: the loop compacts and tries once more.
import type { Failure } from "../common/retry";

const OVERFLOW = /prompt is too long|exceed(s|ed)? (the )?context (limit|window)|context window|too many (input )?tokens/i;

export function isContextOverflow(failure: Failure): boolean {
  return failure.kind === "status" && failure.status === 400 && OVERFLOW.test(failure.message);
}
