// A client toolset the tests share: a browser with two actions (docs/api.md, client toolsets).
export const browserToolset = {
  type: "client-toolset",
  name: "browser",
  actions: [
    { name: "navigate", description: "Open a URL.", inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } },
    { name: "click", description: "Click an element.", inputSchema: { type: "object", properties: { selector: { type: "string" } }, required: ["selector"] } },
  ],
};
