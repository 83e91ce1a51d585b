// The Gantt of an execution's task runs: one row a run, under the run that started it; a flowable's rows fold away;
// where several runs of one parent share a value (a ForEach's iterations), they are grouped by it. A bar shows the
// run's wait before its first attempt, then each attempt apart, so retries and their back-off show.
import {duration, h} from './dom.js';

export const ROW_PX = 24;

// Which state a group of runs shows: the most telling of theirs.
const RANK = ['FAILED', 'KILLED', 'KILLING', 'WARNING', 'PAUSED', 'RUNNING', 'RETRYING', 'CREATED', 'SUCCESS', 'SKIPPED'];

function worst(runs) {
  return runs.map((r) => r.state.current).sort((a, b) => rank(a) - rank(b))[0];
}

function rank(state) {
  const i = RANK.indexOf(state);
  return i < 0 ? RANK.length : i;
}

/**
 * The rows to draw, in order: each {key, depth, run} or {key, depth, group: runs, value}, with how many rows are
 * under it ({@code children}) and whether they are folded away. {@code folded} holds the keys of the rows shown closed.
 */
export function ganttRows(runs, folded) {
  const ids = new Set(runs.map((r) => r.id));
  const children = new Map();
  const roots = [];
  for (const run of runs) {
    if (run.parentTaskRunId && ids.has(run.parentTaskRunId)) {
      if (!children.has(run.parentTaskRunId)) children.set(run.parentTaskRunId, []);
      children.get(run.parentTaskRunId).push(run);
    } else roots.push(run);
  }
  const rows = [];
  const visit = (run, depth) => {
    const kids = children.get(run.id) || [];
    rows.push({key: run.id, depth, run, children: kids.length, folded: folded.has(run.id)});
    if (!kids.length || folded.has(run.id)) return;
    const byValue = new Map();
    for (const kid of kids) {
      const value = kid.value ?? '';
      if (!byValue.has(value)) byValue.set(value, []);
      byValue.get(value).push(kid);
    }
    const grouped = byValue.size > 1 && [...byValue.values()].some((list) => list.length > 1);
    if (!grouped) {
      kids.forEach((kid) => visit(kid, depth + 1));
      return;
    }
    for (const [value, list] of byValue) {
      const key = run.id + '|' + value;
      rows.push({key, depth: depth + 1, group: list, value, children: list.length, folded: folded.has(key)});
      if (!folded.has(key)) list.forEach((kid) => visit(kid, depth + 2));
    }
  };
  roots.forEach((run) => visit(run, 0));
  return rows;
}

const at = (iso, now) => (iso ? Date.parse(iso) : now);

/** One row's bar segments: [from, to, class, title], in time order. */
function segments(row, now) {
  if (row.group) {
    const from = Math.min(...row.group.map((r) => at(r.state.startDate, now)));
    const to = Math.max(...row.group.map((r) => at(r.state.endDate, now)));
    const state = worst(row.group);
    return [[from, to, 'state-' + state.toLowerCase(), `[${row.value}]: ${row.group.length} runs, ${state}`]];
  }
  const r = row.run;
  const start = at(r.state.startDate, now);
  const end = at(r.state.endDate, now);
  if (!r.attempts.length) {
    return [[start, end, 'state-' + r.state.current.toLowerCase(), `${r.taskId}: ${r.state.current}, ${duration(r.state.duration)}`]];
  }
  const parts = [];
  let last = start;
  r.attempts.forEach((a, i) => {
    const from = at(a.state.startDate, now);
    const to = at(a.state.endDate, now);
    if (from > last) parts.push([last, from, 'wait', `${r.taskId}: waited ${duration('PT' + (from - last) / 1000 + 'S')}` +
      (i ? ` before attempt ${i + 1}` : ' for a worker')]);
    parts.push([from, to, 'state-' + a.state.current.toLowerCase() + ' attempt',
      `${r.taskId}: attempt ${i + 1} of ${r.attempts.length}, ${a.state.current}, ${duration(a.state.duration)}`]);
    last = Math.max(last, to);
  });
  return parts;
}

/**
 * Draws the rows in view of {@code rows} into {@code box} (only those: 10,000 runs scroll as ten), over the span
 * [start, end] ms. {@code toggle(key)} folds or unfolds a row; {@code select(run)} opens a run.
 */
export function drawGantt(box, rows, start, end, {toggle, select, selected}) {
  const now = Date.now();
  const span = Math.max(1, end - start);
  box.style.height = Math.min(Math.max(rows.length, 2), 13) * ROW_PX + 4 + 'px'; // as tall as its rows, up to 13

  const first = Math.max(0, Math.floor(box.scrollTop / ROW_PX) - 5);
  const last = Math.min(rows.length, first + Math.ceil(box.clientHeight / ROW_PX) + 10);
  const drawn = [];
  for (let i = first; i < last; i++) {
    const row = rows[i];
    const name = row.group ? `[${row.value}] ${row.group.length} runs`
      : row.run.taskId + (row.run.value ? ` [${row.run.value}]` : '') +
        (row.run.attempts.length > 1 ? ` (${row.run.attempts.length} attempts)` : '');
    const fold = row.children ? h('button', {type: 'button', class: 'fold', 'aria-expanded': String(!row.folded),
      'aria-label': (row.folded ? 'Unfold ' : 'Fold ') + name, onclick: () => toggle(row.key)}, row.folded ? '▸' : '▾') : '';
    const label = row.run
      ? h('button', {type: 'button', class: 'run' + (row.run.id === selected ? ' selected' : ''), title: row.run.id,
        onclick: () => select(row.run)}, name)
      : h('span', {}, name);
    const bars = segments(row, now).map(([from, to, cls, title]) => {
      const left = ((from - start) / span) * 100;
      const width = Math.min(100 - left, Math.max(0.3, ((to - from) / span) * 100));
      return h('span', {class: 'bar ' + cls, style: `left:${left}%;width:${width}%`, title});
    });
    drawn.push(h('div', {class: 'row' + (row.group ? ' group' : ''), style: `top:${i * ROW_PX}px`},
      h('span', {class: 'label', style: `padding-left:${0.4 + row.depth}rem`}, fold, label),
      h('span', {class: 'track'}, bars)));
  }
  box.replaceChildren(h('div', {class: 'rows', style: `height:${rows.length * ROW_PX}px`}, drawn));
}
