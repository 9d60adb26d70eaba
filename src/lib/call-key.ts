// The key of an async tool call in its callback URL (/v1/runs/{id}/calls/{callKey}/result): the
// call's start step key with its segment (`s1/start/3/toolu_01A7`), base64url. Call ids come from
// the model and may hold any character; the encoding keeps the URL to [A-Za-z0-9_-] and maps back
// to exactly one step key.

const CALL_KEY_PATTERN = /^[A-Za-z0-9_-]{1,1024}$/;

export function callKeyOf(stepKey: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(stepKey)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The step key a call key names, or undefined when it is not one callKeyOf makes. */
export function stepKeyOf(callKey: string): string | undefined {
  if (!CALL_KEY_PATTERN.test(callKey) || callKey.length % 4 === 1) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(callKey.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
  // Only the canonical form: two keys for one call would be two URLs for one result.
  return callKeyOf(text) === callKey && /^s\d+\/start\/\d+\/./.test(text) ? text : undefined;
}
