// The one place where the untyped namespace binding (worker-configuration.d.ts says only
// DurableObjectNamespace) becomes the typed RPC contract of src/api/rpc/run-rpc.ts.
import type { RunRpc } from "../api/rpc/run-rpc";

export type RunStub = DurableObjectStub & RunRpc;

export function runStub(env: Env, runId: string): RunStub {
  const stub = env.RUNS.get(env.RUNS.idFromName(runId));
  return stub as RunStub;
}
