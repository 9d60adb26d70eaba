// ListTasks' pageToken: where the next page of tasks starts. Tasks are listed run by run (a
// subject's runs of the agent newest first, or the one run `contextId` names), each run's newest
// task first, so a page may end inside a run: the token then names that run and the task number
// below which its tasks are still to come, besides the listing's place before it. Opaque base64url
// text; one that does not decode to that shape is refused (-32602), never a 500. Pure.
import { base64url, base64urlText } from "../../lib/text/encoding";
import type { ListPosition } from "../rpc/inbox-rpc";

export type ListToken = {
  /** The listing goes on after this run (none: from the newest). */
  after?: ListPosition;
  /** The run a page ended inside, and the task number below which its tasks come next. */
  within?: { runId: string; below: number };
};

export function encodeListToken(token: ListToken): string {
  const fields = [token.after?.createdAt ?? null, token.after?.id ?? null, token.within?.runId ?? null, token.within?.below ?? null];
  return base64url(new TextEncoder().encode(JSON.stringify(fields)));
}

export function decodeListToken(text: string): ListToken | undefined {
  const json = base64urlText(text);
  if (json === undefined) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 4) return undefined;
  const [createdAt, id, runId, below] = fields as unknown[];
  const token: ListToken = {};
  if (typeof createdAt === "string" && typeof id === "string") token.after = { createdAt, id };
  else if (createdAt !== null || id !== null) return undefined;
  if (typeof runId === "string" && typeof below === "number" && Number.isInteger(below) && below >= 1) token.within = { runId, below };
  else if (runId !== null || below !== null) return undefined;
  return token;
}
