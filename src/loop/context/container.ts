// The provider's execution container (code execution runs in one, with its files) is carried from
// one model call to the next. A provider records the container an answer used as a block of that
// turn's providerBlocks; the next request names the newest one. It is read from the whole history,
// not from what a compaction left of it, so a resumed run (a crash, an eviction, an answer days
// later) carries on in the same container. A new run's given history may hold no record (the edge
// refuses `ratchet.*` blocks), so no run attaches itself to another's container. Records are never
// sent to a provider as blocks.
import type { ChatMessage, ContainerRecord } from "../types";

export const CONTAINER_BLOCK = "ratchet.container";

export function containerBlock(record: ContainerRecord): { type: typeof CONTAINER_BLOCK } & ContainerRecord {
  return record.expiresAt === undefined ? { type: CONTAINER_BLOCK, id: record.id } : { type: CONTAINER_BLOCK, id: record.id, expiresAt: record.expiresAt };
}

function recordOf(block: unknown): ContainerRecord | undefined {
  const candidate = block as { type?: unknown; id?: unknown; expiresAt?: unknown } | null;
  if (candidate?.type !== CONTAINER_BLOCK || typeof candidate.id !== "string") return undefined;
  return typeof candidate.expiresAt === "string" ? { id: candidate.id, expiresAt: candidate.expiresAt } : { id: candidate.id };
}

/** The newest container one message recorded (its last record), or undefined. */
export function containerIn(message: ChatMessage): ContainerRecord | undefined {
  if (message.role !== "assistant") return undefined;
  const blocks = message.providerBlocks ?? [];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const record = recordOf(blocks[i]);
    if (record !== undefined) return record;
  }
  return undefined;
}

/** The newest container the history's turns recorded, or undefined. */
export function containerOf(history: ChatMessage[]): ContainerRecord | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const record = containerIn(history[i]!);
    if (record !== undefined) return record;
  }
  return undefined;
}
