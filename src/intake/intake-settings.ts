// The settings the intake reads, as a Durable Object reads them (a schedule's fire, an agent tool's
// child): from its environment, today's values. The edge passes its checked Settings instead.
import { limitsOf, localDevSwitch, pricesOf, scriptedProviderOn } from "../config/settings";
import type { IntakeSettings } from "./admit-run";

export function intakeSettingsOf(env: Env): IntakeSettings {
  return { limits: limitsOf(env), prices: pricesOf(env), scriptedProvider: scriptedProviderOn(env), localDev: localDevSwitch(env) };
}
