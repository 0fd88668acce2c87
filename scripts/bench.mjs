// npm run bench: performance figures for macs, printed and written to
// bench/results.json. Every figure is a median (p50) or p95 over many samples,
// reported next to a floor or baseline measured in the same run, because the
// machines this runs on are shared and noisy. The scenarios live in
// scripts/bench/; this file runs them in order and writes the results.
//
// Environment: BENCH_COUNT (requests of the single-agent scenarios, 100),
// BENCH_DELIVERY_COUNT (answers of each size, 20), BENCH_AGENTS (agent
// counts of the multi-agent scenario, "1,8,32"), BENCH_MULTI_SAMPLES
// (requests in all for each count, 64), BENCH_STRESS_AGENTS (agents of the
// stress run, each printing a request a second, 32; 0: no stress run),
// BENCH_STRESS_REQUESTS (requests per agent, 10), BENCH_IDLE_AGENTS (8), BENCH_IDLE_SEC (30),
// BENCH_FLEET (fleet sizes whose start is timed, 1,8,32,128),
// BENCH_SESSION_SETTLE_SEC (65: an idle session is left alone this long
// before its window of BENCH_IDLE_SEC), BENCH_ONLY (a comma-separated subset
// of single, baseline, delivery, multi, idle, fleet, session, stop, screen,
// startup, flood, terminal, web, push, remote: results are printed, not written).
// BENCH_STOP_AGENTS (4), BENCH_STOP_RUNS (3): `macs stop` of bash workers.
// BENCH_WEB_REQUESTS (20), BENCH_WEB_AGENTS (64), BENCH_WEB_SEC (20): macs web.
// BENCH_REMOTE_HOSTS (3), BENCH_REMOTE_AGENTS (32 a host),
// BENCH_REMOTE_REQUESTS (20 each, host and hub), BENCH_REMOTE_IDLE_SEC (30),
// BENCH_REMOTE_SETTLE_SEC (65: the hub's settled idle window starts this
// long after its status view did): workers on the test hosts over ssh
// (needs root, sshd and unshare).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchDelivery } from './bench/delivery.mjs';
import { benchIdle } from './bench/idle.mjs';
import { ROOT, now, round } from './bench/lib.mjs';
import { benchFleet } from './bench/fleet.mjs';
import { benchAgents } from './bench/multi.mjs';
import { benchRemote } from './bench/remote.mjs';
import { benchPush } from './bench/push.mjs';
import { benchSessionIdle } from './bench/session-idle.mjs';
import { benchStartup } from './bench/startup.mjs';
import { benchSend } from './bench/send.mjs';
import { benchStop } from './bench/stop.mjs';
import { benchBaseline, benchMacs } from './bench/single.mjs';
import {
  benchWebIdle,
  benchWebLatency,
  benchWebScreens,
} from './bench/web.mjs';

const started = now();
const number = (name, fallback) => Number(process.env[name] ?? fallback);
const COUNT = number('BENCH_COUNT', 100);
const DELIVERY_COUNT = number('BENCH_DELIVERY_COUNT', 20);
const AGENTS = (process.env.BENCH_AGENTS ?? '1,8,32').split(',').map(Number);
const MULTI_SAMPLES = number('BENCH_MULTI_SAMPLES', 64);
const MULTI_RATE = 4; // requests a second, all agents together
const STRESS_AGENTS = number('BENCH_STRESS_AGENTS', 32);
const STRESS_REQUESTS = number('BENCH_STRESS_REQUESTS', 10);
const FLEET = (process.env.BENCH_FLEET ?? '1,8,32,128').split(',').map(Number);
const IDLE_AGENTS = number('BENCH_IDLE_AGENTS', 8);
const IDLE_SEC = number('BENCH_IDLE_SEC', 30);
const ONLY = process.env.BENCH_ONLY?.split(',');
const runs = (name) => !ONLY || ONLY.includes(name);

const { BUILTIN_PRESETS } = await import(
  path.join(ROOT, 'dist', 'config', 'presets', 'index.js')
);
const GENERIC_PRESET = BUILTIN_PRESETS.generic;
const SHELL_PRESET = BUILTIN_PRESETS.shell;
const SUBMIT_DELAY_MS = GENERIC_PRESET.submitDelayMs;

const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
  node: process.version,
  tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(),
  platform: `${os.platform()} ${os.release()}`,
};

const row = (name, s, note = '') =>
  console.log(
    `${name.padEnd(44)} p50 ${String(s.p50).padStart(8)} ms   p95 ${String(s.p95).padStart(8)} ms   n=${s.n}${note}`,
  );

console.log(
  `macs bench: ${COUNT} requests per single-agent scenario on ${machine.cpus} cores (${machine.cpuModel}), ${machine.tmux}, node ${machine.node}`,
);
const results = {
  date: new Date().toISOString(),
  machine,
  requests: COUNT,
  submitDelayMs: SUBMIT_DELAY_MS,
};

if (runs('single')) {
  const macs = await benchMacs(COUNT);
  Object.assign(results, {
    floorMs: macs.floor,
    detectionMs: macs.detection,
    detectionOverFloorP50Ms: round(macs.detection.p50 - macs.floor.p50),
    roundTripMs: macs.roundTrip,
    roundTripLessSubmitDelayP50Ms: round(macs.roundTrip.p50 - SUBMIT_DELAY_MS),
  });
  row('floor: line printed -> in pipe-pane log', macs.floor);
  row(
    'detection: block printed -> inbox file',
    macs.detection,
    `   (+${results.detectionOverFloorP50Ms} ms over floor)`,
  );
  row(
    'round trip: printed -> submitted (instant)',
    macs.roundTrip,
    `   (${results.roundTripLessSubmitDelayP50Ms} ms + ${SUBMIT_DELAY_MS} ms submit delay)`,
  );
}

if (runs('baseline')) {
  const baseline = await benchBaseline(COUNT);
  results.baselineCapturePolling500ms = baseline;
  const ratio = results.detectionMs
    ? round(baseline.detection.p50 / results.detectionMs.p50, 1)
    : null;
  results.baselineOverMacsDetectionP50 = ratio;
  row(
    'baseline: capture-pane every 500 ms',
    baseline.detection,
    ratio === null ? '' : `   (${ratio}x macs detection p50)`,
  );
}

if (runs('delivery')) {
  const sizes = [100, 10_000, 100_000].map((bytes) => ({
    bytes,
    count: DELIVERY_COUNT,
  }));
  const delivery = await benchDelivery({
    sizes,
    submitDelayMs: SUBMIT_DELAY_MS,
    maxLiteralChars: GENERIC_PRESET.paste.maxLiteralChars,
  });
  results.deliveryMs = delivery;
  for (const d of delivery)
    row(
      `delivery: outbox -> submitted, ${d.bytes} B`,
      d,
      `   (${d.lessSubmitDelay.p50} ms + submit delay; ${d.method}; intact ${d.intact}/${d.n}${d.extraSubmits ? `; submit key again ${d.extraSubmits}x` : ''})`,
    );
  // As the original MACS is used: the bridge on a shell's pane first, the
  // worker started at its prompt afterwards (issue 29: its answers never
  // arrived); beside the same size with the worker as the pane's program.
  const [first] = await benchDelivery({
    sizes: [{ bytes: 100, count: DELIVERY_COUNT }],
    submitDelayMs: SHELL_PRESET.submitDelayMs,
    maxLiteralChars: SHELL_PRESET.paste.maxLiteralChars,
    bridgeFirst: true,
  });
  const same = delivery.find((d) => d.bytes === 100);
  results.deliveryBridgeFirstMs = {
    ...first,
    ...(same ? { workerFirstP50: same.p50 } : {}),
  };
  row(
    'delivery, bridge started first, 100 B',
    first,
    `   (intact ${first.intact}/${DELIVERY_COUNT}; worker first: p50 ${same?.p50 ?? '?'} ms)`,
  );
}

if (runs('multi')) {
  // The same load for every size (MULTI_RATE requests a second in all,
  // spread over the agents), so the figures differ by the number of agents
  // supervised; then a stress: every agent one request a second.
  const multi = [];
  for (const agents of AGENTS)
    multi.push(
      await benchAgents({
        agents,
        requests: Math.ceil(MULTI_SAMPLES / agents),
        intervalMs: (agents * 1000) / MULTI_RATE,
      }),
    );
  const one = multi.find((m) => m.agents === 1) ?? multi[0];
  const line = (label, m) =>
    row(
      label,
      m.detectionMs,
      `   (${m.detectionP50OverOneAgent}x 1 agent; RSS ${m.memory.idleRssMb} MB idle, ${m.memory.rssMb} MB after, peak ${m.memory.peakRssMb} MB; CPU ${m.cpuPercent.bridge}%)`,
    );
  for (const m of multi) {
    m.detectionP50OverOneAgent = round(m.detectionMs.p50 / one.detectionMs.p50);
    line(
      `one bridge, ${m.agents} agent${m.agents === 1 ? '' : 's'}: detection`,
      m,
    );
  }
  results.multiAgent = { requestsPerSecond: MULTI_RATE, runs: multi };
  if (STRESS_AGENTS > 0) {
    const stress = await benchAgents({
      agents: STRESS_AGENTS,
      requests: STRESS_REQUESTS,
      intervalMs: 1000,
    });
    stress.detectionP50OverOneAgent = round(
      stress.detectionMs.p50 / one.detectionMs.p50,
    );
    line(`stress, ${STRESS_AGENTS} agents x 1 request/s`, stress);
    results.multiAgent.stress = stress;
  }
}

if (runs('idle')) {
  const idle = await benchIdle({ agents: IDLE_AGENTS, seconds: IDLE_SEC });
  results.idleCpu = idle;
  const pct = (r) =>
    `${r.process.cpuPercent}% (own ${r.process.selfPercent}%, children ${r.process.childrenPercent}%), tmux server ${r.tmuxServer.cpuPercent}%`;
  console.log(
    `idle CPU, ${idle.agents} agents, ${idle.seconds} s (% of one core):\n` +
      `  macs bridge --all                   ${pct(idle.bridge)}\n` +
      `  baseline: capture-pane every 500 ms ${pct(idle.baselineCapturePolling500ms)}\n` +
      `  bridge / baseline: ${idle.bridgeOverBaseline}x (with the tmux server: ${idle.bridgeOverBaselineWithTmuxServer}x); bridge RSS ${idle.bridge.memory.rssMb} MB`,
  );
}

if (runs('fleet')) {
  // How long one bridge takes to supervise N agents, and detection then.
  results.fleet = [];
  for (const agents of FLEET) {
    const fleet = await benchFleet({ agents });
    results.fleet.push(fleet);
    console.log(
      `fleet of ${String(agents).padStart(3)} sh panes: supervised after ${fleet.startMs} ms (${fleet.startPerAgentMs} ms an agent; target 2000 ms for 128); detection p50 ${fleet.detectionMs.p50} ms, p95 ${fleet.detectionMs.p95} ms`,
    );
  }
}

if (runs('session')) {
  const session = await benchSessionIdle({
    agents: IDLE_AGENTS,
    seconds: IDLE_SEC,
    settleMs: number('BENCH_SESSION_SETTLE_SEC', 65) * 1000,
  });
  results.sessionIdle = session;
  const pct = (r) =>
    `${r.cpuPercent}% (own ${r.selfPercent}%, tmux clients ${r.childrenPercent}%)`;
  const first = session.firstMinute;
  console.log(
    `idle session (macs start --detach, ${session.agents} sh workers, % of one core):\n` +
      `  first minute (${first.seconds} s from the view's first frame at ${first.firstFrameSec} s): bridge ${pct(first.bridge)}, status view ${pct(first.statusView)}\n` +
      `    macs together ${first.macsPercent}% (target under ${session.targetPercent}%); tmux server ${first.tmuxServer.cpuPercent}%\n` +
      `  settled (${session.seconds} s after ${session.settleSec} s): bridge ${pct(session.bridge)}, status view ${pct(session.statusView)}\n` +
      `    macs together ${session.macsPercent}% (target under ${session.targetPercent}%); tmux server ${session.tmuxServer.cpuPercent}%`,
  );
}

if (runs('stop')) {
  // macs stop of plain shells (issue 29), next to a bare kill-server.
  const stop = await benchStop({
    agents: number('BENCH_STOP_AGENTS', 4),
    runs: number('BENCH_STOP_RUNS', 3),
  });
  results.stop = stop;
  console.log(
    `macs stop of ${stop.agents} bash workers, median of ${stop.runs} runs: ${stop.stopMs.p50} ms (goal under ${stop.goalMs} ms; panes killed after the grace period: ${stop.panesKilledAfterGrace})\n` +
      `  baseline: tmux kill-server until the panes' processes are gone ${stop.killServerMs.p50} ms (macs stop ${stop.stopOverKillServerP50}x)`,
  );
}

if (runs('send')) {
  // The send path (issue 29): macs send into a shell at its prompt, and how
  // soon a send to a busy shell says what it waits for.
  const send = await benchSend({ runs: number('BENCH_SEND_RUNS', 10) });
  results.send = send;
  row('macs send into a shell at its prompt', send.sendMs);
  console.log(
    `  floors: macs --version ${send.versionMs.p50} ms (macs send ${send.sendOverVersionP50}x), tmux send-keys text + Enter ${send.sendKeysMs.p50} ms\n` +
      `  a send to a busy shell says what it waits for after ${send.busyFirstWordMs.p50} ms`,
  );
}

if (runs('web')) {
  // macs web with a page open in chromium (issue 22).
  const latency = await benchWebLatency({
    requests: number('BENCH_WEB_REQUESTS', 20),
  });
  row(
    'web: request printed -> shown in the page',
    latency,
    ' (goal p50 <= 100 ms)',
  );
  const screens = await benchWebScreens({
    agents: number('BENCH_WEB_AGENTS', 64),
    seconds: number('BENCH_WEB_SEC', 20),
  });
  console.log(
    `web: ${screens.agents} agents' screens live: all drawn ${screens.allDrawnMs} ms after the page opened (${screens.drawn} drawn); macs web ${screens.webCpuPercent}% of a core while they print (${screens.printing}), RSS ${screens.webMemory.rssMb} MB`,
  );
  const idle = await benchWebIdle({ agents: IDLE_AGENTS, seconds: IDLE_SEC });
  console.log(
    `web: idle, ${idle.agents} agents, one page open, ${idle.seconds} s: macs web ${idle.webCpuPercent}% of a core (own ${idle.selfPercent}%, children ${idle.childrenPercent}%; target under ${idle.targetPercent}%), RSS ${idle.webMemory.rssMb} MB`,
  );
  results.web = { latencyMs: latency, screens, idle };
}

if (runs('screen')) {
  // Screen reading (throughput and memory) runs as its own script; its
  // figures are merged into the same results file.
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'scripts', 'bench-screen.mjs')],
    { stdio: 'inherit' },
  );
  results.screen = JSON.parse(
    readFileSync(path.join(ROOT, 'bench', 'screen.json'), 'utf8'),
  );
}

if (runs('startup')) {
  const startup = benchStartup({ runs: number('BENCH_STARTUP_RUNS', 21) });
  results.startup = startup;
  console.log(
    `start-up, median of ${startup.runs} runs (bare node -e 0: ${startup.nodeMs.p50} ms):`,
  );
  for (const [name, c] of Object.entries(startup.commands))
    console.log(
      `  macs ${name.padEnd(14)} ${String(c.ms.p50).padStart(7)} ms   ${c.overNodeP50}x node`,
    );
}

if (runs('flood')) {
  // 8 agents' detection while a 9th prints 5,000 requests at once, against
  // the same 8 alone (issue 16: one agent's flood never delays another).
  const FLOOD = number('BENCH_FLOOD', 5000);
  const shape = { agents: 8, requests: 8, intervalMs: 2000 };
  const calm = await benchAgents(shape);
  const flooded = await benchAgents({ ...shape, flood: FLOOD });
  const ratio = round(flooded.detectionMs.p50 / calm.detectionMs.p50, 2);
  results.flood = {
    floodRequests: FLOOD,
    calm: calm.detectionMs,
    flooded: flooded.detectionMs,
    floodedOverCalmP50: ratio,
  };
  row('8 agents, detection, alone', calm.detectionMs);
  row(
    `8 agents, detection, a 9th floods ${FLOOD}`,
    flooded.detectionMs,
    `   (${ratio}x alone)`,
  );
}

if (runs('terminal')) {
  // The reader's terminal against a real tmux on random output (the test
  // in npm test runs the same property with a fixed seed and fewer cases).
  const cases = number('BENCH_DIFF_RUNS', 1000);
  const t0 = now();
  let passed = true;
  try {
    execFileSync(
      path.join(ROOT, 'node_modules', '.bin', 'vitest'),
      [
        'run',
        '--project',
        'integration',
        'test/integration/terminal-differential.integration.test.ts',
      ],
      {
        cwd: ROOT,
        stdio: 'ignore',
        env: { ...process.env, MACS_DIFF_RUNS: String(cases) },
      },
    );
  } catch {
    passed = false;
  }
  results.terminalDifferential = {
    cases,
    passed,
    durationSec: round((now() - t0) / 1000, 1),
  };
  console.log(
    `reader vs tmux on ${cases} random outputs: ${passed ? 'all the same' : 'DIFFERENT (run the test to see the case)'}`,
  );
}

if (runs('push')) {
  // Issue 31: a host's request pushed to the hub's page and MCP wait.
  const push = await benchPush({
    requests: number('BENCH_PUSH_REQUESTS', 10),
  });
  results.push = push;
  const line = (what, host, local) =>
    console.log(
      `push: detected -> ${what}: host p50 ${host.p50} ms p95 ${host.p95} ms (n ${host.n}); hub's own p50 ${local.p50} ms p95 ${local.p95} ms; host/hub p50 ${local.p50 ? round(host.p50 / local.p50, 2) : '-'}x (goal <= ${push.goalMs} ms)`,
    );
  line('web page (socket)', push.web.host, push.web.local);
  line('MCP wait_for_request', push.mcpWait.host, push.mcpWait.local);
}

if (runs('remote')) {
  // Issue 21: hosts over ssh, on the project's test hosts (loopback).
  const remote = await benchRemote({
    hosts: number('BENCH_REMOTE_HOSTS', 3),
    agents: number('BENCH_REMOTE_AGENTS', 32),
    requests: number('BENCH_REMOTE_REQUESTS', 20),
    idleSec: number('BENCH_REMOTE_IDLE_SEC', 30),
    settleSec: number('BENCH_REMOTE_SETTLE_SEC', 65),
  });
  results.remote = remote;
  const trip = remote.roundTripMs;
  row('remote: printed on a host -> answered', trip.remote);
  row(
    'remote: the same at the hub (local)',
    trip.local,
    `   (host +${remote.remoteOverLocalP50Ms} ms, ${remote.remoteOverLocalP50}x; goal under +${remote.roundTripGoalMs} ms; answerer loop ${remote.listRequestsMeanMs} ms a turn)`,
  );
  row('remote: answer_request -> typed, host', remote.answerToTypedMs.remote);
  row(
    'remote: answer_request -> typed, hub',
    remote.answerToTypedMs.local,
    `   (host +${remote.answerRemoteOverLocalP50Ms} ms)`,
  );
  for (const [side, split] of Object.entries(remote.answerPathSplit))
    console.log(
      `remote: answer path split, ${side === 'remote' ? 'host' : 'hub '} (p50, from its events): answer_request's own ${split.toolMs.p50} ms, then -> delivering ${split.toDeliveringMs.p50} ms, -> delivered ${split.typingMs.p50} ms`,
    );
  row('remote: printed -> listed at hub, host', remote.seenAtHubMs.remote);
  row('remote: printed -> listed at hub, hub', remote.seenAtHubMs.local);
  console.log(
    `remote: ${remote.hosts} hosts x ${remote.agentsPerHost} agents all supervised ${remote.supervisedMs} ms after macs start (listed with their host's bridge running and their pane by list_agents of a \`macs mcp\` started with it; macs start returned after ${remote.startReturnedMs} ms; goal ${remote.supervisedGoalMs} ms; one \`macs hosts --json\` then took ${remote.hostsJsonMs} ms)\n` +
      `remote: hub idle with ${remote.hosts} hosts connected, first minute (${remote.idle.firstMinute.seconds} s from 3 s after the view started): ${remote.idle.firstMinute.hubPercent}% of a core: ` +
      remote.idle.firstMinute.processes
        .map((p) => `${p.name} ${p.cpuPercent}%`)
        .join(', ') +
      `\nremote: hub idle with ${remote.hosts} hosts connected, settled (${remote.idle.seconds} s after ${remote.idle.settleSec} s): ${remote.idle.hubPercent}% of a core (goal under ${remote.idle.goalPercent}%): ` +
      remote.idle.processes.map((p) => `${p.name} ${p.cpuPercent}%`).join(', '),
  );
}

results.durationSec = round((now() - started) / 1000, 1);
console.log(
  `bench took ${results.durationSec} s (${(results.durationSec / 60).toFixed(1)} min, build not included)`,
);
if (ONLY) {
  console.log('BENCH_ONLY set: bench/results.json left as it was');
} else {
  mkdirSync(path.join(ROOT, 'bench'), { recursive: true });
  writeFileSync(
    path.join(ROOT, 'bench', 'results.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  console.log('written: bench/results.json');
}
