// The providers' endpoints (ANTHROPIC_BASE_URL, OPENAI_BASE_URL): unset means the SDK's own; set,
// each must be an http(s) URL, so a typo is a 503 that names the setting rather than every run
// failing at its first model call.
import { isHttpUrl } from "../api/rules/http-url";

const BASE_URL_SETTINGS = ["ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"] as const;

export function baseUrlProblems(env: Record<string, unknown>): Array<{ setting: string; problem: string }> {
  return BASE_URL_SETTINGS.flatMap((setting) => {
    const value = env[setting];
    if (typeof value !== "string" || value.trim() === "" || isHttpUrl(value.trim())) return [];
    return [{ setting, problem: "is not an http(s) URL" }];
  });
}
