// Test values of the keys HTTP tool requests are signed with, shared by the tool server that
// verifies them (global-setup.ts, which also hands the current one to the test Worker's bindings
// in vitest.config.ts) and the tests.
// Never use these anywhere else: they are public.
export const TEST_TOOL_SIGNING_KEY = "whsec_r+0SmuwlSTMek8ozPQvWxN4XXQzxQUQlB1gNaJhTIjA=";

/** The key before TEST_TOOL_SIGNING_KEY, for rotation tests: the test Worker is not given it. */
export const TEST_TOOL_SIGNING_KEY_PREVIOUS = "whsec_/NkqjEwmmhohM/16Ov2nhk4XsPXpEhZyrCV6drDMI3o=";
