// How the console words an error: the API's error shape (its message, its code, and each issue on
// a line of its own), or any other error's message.
import { RatchetError } from "@ratchet/client";

export function describe(error: unknown): string {
  if (error instanceof RatchetError) {
    const issues = (error.issues ?? []).map((issue) => `• ${issue.path || "body"}: ${issue.message}`);
    return [`${error.message} (${error.code})`, ...issues].join("\n");
  }
  return error instanceof Error ? error.message : String(error);
}
