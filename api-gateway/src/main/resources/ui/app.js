// Millrace's UI: hash routes (#/overview, #/executions, #/executions/ID, #/flows, #/flows/NAMESPACE/ID, #/flows/new), each a view
// drawn from the public REST API alone. No build step: ES modules served by the gateway.
import {api, ApiError, follow, may, me, signIn, signOut, text, token} from './api.js';
import {badge, duration, h, query, seconds, STATES, svg, TERMINAL, toast, when} from './dom.js';
import {drawGantt, ganttRows} from './gantt.js';
import {jsonTree} from './tree.js';
import {yamlEditor} from './editor.js';
import {revisionsView} from './revisions.js';
import {topology, topologyHolder} from './topology.js';

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const LIST_EVERY_MS = 2000;

const main = document.getElementById('main');
let dispose = () => {};

function show(...nodes) {
  main.replaceChildren(...nodes);
}

/** A failed call: the sign-in form on 401, else the API's message. */
function failed(e) {
  if (e instanceof ApiError && e.status === 401) {
    signInView();
    return;
  }
  toast(e.message);
}

// --- sign-in --------------------------------------------------------------------------------------------------

function signInView() {
  dispose();
  dispose = () => {};
  const input = h('input', {id: 'token', type: 'password', autocomplete: 'current-password', required: true});
  show(h('h1', {}, 'Sign in'),
    h('form', {class: 'card', onsubmit: (e) => {
      e.preventDefault();
      signIn(input.value.trim());
      route();
    }},
    h('p', {}, 'This gateway asks for a token. It is kept for this tab only.'),
    h('label', {for: 'token'}, 'Token'), input, h('button', {type: 'submit'}, 'Sign in')));
}

// --- executions -----------------------------------------------------------------------------------------------

const RANGES = [['', 'any time'], ['PT15M', 'last 15 min'], ['PT1H', 'last hour'], ['PT6H', 'last 6 h'], ['P1D', 'last 24 h'],
  ['P7D', 'last 7 days']];
const FILTERS = ['namespace', 'flowId', 'state', 'labels', 'triggerId', 'triggerType', 'timeRange', 'startDate', 'endDate', 'page'];

// A datetime-local field's value (local time) as an ISO instant, and back; '' for none or a text that is no date.
const instant = (local) => (local ? new Date(local).toISOString() : '');
const local = (iso) => {
  const d = new Date(iso || NaN);
  return isNaN(d) ? '' : new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
};

/** A button that asks the API for {@code path} of an execution (kill, restart, replay...); a new execution opens. */
function action(id, label, path) {
  return h('button', {type: 'button', onclick: async () => {
    try {
      const answer = await api(`/executions/${encodeURIComponent(id)}/${path}`, {method: 'POST', body: {}});
      toast(label + ': asked');
      if (answer && answer.id && answer.id !== id) location.hash = '#/executions/' + encodeURIComponent(answer.id);
    } catch (e) {
      failed(e);
    }
  }}, label);
}

/** The actions on an execution in one click, as a runner has them; {@code resumeLink}: a link to its resume form. */
function actions(x, resumeLink) {
  const current = x.state.current;
  return [!TERMINAL.has(current) ? action(x.id, 'Kill', 'kill') : '',
    current === 'FAILED' || current === 'KILLED' ? action(x.id, 'Restart', 'restart') : '',
    TERMINAL.has(current) ? action(x.id, 'Replay', 'replay') : '',
    resumeLink && current === 'PAUSED' ? h('a', {class: 'button', href: '#/executions/' + encodeURIComponent(x.id)}, 'Resume…') : ''];
}

function executionsView(params) {
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) || '']));
  filters.labels = params.getAll('labels'); // key:value each, all must hold
  filters.page ||= '1';
  const field = (name, label, attrs = {}) => [h('label', {for: 'f-' + name}, label),
    h('input', {id: 'f-' + name, name, value: [].concat(filters[name]).join('; '), ...attrs})];
  const state = h('select', {id: 'f-state', name: 'state'}, h('option', {value: ''}, 'any'),
    STATES.map((s) => h('option', {value: s, selected: s === filters.state}, s)));
  const range = h('select', {id: 'f-timeRange', name: 'timeRange'},
    RANGES.map(([v, label]) => h('option', {value: v, selected: v === filters.timeRange}, label)));
  const form = h('form', {class: 'filters', role: 'search', onsubmit: (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    data.labels = data.labels.split(/\s*;\s*/).filter(Boolean);
    data.startDate = instant(data.startDate);
    data.endDate = instant(data.endDate);
    if (data.timeRange) data.startDate = '';
    location.hash = '#/executions' + query({...data, page: ''});
  }}, field('namespace', 'Namespace'), field('flowId', 'Flow'), h('label', {for: 'f-state'}, 'State'), state,
  field('labels', 'Labels', {placeholder: 'key:value; key2:value2', size: 14}), field('triggerId', 'Trigger', {size: 10}),
  field('triggerType', 'Trigger type', {size: 14}), h('label', {for: 'f-timeRange'}, 'Started'), range,
  h('label', {for: 'f-startDate'}, 'from'), h('input', {id: 'f-startDate', name: 'startDate', type: 'datetime-local',
    value: local(filters.startDate)}),
  h('label', {for: 'f-endDate'}, 'to'), h('input', {id: 'f-endDate', name: 'endDate', type: 'datetime-local',
    value: local(filters.endDate)}),
  h('button', {type: 'submit'}, 'Filter'));
  const body = h('tbody');
  const total = h('p', {class: 'muted', id: 'total'});
  const counts = h('nav', {class: 'counts', id: 'counts', 'aria-label': 'Counts by state'});
  const pager = h('nav', {class: 'pager', 'aria-label': 'Pages'});
  show(h('h1', {}, 'Executions'), form, counts, total,
    h('table', {class: 'list'}, h('thead', {}, h('tr', {}, ['Id', 'Namespace', 'Flow', 'State', 'Started', 'Duration', 'Labels', 'Trigger', 'Actions']
      .map((c) => h('th', {scope: 'col'}, c)))), body), pager);

  // refreshed LIST_EVERY_MS after each answer (never two searches at once); rows redrawn only when the answer
  // changed, so a focused or half-clicked button stays
  let shown = '';
  let timer = 0;
  let stopped = false;
  const load = async () => {
    try {
      const found = await api('/executions/search' + query({...filters, size: '25'}));
      const who = await me();
      const seen = JSON.stringify(found);
      if (stopped || seen === shown) return;
      shown = seen;
      body.replaceChildren(...found.results.map((x) => h('tr', {},
        h('td', {}, h('a', {href: '#/executions/' + encodeURIComponent(x.id)}, x.id)),
        h('td', {}, x.namespace), h('td', {}, h('a', {href: `#/flows/${x.namespace}/${x.flowId}`}, x.flowId)),
        h('td', {}, badge(x.state.current)), h('td', {}, when(x.state.startDate)),
        h('td', {}, duration(x.state.duration)),
        h('td', {class: 'chips'}, (x.labels || []).filter((l) => !l.key.startsWith('system.')).map((l) =>
          h('a', {href: '#/executions' + query({...filters, labels: [l.key + ':' + l.value], page: ''})}, `${l.key}:${l.value}`))),
        h('td', {}, x.trigger ? h('a', {href: '#/executions' + query({...filters, triggerId: x.trigger.id, page: ''}),
          title: x.trigger.type}, x.trigger.id) : ''),
        h('td', {class: 'row-actions'}, may(who, 'runner', x.namespace) ? actions(x, true) : ''))));
      total.textContent = found.total + ' execution' + (found.total === 1 ? '' : 's');
      counts.replaceChildren(...Object.entries(found.counts || {}).map(([s, n]) => h('a', {
        href: '#/executions' + query({...filters, state: s === filters.state ? '' : s, page: ''}),
        'aria-current': s === filters.state ? 'true' : null}, badge(s), ' ' + n)));
      const page = +filters.page;
      const pages = Math.max(1, Math.ceil(found.total / 25));
      const to = (p) => '#/executions' + query({...filters, page: String(p)});
      pager.replaceChildren(page > 1 ? h('a', {href: to(page - 1)}, '‹ Newer') : '', ` Page ${page} of ${pages} `,
        page < pages ? h('a', {href: to(page + 1)}, 'Older ›') : '');
    } catch (e) {
      failed(e);
    } finally {
      if (!stopped) timer = setTimeout(load, LIST_EVERY_MS);
    }
  };
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function executionView(id) {
  const head = h('div');
  const buttons = h('div', {class: 'actions'});
  const resume = h('section', {id: 'resume'});
  const breakdown = h('dl', {class: 'breakdown'});
  const details = h('div', {class: 'details'});
  const gantt = h('div', {class: 'gantt', tabindex: 0, 'aria-label': 'Task runs over time'});
  const picked = h('section', {id: 'run'});
  const graph = topologyHolder((x) => api(`/flows/${x.namespace}/${x.flowId}/graph?revision=${x.flowRevision}`));
  const level = h('select', {id: 'log-level'}, LEVELS.map((l) => h('option', {value: l, selected: l === 'INFO'}, l)));
  const task = h('input', {id: 'log-task', placeholder: 'task id'});
  const logs = h('pre', {class: 'logs', id: 'logs', 'aria-live': 'off'});
  const lines = [];
  const download = h('button', {type: 'button', onclick: async () => {
    try {
      const blob = new Blob([await text(`/logs/${encodeURIComponent(id)}/download`)], {type: 'text/plain'});
      h('a', {href: URL.createObjectURL(blob), download: id + '.log'}).click();
    } catch (e) {
      failed(e);
    }
  }}, 'Download');
  const drawLogs = () => {
    const min = LEVELS.indexOf(level.value);
    logs.textContent = lines.filter((l) => LEVELS.indexOf(l.level) >= min && (!task.value || l.taskId === task.value))
      .map((l) => `${l.timestamp} ${l.level.padEnd(5)} ${l.taskId || ''} ${l.message}`).join('\n');
  };
  level.addEventListener('change', drawLogs);
  task.addEventListener('input', drawLogs);
  show(head, buttons, resume, h('h2', {}, 'Task runs'), gantt, picked, h('h2', {}, 'Topology'), graph,
    h('h2', {}, 'Where the time went'), breakdown, details,
    h('h2', {}, 'Logs'), h('div', {class: 'filters'}, h('label', {for: 'log-level'}, 'Level'), level,
      h('label', {for: 'log-task'}, 'Task'), task, download), logs);

  let latest = null;
  let pausedAt = null;
  // the actions the caller's grants allow: none until its grants are known
  let caller = null;
  const runner = () => caller !== null && may(caller, 'runner', latest.namespace);
  me().then((who) => {
    caller = who;
    if (latest) render(latest);
  }).catch(failed);
  let rows = [];
  let detailsShown = '';
  let runShown = '';
  const folded = new Set();
  let selected = null;
  const act = (label, path) => action(id, label, path);
  const render = (x) => {
    latest = x;
    const current = x.state.current;
    head.replaceChildren(h('h1', {}, 'Execution ', h('code', {}, x.id)),
      h('p', {}, h('a', {href: `#/flows/${x.namespace}/${x.flowId}`}, `${x.namespace}.${x.flowId}`),
        ` revision ${x.flowRevision} · `, badge(current), ` · started ${when(x.state.startDate)} · `,
        duration(x.state.duration)),
      x.error ? h('p', {class: 'error'}, x.error) : '');
    buttons.replaceChildren(...(!caller ? [] : !runner() ? [h('p', {class: 'muted', id: 'view-only'},
      `View only: ${caller.name} has no runner grant on ${x.namespace}`)] : actions(x, false)));
    if (current !== 'PAUSED' || !runner()) {
      resume.replaceChildren();
      pausedAt = null;
    } else if (pausedAt !== x.state.histories.length) { // a form being filled stays as it is
      pausedAt = x.state.histories.length;
      resumeForm(x);
    }
    breakdown.replaceChildren(...Object.entries(x.breakdown || {}).flatMap(([k, v]) => [h('dt', {}, k),
      h('dd', {}, duration(v))]));
    const detailsNow = JSON.stringify([x.state.histories, x.inputs, x.labels, x.trigger, x.outputs]);
    if (detailsNow !== detailsShown) { // unchanged, the trees keep what the user opened
      detailsShown = detailsNow;
      details.replaceChildren(
        h('h2', {}, 'History'), h('ol', {class: 'history', id: 'history'}, x.state.histories.map((s) =>
          h('li', {}, badge(s.state), ' ', when(s.date)))),
        h('h2', {}, 'Inputs'), jsonTree(x.inputs || {}),
        h('h2', {}, 'Labels'), h('pre', {}, (x.labels || []).map((l) => l.key + ': ' + l.value).join('\n')),
        ...(x.trigger ? [h('h2', {}, 'Trigger'), h('p', {}, `${x.trigger.id} (${x.trigger.type})`), jsonTree(x.trigger.variables || {})] : []),
        h('h2', {}, 'Outputs'), jsonTree(x.outputs || {}));
    }
    rows = ganttRows(x.taskRunList, folded);
    drawRuns();
    graph.show(x).catch(failed);
    const run = selected && x.taskRunList.find((r) => r.id === selected);
    if (run) runPanel(run);
  };
  // One task run: its attempts (with the worker's dates), its outputs as a tree, and a replay from it.
  const runPanel = (run) => {
    const ended = TERMINAL.has(latest.state.current);
    const now = JSON.stringify([run, ended, runner()]);
    if (now === runShown) return; // unchanged: its tree keeps what the user opened
    runShown = now;
    picked.replaceChildren(h('h2', {}, 'Task run ', h('code', {}, run.taskId), run.value ? ` [${run.value}]` : ''),
      h('p', {}, badge(run.state.current), ` · ${run.id} · started ${when(run.state.startDate)} · `,
        duration(run.state.duration), ' ', ended && runner() ? act('Replay from this run', 'replay?taskRunId=' + encodeURIComponent(run.id)) : ''),
      run.attempts.length ? h('table', {class: 'list', id: 'attempts'}, h('thead', {}, h('tr', {},
        ['Attempt', 'State', 'Started', 'Duration', 'Received by a worker', 'Error'].map((c) => h('th', {scope: 'col'}, c)))),
      h('tbody', {}, run.attempts.map((a, i) => h('tr', {}, h('td', {}, i + 1), h('td', {}, badge(a.state.current)),
        h('td', {}, when(a.state.startDate)), h('td', {}, duration(a.state.duration)),
        h('td', {}, a.worker ? when(a.worker.receivedDate) : ''), h('td', {class: 'error'}, a.error || ''))))) : '',
      run.error ? h('p', {class: 'error'}, run.error) : '',
      h('h3', {}, 'Outputs'), jsonTree(run.outputs || {}));
  };
  const drawRuns = () => {
    if (!latest) return;
    const start = Date.parse(latest.state.startDate);
    const at = (state) => (state.endDate ? Date.parse(state.endDate) : Date.now());
    let end = Math.max(start + 1, at(latest.state));
    for (const run of latest.taskRunList) end = Math.max(end, at(run.state)); // a loop: 100,000 runs are no arguments
    drawGantt(gantt, rows, start, end, {selected, toggle: (key) => {
      if (!folded.delete(key)) folded.add(key);
      rows = ganttRows(latest.taskRunList, folded);
      drawRuns();
    }, select: (run) => {
      selected = run.id;
      runPanel(run);
      drawRuns();
    }});
  };
  // A PAUSED execution: a form from the paused task's onResume inputs, as its flow's revision declares them.
  const resumeForm = async (x) => {
    const paused = x.taskRunList.find((r) => r.state.current === 'PAUSED');
    try {
      const flow = await api(`/flows/${x.namespace}/${x.flowId}?revision=${x.flowRevision}`);
      const pause = flow.pauses.find((p) => paused && p.taskId === paused.taskId);
      resume.replaceChildren(inputsForm(pause ? pause.onResume : [], 'resume', 'Resume', async (values) => {
        await api(`/executions/${encodeURIComponent(id)}/resume`, {method: 'POST', body: {inputs: values}});
        toast('Resume: asked');
      }));
    } catch (e) {
      failed(e);
    }
  };
  gantt.addEventListener('scroll', drawRuns);

  // The stream ends with the execution; a restart or a resume (from here or elsewhere) is seen by looking again
  // every few seconds, and followed again.
  let stopExecution = () => {};
  let looking = 0;
  const watch = () => {
    stopExecution = follow(`/executions/${encodeURIComponent(id)}/follow`, (name, data) => {
      if (name === 'error') toast(data);
      else render(JSON.parse(data));
    }, (e) => {
      if (e) {
        failed(e);
        return;
      }
      looking = setInterval(async () => {
        try {
          const x = await api(`/executions/${encodeURIComponent(id)}`);
          if (latest && x.state.histories.length === latest.state.histories.length) return;
          render(x);
          if (!TERMINAL.has(x.state.current)) {
            clearInterval(looking);
            watch();
          }
        } catch (err) {
          failed(err);
        }
      }, LIST_EVERY_MS);
    });
  };
  watch();
  const stopLogs = follow(`/logs/${encodeURIComponent(id)}/follow`, (name, data) => {
    if (name !== 'message') return;
    lines.push(JSON.parse(data));
    drawLogs();
  }, (e) => e && failed(e));
  return () => {
    stopExecution();
    clearInterval(looking);
    stopLogs();
  };
}

// --- overview -------------------------------------------------------------------------------------------------

/** Executions started per minute by state, the durations of those that ended, the flows that fail most. */
function overviewView(params) {
  const hours = params.get('hours') || '3';
  const select = h('select', {id: 'hours', onchange: () => (location.hash = '#/overview' + query({hours: select.value}))},
    ['1', '3', '6', '12', '24'].map((n) => h('option', {value: n, selected: n === hours}, 'last ' + n + ' h')));
  const started = h('figure', {class: 'chart', id: 'started'});
  const took = h('figure', {class: 'chart', id: 'durations'});
  const failing = h('tbody');
  show(h('h1', {}, 'Overview'), h('div', {class: 'filters'}, h('label', {for: 'hours'}, 'Span'), select),
    h('h2', {}, 'Executions started per minute, by state'), started,
    h('h2', {}, 'Durations of those that ended: p50 and p95 per minute'), took,
    h('h2', {}, 'Flows that fail most'),
    h('table', {class: 'list', id: 'failing'}, h('thead', {}, h('tr', {}, ['Flow', 'Failed', 'Executions']
      .map((c) => h('th', {scope: 'col'}, c)))), failing));

  const load = async () => {
    try {
      const stats = await api('/stats/executions' + query({hours}));
      const from = Date.parse(stats.from);
      const slots = +hours * 60;
      const x = (minute) => ((Date.parse(minute) - from) / 60000 / slots) * 1000;
      const width = Math.max(1, 1000 / slots - 0.5);
      const most = Math.max(1, ...stats.minutes.map((m) => Object.values(m.counts).reduce((a, b) => a + b, 0)));
      const total = stats.minutes.reduce((n, m) => n + Object.values(m.counts).reduce((a, b) => a + b, 0), 0);
      const bars = stats.minutes.flatMap((m) => {
        let y = 200;
        return Object.entries(m.counts).map(([state, n]) => {
          const height = (n / most) * 190;
          y -= height;
          return svg('rect', {x: x(m.minute), y, width, height, class: 'fill-' + state.toLowerCase()},
            svg('title', {}, `${m.minute}: ${n} ${state}`));
        });
      });
      started.replaceChildren(svg('svg', {viewBox: '0 0 1000 200', role: 'img', preserveAspectRatio: 'none',
        'aria-label': `${total} executions started over the last ${hours} h, at most ${most} in a minute`}, ...bars),
      h('figcaption', {}, `${total} executions · busiest minute ${most} · ${stats.from} to ${stats.to}`));
      const ended = stats.minutes.filter((m) => m.p95);
      const slowest = Math.max(0.001, ...ended.map((m) => seconds(m.p95)));
      const at = (m, key) => [x(m.minute) + width / 2, 200 - (seconds(m[key]) / slowest) * 190];
      const line = (key) => [svg('polyline', {class: 'line-' + key, fill: 'none',
        points: ended.map((m) => at(m, key).join(',')).join(' ')}),
      ...ended.map((m) => svg('rect', {class: 'line-' + key, x: at(m, key)[0] - 2, y: at(m, key)[1] - 2, width: 4, height: 4},
        svg('title', {}, `${m.minute}: ${key} ${duration(m[key])}`)))];
      took.replaceChildren(svg('svg', {viewBox: '0 0 1000 200', role: 'img', preserveAspectRatio: 'none',
        'aria-label': `p50 and p95 durations per minute, the slowest p95 ${duration('PT' + slowest + 'S')}`},
      ...line('p50'), ...line('p95')), h('figcaption', {}, `p50 in blue, p95 in red · slowest p95: ${duration('PT' + slowest + 'S')}`));
      failing.replaceChildren(...stats.failing.map((f) => h('tr', {},
        h('td', {}, h('a', {href: '#/executions' + query({namespace: f.namespace, flowId: f.flowId, state: 'FAILED'})},
          `${f.namespace}.${f.flowId}`)), h('td', {}, f.failed), h('td', {}, f.total))));
    } catch (e) {
      failed(e);
    }
  };
  load();
  const timer = setInterval(load, 10 * LIST_EVERY_MS);
  return () => clearInterval(timer);
}

// --- flows ----------------------------------------------------------------------------------------------------

function flowsView(params) {
  const namespace = params.get('namespace') || '';
  const input = h('input', {id: 'f-namespace', name: 'namespace', value: namespace});
  const body = h('tbody');
  show(h('h1', {}, 'Flows'),
    h('form', {class: 'filters', role: 'search', onsubmit: (e) => {
      e.preventDefault();
      location.hash = '#/flows' + query({namespace: input.value});
    }}, h('label', {for: 'f-namespace'}, 'Namespace'), input, h('button', {type: 'submit'}, 'Filter'),
    h('a', {class: 'button', href: '#/flows/new'}, 'New flow')),
    h('table', {class: 'list'}, h('thead', {}, h('tr', {}, ['Namespace', 'Flow', 'Revision', 'Triggers', 'Last executions']
      .map((c) => h('th', {scope: 'col'}, c)))), body));
  api('/flows/search' + query({namespace, size: '100'})).then((found) => {
    body.replaceChildren(...found.results.map((f) => {
      const last = h('td', {class: 'last'});
      api('/executions/search' + query({namespace: f.namespace, flowId: f.id, size: '5'})).then((runs) => {
        last.replaceChildren(...runs.results.filter((x) => x.namespace === f.namespace).map((x) =>
          h('a', {href: '#/executions/' + encodeURIComponent(x.id), title: `${x.id}, ${when(x.state.startDate)}`},
            badge(x.state.current))),
        ' ', h('a', {href: '#/executions' + query({namespace: f.namespace, flowId: f.id})}, `all ${runs.total}`));
      }).catch(failed);
      return h('tr', {}, h('td', {}, f.namespace), h('td', {}, h('a', {href: `#/flows/${f.namespace}/${f.id}`}, f.id),
        f.disabled ? h('span', {class: 'muted'}, ' (disabled)') : ''),
      h('td', {}, f.revision), h('td', {}, f.triggers.map((t) => t.id + ' (' + t.type.split('.').pop() + ')').join(', ')), last);
    }));
  }).catch(failed);
  return () => {};
}

const NEW_FLOW = `id: hello
namespace: company.team
inputs:
  - id: name
    type: STRING
    defaults: world
tasks:
  - id: say
    type: io.kestra.plugin.core.log.Log
    message: "Hello {{ inputs.name }}"
`;

function flowView(namespace, id, params) {
  const host = h('div', {class: 'source'});
  const problems = h('ul', {class: 'problems', id: 'problems', 'aria-live': 'polite'});
  const status = h('p', {class: 'muted', id: 'flow-status'});
  const execute = h('section', {id: 'execute'});
  const revisions = h('section', {id: 'revisions'});
  const graph = h('section', {id: 'topology'});
  let timer = 0;
  let checked = 0;
  const listProblems = (all) => {
    const lines = editor.mark(all);
    problems.replaceChildren(...all.map((p, i) => h('li', {class: 'error'}, lines[i] === null ? p
      : [h('button', {type: 'button', class: 'line', onclick: () => editor.focusLine(lines[i])}, 'line ' + lines[i]), ' ', p])));
  };
  const validate = async () => {
    const ask = ++checked;
    try {
      const results = await api('/flows/validate', {method: 'POST', body: editor.value(), type: 'application/x-yaml'});
      if (ask !== checked) return;
      const all = results.filter((r) => r.constraints).flatMap((r) => r.constraints.split('\n'));
      listProblems(all);
      status.textContent = all.length ? all.length + ' problem' + (all.length === 1 ? '' : 's') : 'Valid';
    } catch (e) {
      failed(e);
    }
  };
  const editor = yamlEditor(host, 'source', 'Flow source (YAML)', () => {
    clearTimeout(timer);
    timer = setTimeout(validate, 300);
  });
  const deploy = h('button', {type: 'button', id: 'deploy', onclick: async () => {
    try {
      const flow = await api('/flows', {method: 'POST', body: editor.value(), type: 'application/x-yaml'});
      toast(`Deployed ${flow.namespace}.${flow.id}, revision ${flow.revision}`);
      const page = `#/flows/${flow.namespace}/${flow.id}`;
      if (location.hash === page) route(); // the page again: its revision and revisions are new
      else location.hash = page;
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) {
        listProblems(e.message.split('\n'));
        status.textContent = 'Not deployed';
      } else failed(e);
    }
  }}, 'Deploy');
  // deploy and execute as the caller's grants allow
  deploy.hidden = true;
  execute.hidden = true;
  me().then((who) => {
    deploy.hidden = !may(who, 'editor', namespace);
    execute.hidden = !may(who, 'runner', namespace);
    if (deploy.hidden) status.after(h('p', {class: 'muted', id: 'view-only'}, `View only: ${who.name} has no editor grant`
      + (namespace ? ` on ${namespace}` : '')));
  }).catch(failed);
  show(h('h1', {}, id ? `${namespace}.${id}` : 'New flow'), status,
    h('div', {class: 'editor'}, host, h('div', {}, h('h2', {}, 'Problems'), problems)), deploy, execute, graph, revisions);
  if (!id) {
    editor.setValue(NEW_FLOW);
    return () => clearTimeout(timer);
  }
  api(`/flows/${namespace}/${id}`).then((flow) => {
    editor.setValue(flow.source, true);
    status.textContent = 'Revision ' + flow.revision;
    execute.replaceChildren(executeForm(namespace, id, flow.inputs || []));
    return api(`/flows/${namespace}/${id}/graph`);
  }).then((g) => graph.replaceChildren(h('h2', {}, 'Topology'), topology(g))).catch(failed);
  // a deleted flow's too: an older revision loaded into the editor and deployed brings it back
  revisionsView(revisions, namespace, id, params, {failed, load: (source, revision) => {
    editor.setValue(source);
    editor.focusLine(1);
    toast(`Revision ${revision} is in the editor; Deploy makes it the latest`);
  }});
  return () => clearTimeout(timer);
}

/** A form for the flow's inputs, by type; submitting it starts an execution and opens it. */
function executeForm(namespace, id, inputs) {
  return inputsForm(inputs, 'execute', 'Execute', async (values) => {
    const started = await api(`/executions/${namespace}/${id}`, {method: 'POST', body: {inputs: values}});
    location.hash = '#/executions/' + encodeURIComponent(started.id);
  });
}

/**
 * A form with a field for each input (as the API describes them: id, type, required, defaults), ids prefixed
 * {@code prefix}; {@code submit(values)} gets the typed values.
 */
function inputsForm(inputs, prefix, title, submit) {
  const fields = inputs.map((input) => {
    const name = prefix === 'execute' ? 'in-' + input.id : prefix + '-' + input.id;
    const required = input.required && input.defaults == null;
    const defaults = [].concat(input.defaults ?? []).map(String);
    let field;
    if (input.values && !input.allowCustomValue) { // SELECT, ENUM, MULTISELECT: the choices
      const many = input.type === 'MULTISELECT';
      field = h('select', {id: name, name: input.id, required, multiple: many},
        many || input.defaults != null ? '' : h('option', {value: ''}, input.required ? 'choose…' : ''),
        input.values.map((v) => h('option', {value: v, selected: defaults.includes(v)}, v)));
    } else if (input.type === 'JSON' || input.type === 'ARRAY') {
      field = h('textarea', {id: name, name: input.id, required, rows: 3, placeholder: input.type === 'ARRAY' ? '["a", "b"]' : '{"key": "value"}'},
        input.defaults == null ? '' : JSON.stringify(input.defaults));
    } else {
      const type = {INT: 'number', FLOAT: 'number', BOOLEAN: 'checkbox', DATE: 'date', DATETIME: 'datetime-local', TIME: 'time',
        SECRET: 'password', EMAIL: 'email', URI: 'url'}[input.type] || 'text';
      field = h('input', {id: name, name: input.id, type, required, step: input.type === 'FLOAT' ? 'any' : undefined,
        placeholder: input.type === 'DURATION' ? 'PT5M' : undefined, list: input.values ? name + '-values' : undefined});
      if (type === 'checkbox') field.checked = input.defaults === true;
      else if (input.type === 'DATETIME' && input.defaults != null) field.value = local(String(input.defaults));
      else if (input.defaults != null) field.value = String(input.defaults);
    }
    return [h('label', {for: name}, `${input.id} (${input.type}${input.required ? ', required' : ''})`), field,
      input.values && input.allowCustomValue ? h('datalist', {id: name + '-values'}, input.values.map((v) => h('option', {value: v}))) : '',
      input.description ? h('small', {class: 'muted'}, input.description) : ''];
  });
  const form = h('form', {class: 'card', id: prefix + '-form', onsubmit: async (e) => {
    e.preventDefault();
    const values = {};
    for (const input of inputs) {
      const field = form.elements[input.id];
      if (input.type === 'BOOLEAN') values[input.id] = field.checked;
      else if (input.type === 'MULTISELECT' && field.multiple) values[input.id] = [...field.selectedOptions].map((o) => o.value);
      else if (field.value === '') continue;
      else if (input.type === 'INT' || input.type === 'FLOAT') values[input.id] = +field.value;
      else if (input.type === 'DATETIME') values[input.id] = instant(field.value);
      else values[input.id] = field.value;
    }
    try {
      await submit(values);
    } catch (err) {
      failed(err);
    }
  }}, h('h2', {}, title), fields, h('button', {type: 'submit', id: prefix + '-button'}, title));
  return form;
}

// --- routing --------------------------------------------------------------------------------------------------

function route() {
  dispose();
  dispose = () => {};
  const [path, search] = (location.hash.slice(1) || '/executions').split('?');
  const params = new URLSearchParams(search || '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  document.querySelectorAll('[data-nav]').forEach((a) => a.toggleAttribute('aria-current', a.dataset.nav === parts[0]));
  document.getElementById('sign-out').hidden = !token();
  if (parts[0] === 'overview') dispose = overviewView(params);
  else if (parts[0] === 'executions' && parts[1]) dispose = executionView(parts[1]);
  else if (parts[0] === 'flows' && parts[1] === 'new') dispose = flowView(null, null);
  else if (parts[0] === 'flows' && parts.length === 3) dispose = flowView(parts[1], parts[2], params);
  else if (parts[0] === 'flows') dispose = flowsView(params);
  else dispose = executionsView(params);
  document.title = 'Millrace · ' + (parts.slice(0, 3).join(' / ') || 'executions');
}

document.getElementById('sign-out').addEventListener('click', () => {
  signOut();
  route();
});
window.addEventListener('hashchange', route);
route();
