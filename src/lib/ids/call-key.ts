// The key of an async tool call in its callback URL (/v1/runs/{id}/calls/{callKey}/result): the
// call's start step key with its segment (`s1/start/3/toolu_01A7`), base64url. Call ids come from
// the model and may hold any character; the encoding keeps the URL to [A-Za-z0-9_-] and maps back
// to exactly one step key.
import { base64url, base64urlText } from "../text/encoding";

const CALL_KEY_PATTERN = /^[A-Za-z0-9_-]{1,1024}$/;

export function callKeyOf(stepKey: string): string {
  return base64url(new TextEncoder().encode(stepKey));
}

/** The step key a call key names, or undefined when it is not one callKeyOf makes. */
export function stepKeyOf(callKey: string): string | undefined {
  if (!CALL_KEY_PATTERN.test(callKey) || callKey.length % 4 === 1) return undefined;
  const text = base64urlText(callKey);
  // Only the canonical form: two keys for one call would be two URLs for one result.
  return text !== undefined && callKeyOf(text) === callKey && /^s\d+\/start\/\d+\/./.test(text) ? text : undefined;
}
