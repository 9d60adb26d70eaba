// The fake Anthropic server is strict about the tools that are not plain, as the real API is:
// native client tool types, toolset_name on tool_use and tool_result, server tool blocks sent
// back (unchanged, paired, issued by it), the tools a turn needs, and containers.
import { describe, expect, it } from "vitest";
import { advanceClock, fakeAnthropicUrl, script, uniqueModel } from "../fake-anthropic/client";

type Answer = { status: number; body: { error?: { message: string }; content?: Record<string, unknown>[]; container?: { id: string } | null } };

async function post(body: Record<string, unknown>, betas?: string): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json", "x-api-key": "test-key", "anthropic-version": "2023-06-01" };
  if (betas !== undefined) headers["anthropic-beta"] = betas;
  const response = await fetch(`${fakeAnthropicUrl()}/v1/messages`, { method: "POST", headers, body: JSON.stringify({ max_tokens: 100, ...body }) });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

const hi = [{ role: "user", content: "hi" }];

async function refused(body: Record<string, unknown>, pattern: RegExp, betas?: string): Promise<void> {
  const answer = await post(body, betas);
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.error!.message).toMatch(pattern);
}

describe("the fake server's checks of tools that are not plain", () => {
  it("native client tool types: fixed names, required fields, beta headers and toolset members", async () => {
    const model = uniqueModel();
    await refused({ model, messages: hi, tools: [{ type: "computer_20251124", name: "computer", display_width_px: 800 }] }, /display_height_px: Field required/, "computer-use-2025-11-24");
    await refused({ model, messages: hi, tools: [{ type: "computer_20251124", name: "computer", display_width_px: 800, display_height_px: 600 }] }, /requires the anthropic-beta header computer-use-2025-11-24/);
    await refused({ model, messages: hi, tools: [{ type: "bash_20250124", name: "shell" }] }, /name: Input should be 'bash'/);
    await refused({ model, messages: hi, tools: [{ type: "computer_toolset_20260801", name: "computer" }] }, /name: Extra inputs are not permitted/);
    await refused({ model, messages: hi, tools: [{ type: "browser_toolset_20260801", configs: { teleport: { enabled: false } } }] }, /configs\.teleport: Extra inputs/);
    await refused({ model, messages: hi, tools: [{ type: "web_search_20250305", name: "search" }] }, /name: Input should be 'web_search'/);
    await refused({ model, messages: hi, tools: [{ type: "time_machine_20990101", name: "t" }] }, /Input tag 'time_machine_20990101'/);
    expect((await post({ model, messages: hi, tools: [{ type: "computer_20251124", name: "computer", display_width_px: 800, display_height_px: 600 }] }, "computer-use-2025-11-24")).status).toBe(200);
  });

  it("toolset_name: a tool_use names a declared toolset and one of its enabled actions; its tool_result echoes it", async () => {
    const model = uniqueModel();
    const tools = [{ type: "computer_toolset_20260801", configs: { zoom: { enabled: false } } }];
    const use = (extra: Record<string, unknown>) => ({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "screenshot", input: {}, ...extra }] });
    const result = (extra: Record<string, unknown>) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok", ...extra }] });
    await refused({ model, tools, messages: [...hi, use({ toolset_name: "browser" }), result({ toolset_name: "browser" })] }, /no toolset browser in tools/);
    await refused({ model, tools, messages: [...hi, { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "zoom", input: {}, toolset_name: "computer" }] }, result({ toolset_name: "computer" })] }, /zoom is not an enabled action/);
    await refused({ model, tools, messages: [...hi, use({ toolset_name: "computer" }), result({})] }, /toolset_name: must be 'computer'/);
    await refused({ model, tools: [{ name: "screenshot", input_schema: { type: "object" } }], messages: [...hi, use({}), result({ toolset_name: "computer" })] }, /toolset_name: must be absent/);
    expect((await post({ model, tools, messages: [...hi, use({ toolset_name: "computer" }), result({ toolset_name: "computer" })] })).status).toBe(200);
  });

  it("server tool blocks: a turn's tools must be offered; blocks come back unchanged, paired and issued by the fake", async () => {
    const model = uniqueModel();
    await script(model, [{ serverTools: [{ webSearch: { query: "q", results: [{ title: "T", url: "https://t.example/" }] } }], text: "Found." }, { text: "ok" }]);
    await refused({ model, messages: hi, stream: false }, /uses web_search, which the request's tools do not offer/);
    const tools = [{ type: "web_search_20250305", name: "web_search" }];
    const answer = await post({ model, messages: hi, tools, stream: false });
    expect(answer.status).toBe(200);
    const blocks = answer.body.content!;
    expect(blocks.map((block) => block.type)).toEqual(["server_tool_use", "web_search_tool_result", "text"]);
    const back = (content: Record<string, unknown>[]) => ({ model, tools, stream: false, messages: [...hi, { role: "assistant", content }, { role: "user", content: "more" }] });
    expect((await post(back(blocks))).status).toBe(200);
    const changed = structuredClone(blocks);
    (changed[1]!.content as Record<string, unknown>[])[0]!.encrypted_content = "forged";
    await refused(back(changed), /was modified; send server tool blocks back unchanged/);
    await refused(back([blocks[0]!, blocks[2]!]), /has no result block after it/);
    await refused(back([{ ...blocks[0]!, id: "srvtoolu_made_up" }, { ...blocks[1]!, tool_use_id: "srvtoolu_made_up" }]), /was not issued by this API/);
    await refused({ model, tools, messages: [{ role: "user", content: [blocks[0]] }] }, /only allowed in assistant messages/);
  });

  it("containers: code execution makes one; a request may name it until it expires, and no other", async () => {
    const model = uniqueModel();
    const tools = [{ type: "code_execution_20250825", name: "code_execution" }];
    await script(model, [{ serverTools: [{ codeExecution: { command: "ls", stdout: "" } }], text: "Listed." }, { text: "ok" }]);
    const first = await post({ model, tools, messages: hi, stream: false });
    expect(first.status).toBe(200);
    const id = first.body.container!.id;
    expect(id).toMatch(/^container_fake_/);
    await refused({ model, tools, messages: hi, container: "container_someone_elses", stream: false }, /Container container_someone_elses not found/);
    expect((await post({ model, tools, messages: hi, container: id, stream: false })).status).toBe(200);
    await advanceClock(model, 2 * 60 * 60 * 1000);
    await refused({ model, tools, messages: hi, container: id, stream: false }, /has expired/);
  });
});
