// Small DOM helpers and formats the UI's modules share.

export const STATES = ['CREATED', 'QUEUED', 'RUNNING', 'PAUSED', 'RETRYING', 'KILLING', 'SUCCESS', 'WARNING', 'FAILED', 'KILLED',
  'CANCELLED', 'SKIPPED', 'RETRIED', 'RESTARTED'];
export const TERMINAL = new Set(['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'SKIPPED', 'RETRIED', 'CANCELLED']);
const PROPERTIES = new Set(['value', 'checked', 'selected', 'style']);

/** An element: {@code attrs} as attributes (on…: listeners), children appended (strings as text, never HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (PROPERTIES.has(key)) el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export function badge(state) {
  return h('span', {class: 'state state-' + state.toLowerCase()}, state);
}

export function toast(message) {
  const el = document.getElementById('toast');
  el.textContent = message;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.textContent = ''), 6000);
}

/** An ISO-8601 duration of hours, minutes and seconds (as the API writes them) in seconds; null for another text. */
export function seconds(iso) {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(iso || '');
  return m ? (+m[1] || 0) * 3600 + (+m[2] || 0) * 60 + (+m[3] || 0) : null;
}

export function duration(iso) {
  const s = seconds(iso);
  if (s === null) return iso || '';
  return s < 1 ? Math.round(s * 1000) + ' ms' : s < 60 ? s.toFixed(2) + ' s' : Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
}

export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '';
}

/** A query string of the parameters that have a value; an array's values as repeated parameters. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) [].concat(v || []).filter(Boolean).forEach((one) => q.append(k, one));
  const s = q.toString();
  return s ? '?' + s : '';
}

const SVG = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  el.append(...children);
  return el;
}
