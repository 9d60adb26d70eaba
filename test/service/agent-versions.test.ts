// GET /v1/agents/{name}/versions through the Worker: an agent's versions, newest first, in pages
// with a cursor, each as the caller may see it: the whole to the deployment token; to a user
// token, the versions whose own subject is absent or its own, without their template, and 404 for
// an agent it does not see; a deleted agent's versions are gone with it.
import { describe, expect, it } from "vitest";
import type { AgentView } from "../../src/api/resources/agent-types";
import { agentName, agentsCall, issuePaths, makeAgent, patchAgent, scriptedTemplate } from "../helpers/agents";
import { freshSubject, userToken } from "../helpers/inbox";

type Page = { versions: AgentView[]; nextCursor?: string };

async function versionsPage(name: string, query = "", token?: string): Promise<{ status: number; page: Page }> {
  const response = await agentsCall(`/${name}/versions${query}`, {}, token);
  return { status: response.status, page: (await response.json()) as Page };
}

describe("GET /v1/agents/{name}/versions", () => {
  it("lists every version newest first, each as it was made, in pages with a cursor", async () => {
    const name = agentName("listed-versions");
    await makeAgent({ name, description: "One.", run: scriptedTemplate("one") });
    await patchAgent(name, { description: "Two." });
    await patchAgent(name, { run: scriptedTemplate("three") });
    const all = await versionsPage(name);
    expect(all.status).toBe(200);
    expect(all.page.versions.map((version) => [version.version, version.description])).toEqual([[3, "Two."], [2, "Two."], [1, "One."]]);
    expect(all.page.versions[2]).toMatchObject({ name, run: { script: [{ text: "one" }] }, provider: "scripted" });
    expect(all.page.versions[0]!.createdAt).toBe(all.page.versions[2]!.createdAt);
    expect(all.page.nextCursor).toBeUndefined();

    const first = await versionsPage(name, "?limit=2");
    expect(first.page.versions.map((version) => version.version)).toEqual([3, 2]);
    const second = await versionsPage(name, `?limit=2&cursor=${first.page.nextCursor!}`);
    expect(second.page).toEqual({ versions: [all.page.versions[2]] });
    expect(await issuePaths(await agentsCall(`/${name}/versions?cursor=x`))).toEqual(["cursor"]);
    expect(await issuePaths(await agentsCall(`/${name}/versions?limit=0`))).toEqual(["limit"]);
  });

  it("a user token sees the versions it may read, without their template; an agent it does not see is 404", async () => {
    const owner = freshSubject("versions-owner");
    const name = agentName("shared-later");
    await makeAgent({ name, subject: owner, description: "Private.", run: scriptedTemplate("private prompt") });
    await patchAgent(name, { subject: null, description: "Shared." });
    const other = await userToken(freshSubject("versions-other"));
    const seen = await versionsPage(name, "", other);
    expect(seen.status).toBe(200);
    expect(seen.page.versions.map((version) => version.version)).toEqual([2]);
    expect(Object.keys(seen.page.versions[0]!).sort()).toEqual(["createdAt", "description", "name", "version", "versionCreatedAt"]);
    expect((await versionsPage(name, "", await userToken(owner))).page.versions.map((version) => [version.version, version.subject])).toEqual([[2, undefined], [1, owner]]);

    const hidden = agentName("hidden");
    await makeAgent({ name: hidden, subject: owner });
    expect((await versionsPage(hidden, "", other)).status).toBe(404);
    expect((await versionsPage(agentName("nobody"))).status).toBe(404);
  });

  it("a deleted agent's versions are gone; the name made again lists only its own", async () => {
    const name = agentName("deleted-versions");
    await makeAgent({ name });
    await patchAgent(name, { description: "Two." });
    expect((await agentsCall(`/${name}`, { method: "DELETE" })).status).toBe(204);
    expect((await versionsPage(name)).status).toBe(404);
    await makeAgent({ name, description: "Again." });
    expect((await versionsPage(name)).page.versions.map((version) => [version.version, version.description])).toEqual([[3, "Again."]]);
  });
});
