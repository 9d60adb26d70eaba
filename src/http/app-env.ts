// The Hono environment of every sub-app: the Worker's bindings, the checked settings, and the run
// object and the caller's kind that the auth middleware found for routes under /v1/runs/:id.
import type { CallerKind } from "../api/types";
import type { Settings } from "../config/settings";
import type { RunStub } from "./run-stub";

export type AppEnv = { Bindings: Env; Variables: { run: RunStub; caller: CallerKind; settings: Settings } };
