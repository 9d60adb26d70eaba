// The run console: start a run, or open one by id and token, and watch it live through the
// typed client (WebSocket events that reconnect by themselves); or open a person's inbox with a
// user token, answer the runs waiting for them in place, and have this browser ring when one waits
// (push-control.ts); or, with the deployment token, list the experiments, start one, and follow
// one's case table live, each case's run opening here beside its recording (experiments/). An
// installable web app: its service worker (service-worker/sw.ts) keeps the shell and shows the
// notifications, whose tap opens the run here.
import { createClient, type AnswerRequest, type MessageMode, type RatchetClient, type RunSummary } from "@ratchet/client";
import { describe } from "./describe-error";
import { byId } from "./dom";
import { field, onSubmit, tell } from "./form-submit";
import { InboxPanel } from "./inbox-panel";
import { PushControl, registerServiceWorker, rememberedUserToken } from "./push-control";
import { RunPanel } from "./run-panel";
import { SchedulesPanel } from "./schedules-panel";
import { AgentsPanel, listAgents, startAgentRun } from "./agents-panel";
import { experimentsApi } from "./experiments/experiment-api";
import { followExperiment } from "./experiments/experiment-follow";
import { ExperimentPage } from "./experiments/experiment-page";
import { ExperimentsPanel } from "./experiments/experiments-panel";
import { ExperimentForm } from "./experiments/experiment-form";
import { readStartForm, setUpStartForm } from "./start-form";

const baseUrl = location.origin;
const panel = new RunPanel();
const startForm = byId("start-form", HTMLFormElement);
const openForm = byId("open-form", HTMLFormElement);
const startError = byId("start-error", HTMLParagraphElement);
const openError = byId("open-error", HTMLParagraphElement);
const inboxForm = byId("inbox-form", HTMLFormElement);
const inboxFormError = byId("inbox-form-error", HTMLParagraphElement);
const inbox = new InboxPanel();
const schedulesForm = byId("schedules-form", HTMLFormElement);
const schedulesFormError = byId("schedules-form-error", HTMLParagraphElement);
const schedules = new SchedulesPanel();
const agentsForm = byId("agents-form", HTMLFormElement);
const agentsFormError = byId("agents-form-error", HTMLParagraphElement);
const agents = new AgentsPanel();
const experimentsForm = byId("experiments-form", HTMLFormElement);
const experimentsFormError = byId("experiments-form-error", HTMLParagraphElement);
const experiments = new ExperimentsPanel();
const experimentPage = new ExperimentPage();
const experimentForm = new ExperimentForm();
const push = new PushControl();
let watching: AbortController | undefined;
let watchingExperiment: AbortController | undefined;
let watchingInbox: AbortController | undefined;

/** The runs waiting for the token's subject, newest first (at most ten pages), and where the inbox stream stood at the first page. */
async function waitingRuns(client: RatchetClient): Promise<{ runs: RunSummary[]; lastSeq: number }> {
  const runs: RunSummary[] = [];
  let lastSeq: number | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const answer = await client.listRuns(cursor === undefined ? { status: "waiting" } : { status: "waiting", cursor });
    lastSeq ??= answer.lastSeq;
    runs.push(...answer.runs);
    cursor = answer.nextCursor;
    if (cursor === undefined) break;
  }
  return { runs, lastSeq: lastSeq ?? 0 };
}

/** Lists what waits for the user token's subject, then follows its inbox stream. */
async function openInbox(token: string): Promise<void> {
  watchingInbox?.abort();
  const controller = new AbortController();
  watchingInbox = controller;
  const client = createClient({ baseUrl, token, WebSocket });
  const { runs: waiting, lastSeq } = await waitingRuns(client);
  inbox.open(waiting, {
    answer: async (runId, body) => void (await client.answer(runId, body)),
    open: (runId) => void watch(runId, token).catch((error: unknown) => inbox.showError(describe(error))),
  });
  void push.open(client, token).catch((error: unknown) => inbox.showError(describe(error)));
  void (async () => {
    try {
      // Every change since the listing: nothing between the two is missed.
      for await (const event of client.inbox({ after: lastSeq, signal: controller.signal })) inbox.apply(event);
    } catch (error) {
      if (!controller.signal.aborted) inbox.showError(describe(error));
    }
  })();
}

/** The run token stays in this tab (sessionStorage), so a reload reopens the run in #<id>. */
function remember(runId: string, token: string): void {
  sessionStorage.setItem(`ratchet:${runId}`, token);
  history.replaceState(null, "", `#${runId}`);
  byId("open-id", HTMLInputElement).value = runId;
}

/** A run token (`rt_…`), which reads one run and its children; the deployment token and user tokens read more. */
function isRunToken(token: string): boolean {
  return token.startsWith("rt_");
}

async function watch(runId: string, token: string): Promise<void> {
  watching?.abort();
  const controller = new AbortController();
  watching = controller;
  const client = createClient({ baseUrl, token, WebSocket });
  const [run, messages] = await Promise.all([client.getRun(runId), client.getMessages(runId)]);
  remember(runId, token);
  const actions = {
    answer: async (body: AnswerRequest) => void (await client.answer(runId, body)),
    cancel: async () => void (await client.cancel(runId)),
    message: async (content: string, mode: MessageMode) => void (await client.sendMessage(runId, content, { mode })),
    // A fork keeps this run's steps up to atStep (replayed, never asked again) and runs on from there: open it.
    fork: async (atStep: number) => {
      const forked = await client.forkRun(runId, { atStep });
      await watch(forked.run.id, forked.token);
    },
    // The source of a fork, read with its own token when this tab forked it (or opened it), else with this one (the deployment token reads any run).
    // A run token reads only its own run (and its children): a fork's own token is not asked for its source, which would only be a 404.
    source: async (sourceId: string) => {
      const known = sessionStorage.getItem(`ratchet:${sourceId}`) ?? (isRunToken(token) ? undefined : token);
      if (known === undefined) return undefined;
      return createClient({ baseUrl, token: known }).getRun(sourceId).catch(() => undefined);
    },
    openSource: (sourceId: string) => {
      const known = sessionStorage.getItem(`ratchet:${sourceId}`) ?? token;
      void watch(sourceId, known).catch((error: unknown) => panel.showError(describe(error)));
    },
    // A child (or the parent) opens in place, with the same token: a parent's run token reads its children.
    openRun: (id: string) => void watch(id, token).catch((error: unknown) => panel.showError(describe(error))),
  };
  panel.open(run, token, actions, messages);
  // Focus (and on a phone, scroll) to the run, so its steps are what a screen reader reads next.
  byId("run", HTMLElement).focus();
  void (async () => {
    try {
      // follow: a finished run may be continued from here (the message box): its next segment's
      // events come on the same stream. Opening another run aborts this one.
      for await (const event of client.events(runId, { signal: controller.signal, follow: true })) panel.apply(event);
    } catch (error) {
      if (!controller.signal.aborted) panel.showError(describe(error));
    }
  })();
}

setUpStartForm(startForm);

onSubmit(startForm, startError, () => {
  const request = readStartForm(startForm);
  if ("error" in request) return request.error;
  return async () => {
    const { run, token } = await createClient({ baseUrl, token: request.deployToken }).createRun(request.body);
    await watch(run.id, token);
  };
});

onSubmit(openForm, openError, (data) => {
  const runId = field(data, "runId");
  const token = field(data, "runToken");
  if (runId === "" || token === "") return "Give the run id and its token.";
  return () => watch(runId, token);
});

onSubmit(inboxForm, inboxFormError, (data) => {
  const token = field(data, "userToken");
  if (token === "") return "Give a user token (POST /v1/tokens makes one).";
  return () => openInbox(token);
});

/** The token's schedules (first page), each with pause and resume, run now, and its runs to open. */
async function openSchedules(token: string, subject: string | undefined): Promise<void> {
  const client = createClient({ baseUrl, token, WebSocket });
  const page = await client.listSchedules(subject === undefined ? {} : { subject });
  schedules.open(page.schedules, {
    setPaused: (scheduleId, paused) => client.updateSchedule(scheduleId, { paused }),
    trigger: async (scheduleId) => {
      await client.triggerSchedule(scheduleId);
      return client.getSchedule(scheduleId);
    },
    openRun: (runId) => void watch(runId, token).catch((error: unknown) => schedules.showError(describe(error))),
  });
}

onSubmit(schedulesForm, schedulesFormError, (data) => {
  const token = field(data, "scheduleToken");
  const subject = field(data, "subject");
  if (token === "") return "Give a user token or the deployment token.";
  return () => openSchedules(token, subject === "" ? undefined : subject);
});

/** The agents the token sees, each started from its own message box; the run opens with its run token. */
onSubmit(agentsForm, agentsFormError, (data) => {
  const token = field(data, "agentsToken");
  if (token === "") return "Give a user token or the deployment token.";
  return async () => {
    agents.open(await listAgents(baseUrl, token), async (name, text) => {
      const started = await startAgentRun(baseUrl, token, name, text);
      await watch(started.run.id, started.token);
    });
  };
});

/**
 * Opens an experiment (the deployment token reads it) and follows it while it runs; a case's run
 * and its recording open in the run panel with the same token.
 */
function openExperiment(token: string, id: string): void {
  watchingExperiment?.abort();
  const controller = new AbortController();
  watchingExperiment = controller;
  const api = experimentsApi(baseUrl, token);
  void followExperiment({
    api,
    id,
    page: experimentPage,
    openRun: (runId) => void watch(runId, token).catch((error: unknown) => experimentPage.showError(describe(error))),
    onChange: (view) => experiments.update(view),
    signal: controller.signal,
  }).catch((error: unknown) => experiments.showError(describe(error)));
}

/** The deployment's experiments, and the form that starts one of a dataset (a new one opens at once). */
async function showExperiments(token: string): Promise<void> {
  const api = experimentsApi(baseUrl, token);
  const open = (id: string) => openExperiment(token, id);
  // The list first: a token that may not read it asks nothing more.
  experiments.open(await api.list(), open);
  const [datasets, agentItems] = await Promise.all([api.datasets(), listAgents(baseUrl, token)]);
  experimentForm.open(datasets, agentItems, async (body) => {
    const made = await api.create(body);
    experiments.open(await api.list(), open);
    open(made.id);
  });
}

onSubmit(experimentsForm, experimentsFormError, (data) => {
  const token = field(data, "experimentsToken");
  if (token === "") return "Give the deployment token.";
  return () => showExperiments(token);
});

/**
 * Opens the run named in the address (a reload, a shared link in this tab, a tapped notification):
 * with its run token from this tab, or else the user token remembered for notifications.
 */
function openNamedRun(runId: string): void {
  if (runId === "") return;
  const token = sessionStorage.getItem(`ratchet:${runId}`) ?? rememberedUserToken();
  if (token !== null) void watch(runId, token).catch((error: unknown) => tell(openError, describe(error)));
}

openNamedRun(decodeURIComponent(location.hash.slice(1)));
addEventListener("hashchange", () => openNamedRun(decodeURIComponent(location.hash.slice(1))));
// A notification tapped while this console is open: the service worker names the run.
navigator.serviceWorker?.addEventListener("message", (event: MessageEvent<{ type?: unknown; runId?: unknown }>) => {
  if (event.data?.type === "ratchet:open-run" && typeof event.data.runId === "string") openNamedRun(event.data.runId);
});
void registerServiceWorker()?.catch(() => undefined);
