// A flow's revisions on its page: two of them chosen (from, to) and the line diff of their sources.
import {api} from './api.js';
import {h, query} from './dom.js';

/** Unchanged lines kept on each side of a change; a longer unchanged stretch shows as one row. */
const CONTEXT = 3;
/**
 * Changes past which the diff stops looking for the shortest one: the lines between the common start and end then
 * show as all removed, then all added. Bounds the work (and the memory, about this many squared) of a diff.
 */
const MAX_CHANGES = 1000;

/**
 * The line diff of {@code a} and {@code b} (arrays of lines), a shortest one (Myers' greedy algorithm) after the
 * common start and end: rows {sign: ' ' | '+' | '-', text, from, to}, {@code from} and {@code to} the 1-based line
 * numbers in a and b (null where the line is not there).
 */
export function diffLines(a, b) {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const midA = a.slice(start, a.length - end);
  const midB = b.slice(start, b.length - end);
  const signs = [...Array(start).fill(' '),
    ...(shortest(midA, midB) || [...midA.map(() => '-'), ...midB.map(() => '+')]), ...Array(end).fill(' ')];
  const rows = [];
  let i = 0;
  let j = 0;
  for (const sign of signs) {
    if (sign === '+') rows.push({sign, text: b[j], from: null, to: ++j});
    else if (sign === '-') rows.push({sign, text: a[i], from: ++i, to: null});
    else rows.push({sign, text: a[i], from: ++i, to: ++j});
  }
  return rows;
}

/** The signs of a shortest edit script from a to b, or null past MAX_CHANGES. */
function shortest(a, b) {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3); // v[offset + k]: the furthest x reached on diagonal k (x - y = k)
  const trace = []; // trace[d]: v on diagonals -d-1..d+1 before step d, to walk the path back
  for (let d = 0; d <= Math.min(max, MAX_CHANGES); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace, n, m) {
  const signs = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const at = (k) => trace[d][k + d + 1];
    const k = x - y;
    const previous = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = at(previous);
    const py = px - previous;
    for (; x > px && y > py; x--, y--) signs.push(' ');
    if (d > 0) signs.push(x === px ? '+' : '-');
    x = px;
    y = py;
  }
  return signs.reverse();
}

/**
 * The rows to show: each unchanged stretch longer than CONTEXT lines on each side of its changes (none before the
 * first change, none after the last) folded into one {fold: [its hidden rows]}.
 */
export function fold(rows) {
  const shown = [];
  for (let i = 0; i < rows.length;) {
    let j = i;
    while (j < rows.length && rows[j].sign === ' ') j++;
    if (j === i) {
      shown.push(rows[i++]);
      continue;
    }
    const before = i === 0 ? 0 : CONTEXT;
    const after = j === rows.length ? 0 : CONTEXT;
    if (j - i > before + after + 1) {
      shown.push(...rows.slice(i, i + before), {fold: rows.slice(i + before, j - after)}, ...rows.slice(j - after, j));
    } else {
      shown.push(...rows.slice(i, j));
    }
    i = j;
  }
  return shown;
}

const SIGNS = {' ': ['unchanged', ' '], '+': ['added', '+'], '-': ['removed', '−']};

function line(row) {
  const [kind, sign] = SIGNS[row.sign];
  return h('tr', {class: 'diff-' + kind}, h('td', {class: 'number'}, row.from ?? ''), h('td', {class: 'number'}, row.to ?? ''),
    h('td', {class: 'sign'}, sign), h('td', {class: 'text'}, row.text));
}

function folded(rows) {
  const tr = h('tr', {class: 'diff-fold'}, h('td', {colspan: 4}, h('button', {type: 'button', title: 'Show them',
    onclick: () => tr.replaceWith(...rows.map(line))}, `… ${rows.length} unchanged line${rows.length === 1 ? '' : 's'}`)));
  return tr;
}

function lines(source) {
  return source.replace(/\r?\n$/, '').split(/\r?\n/);
}

/**
 * Draws a flow's revisions into {@code section}: a from and a to select (the link's {@code from} and {@code to}, else
 * the previous and the latest revision; a change of either goes into the link), the line diff of their sources, and a
 * button that gives the "from" revision's source to {@code load(source, revision)}, the editor's.
 */
export async function revisionsView(section, namespace, id, params, {load, failed}) {
  let revisions;
  try {
    revisions = await api(`/flows/${encodeURIComponent(namespace)}/${encodeURIComponent(id)}/revisions`);
  } catch (e) {
    failed(e);
    return;
  }
  const numbers = revisions.map((r) => r.revision);
  const chosen = (name, otherwise) => (numbers.includes(+params.get(name)) ? +params.get(name) : otherwise);
  const select = (name, value) => h('select', {id: 'revision-' + name, onchange: () => {
    history.replaceState(null, '', `#/flows/${namespace}/${id}` + query({from: from.value, to: to.value}));
    draw();
  }}, revisions.map((r) => h('option', {value: r.revision, selected: r.revision === value},
    `Revision ${r.revision}${r.deleted ? ' (deleted)' : ''}`)));
  const from = select('from', chosen('from', numbers.at(-2) ?? numbers.at(-1)));
  const to = select('to', chosen('to', numbers.at(-1)));
  const summary = h('p', {id: 'diff-summary'});
  const body = h('tbody');
  const loadButton = h('button', {type: 'button', id: 'revision-load', onclick: () => {
    const revision = revisions[from.selectedIndex];
    load(revision.source, revision.revision);
  }});
  const draw = () => {
    const [a, b] = [revisions[from.selectedIndex], revisions[to.selectedIndex]];
    const rows = diffLines(lines(a.source), lines(b.source));
    const added = rows.filter((r) => r.sign === '+').length;
    const removed = rows.filter((r) => r.sign === '-').length;
    summary.textContent = added || removed
      ? `From revision ${a.revision} to revision ${b.revision}: ${added} line${added === 1 ? '' : 's'} added, ${removed} removed`
      : `No change from revision ${a.revision} to revision ${b.revision}`;
    body.replaceChildren(...fold(rows).map((row) => (row.fold ? folded(row.fold) : line(row))));
    loadButton.textContent = `Load revision ${a.revision} into the editor`;
  };
  section.replaceChildren(h('h2', {id: 'revisions-title'}, 'Revisions'),
    numbers[0] > 1 ? h('p', {class: 'muted'}, `The newest ${numbers.length} revisions; older ones are not listed.`) : '',
    h('div', {class: 'filters'}, h('label', {for: 'revision-from'}, 'From'), from, h('label', {for: 'revision-to'}, 'To'), to,
      loadButton),
    summary,
    h('table', {class: 'diff', id: 'diff', 'aria-describedby': 'diff-summary'}, h('thead', {}, h('tr', {},
      ['From line', 'To line', 'Change', 'Source'].map((c) => h('th', {scope: 'col'}, c)))), body));
  section.setAttribute('aria-labelledby', 'revisions-title');
  draw();
}
