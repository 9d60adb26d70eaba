// A run's loop guards as a caller may ask for them. The deployment token may set any level (0
// turns it off). A user or run token may make them stricter but never looser than the defaults
// (docs/guardrails.md): a level on by default stays on, at most at its default count, since a
// loop spends the deployment's money and the subject's day. A fork keeps its source's as they were:
// a level the source had is not asked again.
import type { Issue } from "../api/schemas/error-schemas";
import type { CreateRunBody } from "../api/types";
import { canonicalJson } from "../lib/text/canonical-json";
import { DEFAULT_LOOP_GUARDS, LOOP_DETECTORS, LOOP_POLICIES } from "../loop";
import { byToken, type IntakeCaller } from "./caller-rights";

export function loopGuardIssues(body: Pick<CreateRunBody, "loopGuards">, caller: IntakeCaller, source?: Pick<CreateRunBody, "loopGuards">): Issue[] {
  const guards = body.loopGuards;
  if (guards === undefined || !byToken(caller)) return [];
  if (source?.loopGuards !== undefined && canonicalJson(guards) === canonicalJson(source.loopGuards)) return [];
  const issues: Issue[] = [];
  for (const detector of LOOP_DETECTORS) {
    for (const policy of LOOP_POLICIES) {
      const asked = guards[detector]?.[policy];
      const standard = DEFAULT_LOOP_GUARDS[detector][policy];
      if (asked === undefined || standard === 0 || (asked !== 0 && asked <= standard)) continue;
      // A level kept as the source had it was admitted with the source.
      if (source?.loopGuards?.[detector]?.[policy] === asked) continue;
      issues.push({ path: `loopGuards.${detector}.${policy}`, message: `A user or run token may not loosen a loop guard: ${policy} stays on, at ${standard} or less (the default); the deployment token may set any count.` });
    }
  }
  return issues;
}
