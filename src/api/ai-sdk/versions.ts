// The AI SDK's major versions the chat routes speak (`/v1/ai-sdk/{v}/chat`), and what each one's
// UI message stream accepts beyond v5's chunks (checked against the packages' own
// uiMessageChunkSchema: ai 5.0.277, 6.0.326, 7.0.173).

export type ChatVersion = "v5" | "v6" | "v7";

export type ChatCaps = {
  version: ChatVersion;
  /** `tool-approval-request` and `tool-output-denied` (v6 on); on v5 an approval is a client tool whose output is `{ approved }`. */
  approvals: boolean;
  /** `reset-step` (v7): the client drops the current step's parts; before v7 the stale text part is closed and a `data-ratchet-text-reset` sent. */
  resetStep: boolean;
};

const CAPS: Record<ChatVersion, ChatCaps> = {
  v5: { version: "v5", approvals: false, resetStep: false },
  v6: { version: "v6", approvals: true, resetStep: false },
  v7: { version: "v7", approvals: true, resetStep: true },
};

/** The capabilities of path segment `v`, or undefined for a version this service does not speak. */
export function chatCaps(v: string): ChatCaps | undefined {
  return Object.hasOwn(CAPS, v) ? CAPS[v as ChatVersion] : undefined;
}

export const CHAT_VERSIONS = Object.keys(CAPS) as ChatVersion[];
