// Tiny DOM helpers: every text goes in through textContent, never as HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function replace(container, ...children) {
  container.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
}

/** A table with a caption; rows are arrays of cells (strings or nodes). */
export function table(caption, headers, rows, className = 'grid') {
  return h(
    'table',
    { class: className },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c))))),
  );
}

export function notice(text, kind = 'info') {
  return h('p', { class: 'notice ' + kind, role: kind === 'error' ? 'alert' : null }, text);
}

/** "1m 05s" */
export function duration(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m ${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * A long id shortened for a table cell ("msg_3fA9c2Xk…"): the whole id is the code element's
 * title and data-id, and a button copies it to the clipboard.
 */
export function shortId(id, keep = 12) {
  const text = id.length > keep + 1 ? id.slice(0, keep) + '…' : id;
  const copy = h('button', { type: 'button', class: 'copy secondary', 'aria-label': `Copy ${id}` }, 'Copy');
  copy.addEventListener('click', () => copyText(id, copy));
  return h('span', { class: 'short-id' }, h('code', { title: id, 'data-id': id }, text), ' ', copy);
}

/** Copies a text, and says on the button whether it worked (the clipboard needs a secure context). */
export async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed: select it';
  }
}

// ---- time: one format everywhere -------------------------------------------------------------
//
// Every instant is shown in the browser's local time with its zone ("2026-12-04 19:38:26 GMT+1"),
// the UTC ISO instant on hover (the title) and in the datetime attribute.

const LOCAL = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/** The parts of an instant in local time: {year, month, day, hour, minute, second, timeZoneName}. */
export function localParts(when) {
  return Object.fromEntries(LOCAL.formatToParts(new Date(when)).map((p) => [p.type, p.value]));
}

/** An instant (epoch ms, ISO string or Date) as text in local time with its zone. */
export function localTime(when) {
  const p = localParts(when);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
}

/** An instant as a <time> element: local time shown, the UTC ISO instant as its title; '—' if none. */
export function time(when) {
  if (when === null || when === undefined || when === '') return '—';
  const d = new Date(when);
  if (Number.isNaN(d.getTime())) return String(when);
  const iso = d.toISOString();
  return h('time', { datetime: iso, title: iso, class: 'when' }, localTime(d));
}

/** A digest shortened like an id ("sha256:3fa9c2…"), with its copy button. */
export function shortDigest(digest) {
  return shortId(digest, 19);
}

/**
 * An error shown where the action was taken: in a row right after the control's table row (or
 * after the form), replacing an earlier one there, and scrolled into view.
 */
export function errorNear(control, text) {
  const row = control.closest('tr');
  let box;
  if (row) {
    const next = row.nextElementSibling;
    if (next && next.classList.contains('row-message')) next.remove();
    box = h('tr', { class: 'row-message' }, h('td', { colspan: String(row.children.length) }, notice(text, 'error')));
    row.after(box);
  } else {
    const anchor = control.closest('form, article, .card') ?? control;
    const next = anchor.nextElementSibling;
    if (next && next.classList.contains('near-message')) next.remove();
    box = h('div', { class: 'near-message' }, notice(text, 'error'));
    anchor.after(box);
  }
  box.scrollIntoView({ block: 'nearest' });
  return box;
}
