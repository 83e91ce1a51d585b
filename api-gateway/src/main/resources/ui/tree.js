// A JSON value as a tree to browse: objects and arrays fold open and closed (a <details> each), leaves as text; the
// first 200 entries of each are shown.
import {h} from './dom.js';

const OPEN_DEPTH = 2;
const MOST_ENTRIES = 200;

export function jsonTree(value, name = null, depth = 0) {
  const key = name === null ? '' : h('span', {class: 'key'}, name + ': ');
  if (value === null || typeof value !== 'object') {
    return h('div', {class: 'leaf'}, key, h('span', {class: 'json-' + (value === null ? 'null' : typeof value)},
      typeof value === 'string' ? JSON.stringify(value) : String(value)));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return h('details', {class: 'node', open: depth < OPEN_DEPTH},
    h('summary', {}, key, h('span', {class: 'muted'}, summary)),
    entries.slice(0, MOST_ENTRIES).map(([k, v]) => jsonTree(v, k, depth + 1)),
    entries.length > MOST_ENTRIES ? h('div', {class: 'muted'}, `… ${entries.length - MOST_ENTRIES} more`) : '');
}
