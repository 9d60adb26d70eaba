// The credential the test MCP server behind a header wants (server.ts): shared by the server and the tests.
export const MCP_TEST_SECRET = "mcp-test-secret-4f1c9a7e2b";
