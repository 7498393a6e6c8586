// Replays generated sessions call by call through a real OpenClaw dist and writes whole-session vectors.
// Usage: node harness.mjs <version> <sessions.json> <vectors.json>
// The version's wiring lives in v<version>.mjs; this file only feeds calls, sets the clock and diffs.
import { register } from "node:module";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const [version, sessionsPath, outPath] = process.argv.slice(2);
const adapter = await import(pathToFileURL(join(here, `v${version}.mjs`)).href);
register("./expose-loader.mjs", import.meta.url, { data: { wanted: adapter.INTERNALS } });

// Find the chunk defining each internal function; the loader exports it as __trimscope_<name>.
// The version's own dist, then the @openclaw/ai it resolves (nested under it, else hoisted).
const root = join(here, "node_modules", `openclaw-${version}`);
const nestedAi = join(root, "node_modules", "@openclaw", "ai", "dist");
const dists = [join(root, "dist"), existsSync(nestedAi) ? nestedAi : join(here, "node_modules", "@openclaw", "ai", "dist")];
const fns = {};
const missing = new Set(adapter.INTERNALS);
for (const dir of dists) {
  for (const f of readdirSync(dir).filter((name) => /\.m?js$/.test(name))) {
    if (missing.size === 0) break;
    const source = readFileSync(join(dir, f), "utf8");
    for (const name of [...missing]) {
      if (!new RegExp(`^(?:(?:async )?function ${name}\\(|const ${name} = )`, "m").test(source)) continue;
      fns[name] = (await import(pathToFileURL(join(dir, f)).href))[`__trimscope_${name}`];
      missing.delete(name);
    }
  }
}
if (missing.size > 0) throw new Error(`not found under ${root}: ${[...missing].join(", ")}`);
const runtime = adapter.createVersion(fns);

const realNow = Date.now;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const changedIndexes = (before, after) =>
  after.flatMap((m, i) => (same(m, before[i]) ? [] : [i]));

function ttlDecision(lastTouch, ttlMs, now) {
  if (ttlMs == null) return null;
  if (!lastTouch) return "no-marker";
  if (ttlMs <= 0) return "ttl-off";
  return now - lastTouch < ttlMs ? "within-ttl" : "expired";
}

const sessions = JSON.parse(readFileSync(sessionsPath, "utf8"));
const vectors = [];
for (const session of sessions) {
  const entries = session.markers.map((data, i) => ({
    type: "custom",
    customType: "openclaw.cache-ttl",
    data,
    id: `m${i}`,
    parentId: null,
    timestamp: new Date(data.timestamp || 0).toISOString(),
  }));
  const expected = { attempts: [] };
  for (const attempt of session.attempts) {
    // A fresh SessionManager per attempt, as each run opens the transcript anew; markers persist.
    const sessionManager = {
      getEntries: () => entries,
      appendCustomEntry(customType, data) {
        entries.push({ type: "custom", customType, data, id: `m${entries.length}`, parentId: null });
      },
    };
    const spy = {};
    Date.now = () => attempt.calls[0]?.now ?? attempt.endedAt;
    const history = session.messages.slice(0, attempt.calls[0]?.messageCount ?? session.messages.length);
    const run = await runtime.createAttempt({ session, sessionManager, spy, history });
    const calls = [];
    for (const call of attempt.calls) {
      Date.now = () => call.now;
      const input = session.messages.slice(0, call.messageCount);
      const before = run.lastTouch();
      const record = {
        ttl: run.pruningActive ? ttlDecision(before, run.ttlMs, call.now) : null,
        lastCacheTouchAtBefore: before,
      };
      spy.stages = [];
      try {
        const out = await run.call(input, call.now);
        record.overflow = false;
        record.stages = {};
        let previous = input;
        for (const [stage, output] of spy.stages) {
          record.stages[stage] = changedIndexes(previous, output);
          previous = output;
        }
        record.changed = Object.fromEntries(changedIndexes(input, out).map((i) => [String(i), out[i]]));
      } catch (error) {
        // The guard throws when the whole context is over 90% of the window (preemptive overflow).
        record.overflow = true;
        record.error = String(error?.message ?? error);
      }
      record.lastCacheTouchAtAfter = run.lastTouch();
      calls.push(record);
    }
    Date.now = () => attempt.endedAt;
    const markerAppended = run.end(attempt.endedAt);
    expected.attempts.push({ pruningActive: run.pruningActive, policy: run.policy, ...run.extra, calls, markerAppended });
  }
  Date.now = realNow;
  vectors.push({ name: session.name, input: session, expected });
}
// Vectors are large and regenerable: gzip-compressed when the path ends in .gz (deterministic: no mtime).
const body = JSON.stringify(vectors) + "\n";
writeFileSync(outPath, outPath.endsWith(".gz") ? gzipSync(body, { level: 9 }) : body);
console.log(`${version}: ${vectors.length} sessions, ${vectors.reduce((n, v) => n + v.expected.attempts.reduce((k, a) => k + a.calls.length, 0), 0)} calls -> ${outPath}`);
