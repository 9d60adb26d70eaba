// The run engine's context inside a test's runInDurableObject: the object's state, the test env,
// a fanout of its own and the real clock.
import { env } from "cloudflare:test";
import type { EngineContext } from "../../src/durable/engine/engine-context";
import { Fanout } from "../../src/durable/events/readers/fanout";

export function engineFor(state: DurableObjectState, extra: Partial<EngineContext> = {}): EngineContext {
  return { ctx: state, env, fanout: new Fanout(state), fetch, now: () => Date.now(), ...extra };
}
