// The providers' endpoints (ANTHROPIC_BASE_URL, OPENAI_BASE_URL): unset means the SDK's own; set,
// each must be an http(s) URL, so a typo is a 503 that names the setting rather than every run
// failing at its first model call.
const BASE_URL_SETTINGS = ["ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"] as const;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export function baseUrlProblems(env: Record<string, unknown>): Array<{ setting: string; problem: string }> {
  return BASE_URL_SETTINGS.flatMap((setting) => {
    const value = env[setting];
    if (typeof value !== "string" || value.trim() === "" || isHttpUrl(value.trim())) return [];
    return [{ setting, problem: "is not an http(s) URL" }];
  });
}
