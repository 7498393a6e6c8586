// openclaw@2026.9.6: one embedded attempt, wired the way the dist wires it.
//
// Sources (dist of openclaw@2026.9.6, builtin-openclaw-*.mjs unless noted; rolldown keeps source paths):
//  * src/agents/embedded-agent-runner/run/attempt-*.ts: `installEmbeddedAttemptContextGuards(input)` wraps the
//    agent's `transformContext` with, in this order: the cache-TTL projection
//    (`pruneExpiredCacheTtlToolResults`, tool-result-truncation.ts; no extension any more), the tool-result
//    context guard, the history image cleanup (`installHistoryImagePruneContextTransform`, which now also
//    cleans *before* the inner transforms), and the computer-frame check. Driven here as is.
//  * Its clock: `lastCacheTouchAt` is read from the newest matching `openclaw.cache-ttl` marker, set to
//    Date.now() when the projection prunes, and `recordCacheTouch(startedAt)` is called by
//    `wrapStreamFnWithDiagnosticModelCallEvents` (attempt.model-diagnostic-events-*.mjs, `onSucceeded`) after
//    every successful model call with that call's start time; the harness calls it after each call with `now`.
//  * Tool-result projections persist per session (`getEmbeddedSessionPromptState(sessionId).toolResults`,
//    session-prompt-state.ts), restored from markers at attempt start (`restoreCacheTtlToolResultProjections`)
//    and reconciled against the history (`reconcileToolResultPromptProjectionState`).
//  * `pruneNewRounds` is off when Anthropic server-side tool clearing is on (`isAnthropicServerToolClearingEnabled`,
//    @openclaw/ai anthropic-stream-reducer: mode cache-ttl, direct Anthropic, API key (not OAuth)).
//  * At the stream (submitEmbeddedAttemptPrompt, installProviderPromptHistoryTransform): the outermost
//    wrapper applies `truncateOversizedToolResultsInMessages(messages, contextTokenBudget, perResultMax,
//    aggregateMax, projectionState)` and persists frozen projections; inner wrappers apply the transcript
//    policy (`dropThinkingBlocks`).
//  * After the attempt: `appendAttemptCacheTtlIfNeeded` (attempt-thread-helpers.ts) appends the marker at
//    Date.now(), now carrying the projection snapshot.
//  * Provider-side compaction plans (@openclaw/ai): `resolveOpenAIResponsesServerCompactionPlan(model,
//    extraParams)` and `resolveAnthropicServerCompactionPlan(model, extraParams, apiKey)`; recorded per attempt.
export const INTERNALS = [
  "installEmbeddedAttemptContextGuards",
  "isCacheTtlEligibleProvider",
  "appendAttemptCacheTtlIfNeeded",
  "getEmbeddedSessionPromptState",
  "persistToolResultProjections",
  "restoreCacheTtlToolResultProjections",
  "reconcileToolResultPromptProjectionState",
  "truncateOversizedToolResultsInMessages",
  "resolveLiveToolResultAggregateMaxChars",
  "resolveLiveToolResultMaxChars",
  "dropThinkingBlocks",
  "resolveTranscriptPolicy",
  "resolveOpenAIResponsesServerCompactionPlan",
  "resolveAnthropicServerCompactionPlan",
  "isAnthropicServerToolClearingEnabled",
  "readLastCacheTtlTimestamp",
  "resolveCacheTtlPruningSettings",
];

const API_KEYS = { api_key: "sk-ant-api03-trimscope-harness", oauth: "sk-ant-oat01-trimscope-harness" };

export function createVersion(fns) {
  return {
    async createAttempt({ session, sessionManager, spy, history }) {
      const cfg = session.config;
      const model = session.model;
      const apiKey = API_KEYS[session.auth ?? "api_key"];
      const contextTokenBudget = session.contextTokenBudget ?? model.contextWindow;
      const projectionState = fns.getEmbeddedSessionPromptState(session.name).toolResults;
      fns.restoreCacheTtlToolResultProjections(projectionState, sessionManager.getEntries());
      // prepareEmbeddedAttemptPromptContext: reconciled once per attempt against the session history.
      fns.reconcileToolResultPromptProjectionState(history, projectionState);
      const policy = fns.resolveTranscriptPolicy({ modelApi: model.api, provider: model.provider, modelId: model.id, model });
      const serverToolClearing =
        cfg?.agents?.defaults?.contextPruning?.mode === "cache-ttl" && fns.isAnthropicServerToolClearingEnabled(model, apiKey);
      const agent = {
        // pi AgentSession: transformContext -> ExtensionRunner.emitContext (structuredClone, no context hooks left)
        transformContext: async (messages) => structuredClone(messages),
      };
      const activeSession = { agent, messages: [] };
      const inner = agent.transformContext;
      const guards = fns.installEmbeddedAttemptContextGuards({
        activeSession,
        agentDir: "/tmp/trimscope-harness",
        attempt: {
          provider: model.provider,
          modelId: model.id,
          model,
          config: cfg,
          contextTokenBudget,
          sessionId: session.name,
          workspaceDir: "/tmp/trimscope-harness",
        },
        computerContextEpoch: {},
        dropThinkingBlocksForEstimate: policy.dropThinkingBlocks === true,
        effectiveCwd: "/tmp/trimscope-harness",
        effectiveFsWorkspaceOnly: true,
        effectiveWorkspace: "/tmp/trimscope-harness",
        getPrePromptMessageCount: () => 0,
        getPromptCache: () => undefined,
        onCurrentTurnImageFailure: () => {},
        getPromptCacheRetention: () => undefined,
        getCompactionReplayEnabled: () => false,
        getServerToolClearingEnabled: () => serverToolClearing,
        toolResultPromptProjectionState: projectionState,
        getSystemPrompt: () => "",
        isOpenAIResponsesApi: false,
        repairToolUseResultPairing: false,
        sessionAgentId: "main",
        sessionManager,
        settingsManager: { getCompactionReserveTokens: () => 0, getBlockImages: () => false },
      });
      const perResultMax = fns.resolveLiveToolResultMaxChars({ contextWindowTokens: contextTokenBudget });
      const aggregateMax = fns.resolveLiveToolResultAggregateMaxChars({
        contextWindowTokens: contextTokenBudget,
        perResultMaxChars: perResultMax,
      });
      const pruningActive =
        cfg?.agents?.defaults?.contextPruning?.mode === "cache-ttl" &&
        fns.isCacheTtlEligibleProvider(model.provider, model.id, model.api, { baseUrl: model.baseUrl });
      const extraParams = session.extraParams ?? {};
      const openai = fns.resolveOpenAIResponsesServerCompactionPlan(model, extraParams);
      const anthropic = fns.resolveAnthropicServerCompactionPlan(model, extraParams, apiKey);
      const settings = pruningActive ? fns.resolveCacheTtlPruningSettings(cfg.agents.defaults.contextPruning) : undefined;
      let lastTouch = settings
        ? fns.readLastCacheTtlTimestamp(sessionManager, { provider: model.provider, modelId: model.id })
        : null;
      // The clock lives in a closure of installEmbeddedAttemptContextGuards; it is observed through
      // recordCacheTouch / onPruned only, so the harness mirrors it: read at start, bumped when the
      // projection changed the context, set to each successful call's start.
      return {
        pruningActive,
        policy: { dropThinkingBlocks: policy.dropThinkingBlocks === true },
        extra: {
          serverToolClearing,
          compaction: {
            openaiResponses: openai.enabled ? { threshold: openai.threshold } : null,
            anthropic: anthropic.enabled ? { threshold: anthropic.threshold } : null,
          },
        },
        ttlMs: settings ? settings.ttlMs : null,
        lastTouch: () => lastTouch,
        async call(messages, now) {
          const out = await agent.transformContext(messages);
          spy.stages.push(["context", out]);
          const provider = fns.truncateOversizedToolResultsInMessages(out, contextTokenBudget, perResultMax, aggregateMax, projectionState).messages;
          fns.persistToolResultProjections(projectionState, (customType, data) => sessionManager.appendCustomEntry(customType, data));
          spy.stages.push(["providerTruncation", provider]);
          const sent = policy.dropThinkingBlocks ? fns.dropThinkingBlocks(provider) : provider;
          spy.stages.push(["transcriptPolicy", sent]);
          // onPruned and recordCacheTouch(startedAt) both set the closure clock to this call's time.
          guards.recordCacheTouch(now);
          if (settings) lastTouch = now;
          return sent;
        },
        end(now) {
          guards.remove();
          return fns.appendAttemptCacheTtlIfNeeded({
            sessionManager,
            config: cfg,
            provider: model.provider,
            modelId: model.id,
            modelApi: model.api,
            modelRoute: { baseUrl: model.baseUrl },
            isCacheTtlEligibleProvider: fns.isCacheTtlEligibleProvider,
            toolResultPromptProjectionState: projectionState,
            now,
          });
        },
      };
    },
  };
}
