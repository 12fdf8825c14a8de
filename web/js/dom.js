// Small DOM helpers: element creation without innerHTML (no markup from data ever reaches the parser), status
// announcements for screen readers, busy states for long actions, and formatting.

/** @typedef {import('./types').Child} Child */

/**
 * h('button', { type: 'button', onclick }, 'Save') → an element. Props starting with `on` are listeners; `class`,
 * `for`, `aria-*`, `data-*` and the like become attributes; `hidden`, `disabled`, `checked`, `value` are properties.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {import('./types').Props<HTMLElementTagNameMap[K]> | null} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function')
      el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else if (['hidden', 'disabled', 'checked', 'value', 'selected', 'multiple', 'required'].includes(k))
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el))[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
}

/**
 * Replaces the children of `el`.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function render(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let statusTimer;
/**
 * A short message in the polite live region at the top of the page (and visible there).
 * @param {string} message
 * @param {'info' | 'error'} [kind]
 */
export function announce(message, kind = 'info') {
  const el = document.getElementById('status');
  if (!el) return;
  clearTimeout(statusTimer);
  el.className = `status ${kind}`;
  el.textContent = message;
  if (message) statusTimer = setTimeout(() => (el.textContent = ''), kind === 'error' ? 12000 : 6000);
}

/**
 * Runs a long action with visible progress: the button is disabled and says `busyLabel`, `aria-busy` is set on the
 * region, and an indeterminate <progress> is shown in it until the action settles.
 */
/**
 * @template T
 * @param {HTMLButtonElement | null | undefined} button
 * @param {Element | null | undefined} region
 * @param {string} busyLabel
 * @param {() => Promise<T>} action
 * @returns {Promise<T>}
 */
export async function busy(button, region, busyLabel, action) {
  const label = button?.textContent ?? '';
  const bar = h('progress', { class: 'busy', 'aria-label': busyLabel });
  if (button) {
    button.disabled = true;
    button.textContent = busyLabel;
  }
  region?.setAttribute('aria-busy', 'true');
  region?.prepend(bar);
  try {
    return await action();
  } finally {
    bar.remove();
    region?.removeAttribute('aria-busy');
    if (button) {
      button.disabled = false;
      button.textContent = label;
    }
  }
}

/**
 * A labelled form field: <label for> + control (+ hint).
 * @param {string} label
 * @param {HTMLElement} control
 * @param {Child} [hint]
 */
export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const hintEl = hint ? h('small', { id: `${id}-hint`, class: 'hint' }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** @param {string | null | undefined} iso */
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
/**
 * @param {number | string} n
 * @param {string} [currency]
 */
export const usd = (n, currency = 'USD') =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(n));

/**
 * A page heading that takes focus when the page changes (keyboard and screen reader users land on it).
 * @param {string} text
 */
export function heading(text) {
  return h('h1', { tabindex: '-1', class: 'page-title' }, text);
}

/**
 * An error shown inline next to what failed, and announced.
 * @param {unknown} err
 */
export function errorBox(err) {
  const msg = errorMessage(err);
  announce(msg, 'error');
  return h('p', { class: 'error', role: 'alert' }, msg);
}

/**
 * What to tell the user about something thrown (an ApiError, another Error, or anything else).
 * @param {unknown} err
 */
export function errorMessage(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An element the page (index.html) always has: a missing one is a bug, so it throws instead of answering null.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el;
}
