// The tool checks' passes made in one scratch list per turn (src/loop/guardrails/pass-list.ts
// sharedCopy): the previous call's very list when the scratch list holds the same passes, else a
// frozen copy that later changes to the scratch list do not reach.
import { describe, expect, it } from "vitest";
import { sharedCopy, sharedPass } from "../../src/loop/guardrails/pass-list";
import type { GuardrailPass } from "../../src/loop/guardrails/guardrail-types";

describe("sharedCopy", () => {
  it("copies the scratch list, frozen, when there is no previous list", () => {
    const scratch: GuardrailPass[] = [sharedPass(undefined, 0, "a", "one")];
    const kept = sharedCopy(undefined, scratch);
    expect(kept).not.toBe(scratch);
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(scratch)).toBe(false);
    expect(kept).toEqual([{ name: "a", reason: "one" }]);
    scratch.length = 0;
    scratch.push(sharedPass(undefined, 0, "b", "two"));
    expect(kept).toEqual([{ name: "a", reason: "one" }]);
  });

  it("gives the previous list when the scratch list holds its very passes, and a copy of its own otherwise", () => {
    const scratch: GuardrailPass[] = [];
    scratch.push(sharedPass(undefined, 0, "a", "one"), sharedPass(undefined, 1, "b", "two"));
    const first = sharedCopy(undefined, scratch);
    scratch.length = 0;
    scratch.push(sharedPass(first, 0, "a", "one"), sharedPass(first, 1, "b", "two"));
    expect(sharedCopy(first, scratch)).toBe(first);
    // Equal passes that are other objects make a list of their own.
    expect(sharedCopy(first, [{ name: "a", reason: "one" }, first[1]!])).not.toBe(first);
    scratch.length = 0;
    scratch.push(sharedPass(first, 0, "a", "one"), sharedPass(first, 1, "b", "three"));
    const second = sharedCopy(first, scratch);
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(second).toEqual([{ name: "a", reason: "one" }, { name: "b", reason: "three" }]);
    // Shorter and longer lists are lists of their own.
    expect(sharedCopy(first, [first[0]!])).toEqual([{ name: "a", reason: "one" }]);
    expect(sharedCopy(first, [first[0]!, first[1]!, sharedPass(first, 2, "c", "x")])).toHaveLength(3);
  });
});
