// A flow's topology (GET /api/v1/flows/{namespace}/{id}/graph) drawn as nested boxes, coloured by an execution's runs.
// Sequential tasks are an ordered list, top to bottom with an arrow between them; the tasks of a parallel branch a list
// side by side; a flowable is a group of its branches, its errors and finally apart below them. HTML and CSS only.
import {h} from './dom.js';

/** The last part of a type's name: "Log" for io.kestra.plugin.core.log.Log. */
function short(type) {
  return type.slice(type.lastIndexOf('.') + 1);
}

/** An execution's runs by task id, in the order the execution lists them (the latest last). */
function runsByTask(execution) {
  const runs = new Map();
  for (const run of (execution && execution.taskRunList) || []) {
    if (!runs.has(run.taskId)) runs.set(run.taskId, []);
    runs.get(run.taskId).push(run);
  }
  return runs;
}

/**
 * What a task's runs say: the state of the latest (its colour), how many there are, and a sentence with their states
 * ("3 runs, the latest SUCCESS: 2 SUCCESS, 1 FAILED"). Null without an execution.
 */
function summary(runs, execution) {
  if (!execution) return null;
  if (!runs || runs.length === 0) return {state: null, count: 0, text: 'not run'};
  const state = runs[runs.length - 1].state.current;
  if (runs.length === 1) return {state, count: 1, text: state};
  const counts = new Map();
  runs.forEach((r) => counts.set(r.state.current, (counts.get(r.state.current) || 0) + 1));
  const each = [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
  return {state, count: runs.length, text: `${runs.length} runs, the latest ${state}: ${each}`};
}

/** The line under a task's id: its type, and with an execution its state (and its number of runs). */
function caption(node, seen) {
  const parts = [h('span', {class: 'topo-type'}, short(node.type))];
  if (node.disabled) parts.push(h('span', {class: 'topo-state'}, 'disabled'));
  if (node.concurrencyLimit !== undefined) {
    const limit = node.concurrencyLimit;
    parts.push(h('span', {class: 'topo-hint'}, limit === 0 ? 'all iterations at once'
      : limit === 1 ? 'one iteration at a time' : `${limit} iterations at once`));
  }
  if (seen) {
    parts.push(h('span', {class: 'topo-state', 'aria-hidden': 'true'}, seen.state || 'not run'),
      seen.count > 1 ? h('span', {class: 'topo-count', 'aria-hidden': 'true'}, '×' + seen.count) : '',
      h('span', {class: 'visually-hidden'}, ', ' + seen.text));
  }
  return h('span', {class: 'topo-caption'}, parts);
}

function classes(base, node, seen) {
  return [base, seen && seen.state ? 'state-' + seen.state.toLowerCase() : seen ? 'not-run' : '',
    node.disabled ? 'disabled' : ''].filter(Boolean).join(' ');
}

/** One task: a box, or, for a flowable, a group: its box, then its branches. */
function task(node, runs, execution) {
  const seen = summary(runs.get(node.id), execution);
  const title = node.id + ' (' + node.type + ')' + (seen ? ': ' + seen.text : '') + (node.disabled ? ', disabled' : '');
  const head = [h('span', {class: 'topo-id'}, node.id), caption(node, seen)];
  if (!node.branches || node.branches.length === 0) {
    return h('div', {class: classes('topo-task', node, seen), 'data-task-id': node.id, title}, head);
  }
  const main = node.branches.filter((b) => b.name !== 'errors' && b.name !== 'finally');
  const handlers = node.branches.filter((b) => b.name === 'errors' || b.name === 'finally');
  return h('div', {class: 'topo-group', role: 'group', 'aria-label': `${short(node.type)} ${node.id}`},
    h('div', {class: classes('topo-head', node, seen), 'data-task-id': node.id, title}, head),
    branches(main, runs, execution), branches(handlers, runs, execution));
}

function branches(list, runs, execution) {
  if (list.length === 0) return '';
  return h('div', {class: 'topo-branches'}, list.map((b) => branch(b, runs, execution)));
}

/** A branch: its name, then its tasks, an ordered list top to bottom or, when they run side by side, a row. */
function branch(b, runs, execution) {
  const handler = b.name === 'errors' || b.name === 'finally';
  const label = b.name + (b.parallel ? ' (side by side)' : '');
  return h('div', {class: 'topo-branch' + (handler ? ' topo-' + b.name : ''), role: 'group', 'aria-label': label,
    'data-branch': b.name},
  h('div', {class: 'topo-branch-name', 'aria-hidden': 'true'}, label),
  h(b.parallel ? 'ul' : 'ol', {class: b.parallel ? 'topo-parallel' : 'topo-sequence'},
    b.tasks.map((node, i) => h('li', {},
      !b.parallel && i > 0 ? h('span', {class: 'topo-arrow', 'aria-hidden': 'true'}) : '',
      task(node, runs, execution)))));
}

/**
 * The flow of {@code graph} as nested boxes; with {@code execution}, each task coloured by the state of its latest
 * run (its state in text too), with the number of its runs when it has several.
 */
export function topology(graph, execution) {
  const runs = runsByTask(execution);
  const main = graph.branches.filter((b) => b.name === 'tasks');
  const handlers = graph.branches.filter((b) => b.name !== 'tasks');
  return h('div', {class: 'topology', role: 'group', tabindex: 0,
    'aria-label': `Topology of ${graph.namespace}.${graph.id}, revision ${graph.revision}`
      + (execution ? `, coloured by execution ${execution.id}` : '')},
  branches(main, runs, execution), branches(handlers, runs, execution));
}

/**
 * A holder for an execution's topology: {@code show(execution)} draws it coloured by the execution, the graph fetched
 * by {@code load(execution)} the first time only (the next show tries again if it failed).
 */
export function topologyHolder(load) {
  const holder = h('div', {class: 'topology-holder'}, h('p', {class: 'muted'}, 'Loading…'));
  let graph = null;
  let last = null;
  holder.show = async (execution) => {
    last = execution;
    graph = graph || load(execution);
    try {
      const drawn = await graph;
      if (execution === last) holder.replaceChildren(topology(drawn, execution));
    } catch (e) {
      graph = null;
      throw e;
    }
  };
  return holder;
}
