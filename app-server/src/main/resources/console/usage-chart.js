// Model usage of recent windows: per-window totals derived from the Project's UsageLedger
// (GET …/model-usage/ledger), drawn as an inline SVG bar chart built with DOM APIs (no inline
// script or style, nothing loaded from elsewhere) with a table of the same numbers for screen
// readers. Hand-written on purpose: a dozen bars do not justify shipping a chart library into a
// console that has no build step.

import { call, explain, projectPath } from './api.js';
import { h, localParts, localTime, notice, replace, table, time } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
/** How many windows the chart shows, ending with the current one. */
export const WINDOWS = 12;
/** Ledger pages of 500 read at most per refresh (each read consumes one unit of model-usage.read). */
export const MAX_PAGES = 4;
const PAGE_SIZE = 500;

const METRICS = {
  tokens: { label: 'Tokens', value: (w) => w.tokens },
  invocations: { label: 'Invocations', value: (w) => w.invocations },
  cost: { label: 'Cost (micros)', value: (w) => w.costMicros },
};

let metric = 'tokens';

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/**
 * Reads the ledger in ledger order, at most MAX_PAGES pages. Resolves to {entries, complete} or
 * {error} (the failed response, explained).
 */
async function readLedger() {
  const entries = [];
  let cursor = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (cursor) query.set('cursor', cursor);
    const r = await call('GET', projectPath('model-usage', 'ledger') + '?' + query);
    if (!r.ok) return { error: explain(r, 'read model usage') };
    entries.push(...(r.json.items ?? []));
    cursor = r.json.nextCursor ?? null;
    if (!cursor) return { entries, complete: true };
  }
  return { entries, complete: false };
}

/**
 * Groups ledger entries into the WINDOWS epoch-aligned windows of windowMs ending with the one
 * starting at currentStartMs, by recordedAtMs (the database clock). A window's invocations count
 * its completed invocations; tokens sum usage.totalTokens and cost sums costMicros where known;
 * unknownUsage counts completions with no usage (their whole reservation stays charged, an amount
 * the ledger does not carry).
 */
export function windowTotals(entries, windowMs, currentStartMs) {
  const windows = [];
  for (let i = WINDOWS - 1; i >= 0; i--) {
    windows.push({ startMs: currentStartMs - i * windowMs, invocations: 0, tokens: 0, costMicros: 0, unknownUsage: 0 });
  }
  const first = windows[0].startMs;
  for (const e of entries) {
    const start = Math.floor(e.recordedAtMs / windowMs) * windowMs;
    const index = (start - first) / windowMs;
    if (index < 0 || index >= windows.length) continue;
    const w = windows[index];
    w.invocations += 1;
    if (e.usage) w.tokens += e.usage.totalTokens;
    else w.unknownUsage += 1;
    if (typeof e.costMicros === 'number') w.costMicros += e.costMicros;
  }
  return windows;
}

/** An axis label: the window start in local time with its zone, as short as the window allows. */
function label(startMs, windowMs) {
  const p = localParts(startMs);
  return windowMs >= 86_400_000
    ? `${p.year}-${p.month}-${p.day} ${p.timeZoneName}`
    : `${p.hour}:${p.minute} ${p.timeZoneName}`;
}

function chart(windows, windowMs) {
  const m = METRICS[metric];
  const width = 720;
  const height = 220;
  const left = 64;
  const bottom = 28;
  const top = 12;
  const max = Math.max(1, ...windows.map(m.value));
  const slot = (width - left) / windows.length;
  const plot = height - bottom - top;
  const root = svg('svg', {
    id: 'usage-chart-svg',
    viewBox: `0 0 ${width} ${height}`,
    width: '100%',
    role: 'img',
    'aria-labelledby': 'usage-chart-title',
    class: 'usage-chart',
  });
  root.append(svg('title', { id: 'usage-chart-title' }, `${m.label} per window, last ${windows.length} windows (the table below lists the same numbers)`));
  root.append(svg('line', { x1: left, y1: top + plot, x2: width, y2: top + plot, stroke: '#57606a' }));
  root.append(svg('text', { x: left - 6, y: top + 10, 'text-anchor': 'end', 'font-size': 11, fill: '#57606a' }, String(max)));
  root.append(svg('text', { x: left - 6, y: top + plot, 'text-anchor': 'end', 'font-size': 11, fill: '#57606a' }, '0'));
  windows.forEach((w, i) => {
    const v = m.value(w);
    const barHeight = Math.round((v / max) * plot);
    const x = left + i * slot + slot * 0.15;
    root.append(
      svg('rect', { x, y: top + plot - barHeight, width: slot * 0.7, height: barHeight, fill: '#0b5cad', 'data-window-start': w.startMs },
        svg('title', {}, `${localTime(w.startMs)} (${new Date(w.startMs).toISOString()}): ${v}`)),
    );
    root.append(svg('text', { x: x + slot * 0.35, y: height - 10, 'text-anchor': 'middle', 'font-size': 10, fill: '#1b1f24' }, label(w.startMs, windowMs)));
  });
  return root;
}

function selector(onChange) {
  return h(
    'p',
    { class: 'rows' },
    h('label', { for: 'usage-metric' }, 'Chart'),
    h(
      'select',
      { id: 'usage-metric', onchange: (e) => { metric = e.target.value; onChange(); } },
      Object.entries(METRICS).map(([k, m]) => h('option', { value: k, selected: k === metric }, m.label)),
    ),
  );
}

/**
 * Renders the recent windows into container. usage is the window route's answer
 * ({windowStartMs, windowMs, …}): the chart uses its window length and current window start.
 */
export async function renderUsageChart(container, usage) {
  replace(container, notice('Reading the usage ledger…'));
  const ledger = await readLedger();
  if (ledger.error) {
    replace(container, notice(ledger.error, 'error'));
    return;
  }
  const windows = windowTotals(ledger.entries, usage.windowMs, usage.windowStartMs);
  // Changing the metric redraws only the chart, so the selector keeps the keyboard focus.
  const holder = h('div', { id: 'usage-chart-figure' }, chart(windows, usage.windowMs));
  const rows = windows.map((w) => [
    h('span', { 'data-window-start': String(w.startMs) }, time(w.startMs)),
    h('span', { class: 'invocations' }, String(w.invocations)),
    h('span', { class: 'tokens' }, String(w.tokens)),
    h('span', { class: 'cost' }, String(w.costMicros)),
    h('span', { class: 'unknown' }, String(w.unknownUsage)),
  ]);
  replace(
    container,
    selector(() => replace(holder, chart(windows, usage.windowMs))),
    holder,
    ledger.complete
      ? null
      : notice(`The ledger holds more than ${MAX_PAGES * PAGE_SIZE} entries: only the first ${ledger.entries.length} were read, so later windows are incomplete.`, 'warn'),
    table(
      `Completed invocations per window (last ${windows.length} windows, from the usage ledger)`,
      ['Window start', 'Invocations', 'Tokens', 'Cost (micros)', 'Completions with unknown usage'],
      rows,
      'grid usage-windows',
    ),
  );
}
