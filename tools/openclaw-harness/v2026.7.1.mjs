// openclaw@2026.7.1: one embedded attempt, wired the way the dist wires it.
//
// Sources (dist of openclaw@2026.7.1; rolldown keeps each region's source path):
//  * src/agents/embedded-agent-runner/run/attempt.ts (selection-*.js, runEmbeddedAttempt): builds the
//    resource loader with `buildEmbeddedExtensionFactories({cfg, sessionManager, provider, modelId, model})`,
//    then `installToolResultContextGuard({agent, contextWindowTokens: contextTokenBudgetForGuard})`, then
//    `installHistoryImagePruneContextTransform(agent)`; each wraps the agent's previous `transformContext`, so
//    per model call the order is: extension `context` hooks -> tool-result context guard -> history image
//    cleanup. Afterwards `wrapStreamFnWithMessageTransform` drops thinking blocks when the transcript policy
//    says `dropThinkingBlocks` (`dropThinkingBlocks`, src/agents/embedded-agent-runner/thinking.ts).
//  * contextTokenBudgetForGuard = max(1, floor(contextTokenBudget ?? model.contextWindow ?? model.maxTokens
//    ?? 200000)) (attempt.ts).
//  * The pi-coding-agent AgentSession sets `agent.transformContext = (m) => runner.emitContext(m)`;
//    `ExtensionRunner.emitContext` (sessions-*.js) structuredClones the messages, then runs every `context`
//    handler in order, each seeing the previous handler's `messages` result.
//  * After the attempt: `appendAttemptCacheTtlIfNeeded` (src/agents/embedded-agent-runner/run/
//    attempt.thread-helpers.ts) appends the `openclaw.cache-ttl` marker with `timestamp: Date.now()`.
export const INTERNALS = [
  "buildEmbeddedExtensionFactories",
  "installToolResultContextGuard",
  "installHistoryImagePruneContextTransform",
  "getContextPruningRuntime",
  "appendAttemptCacheTtlIfNeeded",
  "isCacheTtlEligibleProvider",
  "resolveTranscriptPolicy",
  "dropThinkingBlocks",
];

export function createVersion(fns) {
  return {
    async createAttempt({ session, sessionManager, spy }) {
      const cfg = session.config;
      const model = session.model;
      const factories = fns.buildEmbeddedExtensionFactories({
        cfg,
        sessionManager,
        provider: model.provider,
        modelId: model.id,
        model,
        runId: "trimscope-harness",
      });
      const contextHandlers = [];
      const api = {
        on(event, handler) {
          if (event === "context") contextHandlers.push(handler);
        },
      };
      for (const factory of factories) factory(api);
      const pruningActive = factories.some((f) => f.name === "contextPruningExtension");
      const policy = fns.resolveTranscriptPolicy({ modelApi: model.api, provider: model.provider, modelId: model.id });
      const ctx = { sessionManager, model, cwd: "/tmp" };
      const agent = {
        // ExtensionRunner.emitContext (pi-coding-agent, sessions-*.js)
        transformContext: async (messages) => {
          let current = structuredClone(messages);
          for (const handler of contextHandlers) {
            const result = await handler({ type: "context", messages: current }, ctx);
            if (result && result.messages) current = result.messages;
          }
          spy.stages.push(["pruning", current]);
          return current;
        },
      };
      const guardTokens = Math.max(
        1,
        Math.floor(session.contextTokenBudget ?? model.contextWindow ?? model.maxTokens ?? 2e5),
      );
      fns.installToolResultContextGuard({ agent, contextWindowTokens: guardTokens });
      const guarded = agent.transformContext;
      agent.transformContext = async (messages, signal) => {
        const out = await guarded(messages, signal);
        spy.stages.push(["guard", out]);
        return out;
      };
      fns.installHistoryImagePruneContextTransform(agent);
      const runtime = () => fns.getContextPruningRuntime(sessionManager);
      return {
        pruningActive,
        extra: {},
        policy: { dropThinkingBlocks: policy.dropThinkingBlocks === true },
        ttlMs: runtime()?.settings?.ttlMs ?? null,
        lastTouch: () => runtime()?.lastCacheTouchAt ?? null,
        async call(messages) {
          const out = await agent.transformContext(messages);
          spy.stages.push(["images", out]);
          const sent = policy.dropThinkingBlocks ? fns.dropThinkingBlocks(out) : out;
          spy.stages.push(["transcriptPolicy", sent]);
          return sent;
        },
        end(now) {
          return fns.appendAttemptCacheTtlIfNeeded({
            config: cfg,
            isCacheTtlEligibleProvider: fns.isCacheTtlEligibleProvider,
            provider: model.provider,
            modelId: model.id,
            modelApi: model.api,
            sessionManager,
            now,
          });
        },
      };
    },
  };
}
