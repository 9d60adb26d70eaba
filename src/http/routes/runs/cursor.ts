// The listing's cursor: where the next page starts (the last listed run's creation time and id),
// as opaque base64url text. A cursor that does not decode to that shape is a 400, never a 500.
import type { ListPosition } from "../../../api/rpc/inbox-rpc";
import { base64url, base64urlText } from "../../../lib/text/encoding";

export function encodeCursor(position: ListPosition): string {
  return base64url(new TextEncoder().encode(JSON.stringify([position.createdAt, position.id])));
}

export function decodeCursor(cursor: string): ListPosition | undefined {
  const text = base64urlText(cursor);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [createdAt, id] = value as unknown[];
    return typeof createdAt === "string" && typeof id === "string" ? { createdAt, id } : undefined;
  } catch {
    return undefined;
  }
}
