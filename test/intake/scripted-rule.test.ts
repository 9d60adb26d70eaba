// The scripted provider's rule in the one intake, both ways: where LOCAL_DEV is on (at a loopback
// address, which the edge checks) a user token may use it, so the user-token path can be tried
// offline; everywhere else a user or run token never reaches it, and with no provider key at all a
// user token is told the setting that stops it (403 naming SCRIPTED_PROVIDER), not "no provider".
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/config/limits";
import { admitRun, type IntakeCaller, type IntakeSettings } from "../../src/intake/admit-run";
import { IntakeRefusal } from "../../src/intake/refusal";

const settings = (overrides: Partial<IntakeSettings> = {}): IntakeSettings => ({ limits: DEFAULT_LIMITS, prices: {}, scriptedProvider: true, localDev: false, ...overrides });
const OFFLINE = {} as Env;
const user: IntakeCaller = { kind: "user", subject: "user-42" };
const scriptedBody = { provider: "scripted" as const, script: [{ text: "Hello from the script." }] };

function refusal(work: () => unknown): IntakeRefusal {
  try {
    work();
  } catch (error) {
    if (error instanceof IntakeRefusal) return error;
    throw error;
  }
  throw new Error("admitted");
}

describe("the scripted provider's rule", () => {
  it("in local development a user token's run may use the scripted provider", () => {
    const admitted = admitRun({ body: scriptedBody, caller: user, env: OFFLINE, settings: settings({ localDev: true }) });
    expect(admitted).toMatchObject({ provider: "scripted", subject: "user-42" });
  });

  it("elsewhere it is 403 at provider, naming SCRIPTED_PROVIDER", () => {
    const refused = refusal(() => admitRun({ body: scriptedBody, caller: user, env: OFFLINE, settings: settings() }));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("SCRIPTED_PROVIDER");
    expect(refused.issues?.map((issue) => issue.path)).toEqual(["provider"]);
  });

  it("offline, a user token's run that names no provider is refused for the setting, not for a missing key", () => {
    const refused = refusal(() => admitRun({ body: {}, caller: user, env: OFFLINE, settings: settings() }));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("SCRIPTED_PROVIDER");
    // …and in local development the same run plays the scripted provider's default turn.
    expect(admitRun({ body: {}, caller: user, env: OFFLINE, settings: settings({ localDev: true }) })).toMatchObject({ provider: "scripted" });
  });

  it("with the switch off nothing reaches it, local development or not", () => {
    for (const localDev of [false, true]) {
      const refused = refusal(() => admitRun({ body: scriptedBody, caller: { kind: "deployment" }, env: OFFLINE, settings: settings({ scriptedProvider: false, localDev }) }));
      expect(refused.status).toBe(403);
      expect(refused.message).toContain("SCRIPTED_PROVIDER");
    }
  });
});
