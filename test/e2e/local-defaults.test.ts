// The local settings that every clone carries (.dev.vars.example) are exactly the ones a deployed
// Worker refuses: if one changes in the file, the Worker's list must change with it.
import { describe, expect, it } from "vitest";
import { KNOWN_DEFAULTS } from "../../src/config/known-defaults";
import { localVars } from "./support/local-vars";

describe(".dev.vars.example", () => {
  it("holds only secrets a deployment refuses as published defaults", () => {
    const vars = localVars();
    for (const name of ["API_TOKEN", "RUN_ID_KEY", "TOOL_SIGNING_KEY", "WEBHOOK_SECRET", "VAPID_PRIVATE_KEY"]) {
      expect(vars[name], name).toBeDefined();
      expect(KNOWN_DEFAULTS.has(vars[name]!), name).toBe(true);
    }
    expect(vars.LOCAL_DEV).toBe("true");
  });
});
