// The Hono environment of every sub-app: the Worker's bindings, and the run object that the auth
// middleware found for routes under /v1/runs/:id.
import type { RunStub } from "./run-stub";

export type AppEnv = { Bindings: Env; Variables: { run: RunStub } };
