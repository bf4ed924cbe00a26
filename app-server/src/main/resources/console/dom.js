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
