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

/**
 * Runs a user's action busy (see busy) and shows what it throws in `out`, where its result goes too.
 * @param {HTMLButtonElement | null | undefined} button
 * @param {Element} out
 * @param {string} busyLabel
 * @param {() => Promise<unknown>} action
 */
export function attempt(button, out, busyLabel, action) {
  return busy(button, out, busyLabel, async () => {
    try {
      await action();
    } catch (err) {
      render(out, errorBox(err));
    }
  });
}

/**
 * A form's submit listener: the page stays, `out` (the form's answer) is emptied, and the action runs as attempt()
 * runs it.
 * @param {HTMLButtonElement} button
 * @param {Element} out
 * @param {string} busyLabel
 * @param {() => Promise<unknown>} action
 */
export function onSubmit(button, out, busyLabel, action) {
  return (/** @type {Event} */ e) => {
    e.preventDefault();
    render(out);
    return attempt(button, out, busyLabel, action);
  };
}

/**
 * A table: header cells for `columns`, `rows` as its body; `caption` is for screen readers, `label` its name.
 * @param {{ caption?: string, label?: string, class?: string }} props
 * @param {string[]} columns
 * @param {Child} rows
 */
export function table(props, columns, rows) {
  return h(
    'table',
    { class: props.class, 'aria-label': props.label },
    props.caption ? h('caption', { class: 'sr-only' }, props.caption) : null,
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h('tbody', {}, rows),
  );
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

/**
 * A read-only text box with a Copy button (a new key, a signing secret). When the clipboard is refused (an insecure
 * origin, a denied prompt) the text is selected so the keyboard copies it.
 * @param {string} value
 * @param {string} label the box's accessible name
 * @param {string} [extraClass]
 */
export function copyRow(value, label, extraClass = '') {
  const box = h('input', {
    class: `secret ${extraClass}`.trim(),
    readonly: true,
    value,
    'aria-label': label,
    onfocus: (ev) => ev.currentTarget.select(),
  });
  const button = h('button', { type: 'button' }, 'Copy');
  button.addEventListener('click', () => void copyFrom(box, button, 'Select the text and copy it with your keyboard'));
  return h('div', { class: 'copy-row' }, box, button);
}

/**
 * Copies a box's text to the clipboard and says so on its button; when the clipboard is refused (an insecure origin,
 * a denied prompt) the text is selected so the keyboard copies it, and `refused` is announced.
 * @param {HTMLInputElement | HTMLTextAreaElement} box
 * @param {HTMLButtonElement} button
 * @param {string} refused
 */
export async function copyFrom(box, button, refused) {
  try {
    await navigator.clipboard.writeText(box.value);
    announce('Copied to the clipboard');
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  } catch {
    box.focus();
    box.select();
    announce(refused, 'error');
  }
}

/**
 * A box that scrolls sideways when its table is wider than the screen: focusable and named, so a keyboard can scroll
 * it too (WCAG 2.1.1; axe-core's scrollable-region-focusable).
 * @param {string} label
 * @param {...Child} children
 */
export function scrollBox(label, ...children) {
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': label }, ...children);
}

/**
 * @template T
 * @typedef {(cursor: string | null) => Promise<{ items: T[], pagination: { hasMore: boolean, nextCursor: string | null } }>} FetchPage
 */

/**
 * The shared pager of the dashboard's cursor-paginated lists (`pagination: {hasMore, nextCursor}`): **Load more**
 * while there is more. `reload()` starts again from the first page; a reload's answer replaces what `show` drew (it
 * is told `reset`), an older one still arriving is dropped. Loading more shows its error as an announcement.
 * @template T
 * @param {{
 *   fetchPage: FetchPage<T>,
 *   show: (items: T[], reset: boolean) => void,
 *   isCurrent: () => boolean,
 *   region?: Element | null,
 * }} opts
 */
export function pager(opts) {
  const more = h('button', { type: 'button', hidden: true }, 'Load more');
  /** @type {string | null} */
  let cursor = null;
  let generation = 0;

  /** @param {boolean} reset */
  async function load(reset) {
    const n = reset ? ++generation : generation;
    const page = await opts.fetchPage(reset ? null : cursor);
    if (!opts.isCurrent() || n !== generation) return;
    opts.show(page.items, reset);
    cursor = page.pagination.nextCursor;
    more.hidden = !page.pagination.hasMore;
  }
  more.addEventListener('click', () =>
    busy(more, opts.region, 'Loading…', () => load(false).catch((err) => announce(errorMessage(err), 'error'))),
  );
  return {
    more,
    /** @returns {Promise<void>} */
    reload: () => load(true),
  };
}

/**
 * The dashboard's paged tables: a table (with header cells) whose rows come from a pager, with **Load more** under
 * it. `label` and `empty` are read at each reload (after a filter or the mode changed).
 * @template T
 * @param {{
 *   label: () => string,
 *   columns: string[],
 *   empty: () => string,
 *   fetchPage: FetchPage<T>,
 *   row: (item: T) => HTMLTableRowElement,
 *   isCurrent: () => boolean,
 * }} opts
 */
export function pagedTable(opts) {
  const box = scrollBox(opts.label());
  const grid = table({}, opts.columns, []);
  const tbody = grid.tBodies[0];
  const { more, reload } = pager({
    region: box,
    isCurrent: opts.isCurrent,
    fetchPage: opts.fetchPage,
    show: (items, reset) => {
      if (reset) {
        render(tbody);
        grid.setAttribute('aria-label', opts.label());
        box.setAttribute('aria-label', opts.label());
      }
      for (const item of items) tbody.append(opts.row(item));
      if (tbody.children.length === 0) render(box, h('p', { class: 'muted' }, opts.empty()));
      else if (grid.parentElement !== box) render(box, grid);
    },
  });
  return { element: h('div', { class: 'paged' }, box, h('div', { class: 'pager' }, more)), reload };
}
