// The deployment's Web Push settings (docs/push.md): VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY (a secret)
// and VAPID_SUBJECT (a mailto: or https: contact for the push services), and PUSH_HOSTS, where
// subscriptions' endpoints may be. Without the VAPID settings push is off: the push routes answer
// 503 naming them, and nothing else changes. A value that is set but wrong is a 503 of the push
// routes too, naming the setting and never its value. (A published local VAPID_PRIVATE_KEY is
// refused by the whole deployment, as the other published secrets are: ./settings.ts.)
import type { SettingProblem } from "./settings";
import { parsePushHosts } from "../push/push-hosts";
import { vapidKeyProblem, type VapidKeys } from "../push/vapid";

export const VAPID_SETTINGS = ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT"] as const;

export type PushSettings = { vapid: VapidKeys; hosts: string[] };

export type PushSettingsResult = { ok: true; settings: PushSettings } | { ok: false; problems: SettingProblem[] };

type PushEnv = { VAPID_PUBLIC_KEY?: string; VAPID_PRIVATE_KEY?: string; VAPID_SUBJECT?: string; PUSH_HOSTS?: string };

function textOf(env: object, name: string): string | undefined {
  const value = (env as Record<string, unknown>)[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** A contact push services accept: mailto:someone, or an https URL. */
function isContact(subject: string): boolean {
  if (/^mailto:[^\s@]+@[^\s@]+$/i.test(subject)) return true;
  try {
    return new URL(subject).protocol === "https:";
  } catch {
    return false;
  }
}

export async function readPushSettings(env: object): Promise<PushSettingsResult> {
  const [publicKey, privateKey, subject] = VAPID_SETTINGS.map((name) => textOf(env, name));
  const problems: SettingProblem[] = [];
  for (const [name, value] of [["VAPID_PUBLIC_KEY", publicKey], ["VAPID_PRIVATE_KEY", privateKey], ["VAPID_SUBJECT", subject]] as const) {
    if (value === undefined) problems.push({ setting: name, problem: "is not set" });
  }
  if (subject !== undefined && !isContact(subject)) problems.push({ setting: "VAPID_SUBJECT", problem: "is not a mailto: address or an https: URL" });
  if (publicKey !== undefined && privateKey !== undefined) {
    const problem = await vapidKeyProblem(publicKey, privateKey);
    if (problem !== undefined) problems.push(problem);
  }
  if (problems.length > 0 || publicKey === undefined || privateKey === undefined || subject === undefined) return { ok: false, problems };
  return { ok: true, settings: { vapid: { publicKey, privateKey, subject }, hosts: parsePushHosts((env as PushEnv).PUSH_HOSTS) } };
}

/** What the 503 of a push route says: push is off, and which settings to set or fix. */
export function describePushProblems(problems: readonly SettingProblem[]): string {
  const list = problems.map((item) => `${item.setting} ${item.problem}`).join("; ");
  return `Web Push is off on this deployment: ${list}. \`npm run vapid\` prints a key pair; set VAPID_PRIVATE_KEY with \`npx wrangler secret put VAPID_PRIVATE_KEY\`, the others in wrangler.toml [vars].`;
}

const cache = new WeakMap<object, Promise<PushSettingsResult>>();

/** readPushSettings, once per environment object (an isolate keeps its env). */
export function pushSettingsOf(env: object): Promise<PushSettingsResult> {
  let result = cache.get(env);
  if (result === undefined) cache.set(env, (result = readPushSettings(env)));
  return result;
}
