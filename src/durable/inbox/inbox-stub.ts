// The one place where the untyped INBOXES binding becomes the typed RPC contract of
// src/api/rpc/inbox-rpc.ts. Each subject has its own inbox object, named after it.
import type { InboxRpc } from "../../api/rpc/inbox-rpc";

export type InboxStub = DurableObjectStub & InboxRpc;

/** The inbox object's name: a prefix keeps room for other kinds of names in the namespace. */
export const inboxName = (subject: string): string => `subject:${subject}`;

export function inboxStub(env: Env, subject: string): InboxStub {
  return env.INBOXES.get(env.INBOXES.idFromName(inboxName(subject))) as unknown as InboxStub;
}

/** The inbox whose object id is `hex` (as an inbox ticket carries it), or undefined when it is no id of this namespace. */
export function inboxStubById(env: Env, hex: string): InboxStub | undefined {
  try {
    return env.INBOXES.get(env.INBOXES.idFromString(hex)) as unknown as InboxStub;
  } catch {
    return undefined;
  }
}

/** The hex id of a subject's inbox object. */
export function inboxIdOf(env: Env, subject: string): string {
  return env.INBOXES.idFromName(inboxName(subject)).toString();
}
