// What a child run tells its parent (docs/children.md), shared by the agent tool (src/tools), the
// run objects (src/durable/children) and their RPC (./rpc/run-rpc.ts).
import type { ApiError, RunStatus } from "./types";

/** How a child run ended, as its parent holds it: what the agent tool call's result is made of. */
export type ChildEnd = {
  childId: string;
  status: RunStatus;
  stoppedBy?: string;
  finalText?: string;
  final?: unknown;
  hasFinal: boolean;
  error?: ApiError;
  spentUsd: number;
};

/** What a child tells its parent with each status change (through its outbox): `end` once it ended. */
export type ChildReport = { childId: string; version: number; status: RunStatus; spentUsd: number; end?: ChildEnd };
