// Page 6: design chat (issue 13: POST /api/chat, GET /api/chat/threads[/<id>], GET /api/chat/jobs/<id>).
import { allGarments, api, ApiError, newIdempotencyKey } from '../api.js';
import { announce, busy, errorBox, errorMessage, field, h, heading, render, when } from '../dom.js';
import { refreshUser } from '../state.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {{ url: string, label: string, mockupIndex?: number }} ChatImage */
/** @typedef {{ active: boolean } | null} StoreState */

const MODELS = [
  { id: 'nano-banana', tokens: 12, label: 'standard, about 5 s' },
  { id: 'nano-banana-pro', tokens: 45, label: 'high quality, about 15 s' },
  { id: 'nano-banana-pro-4k', tokens: 90, label: 'print-ready 4K, about 25 s' },
];

/**
 * Images of a chat answer (ChatResult) or a thread's message (ChatThread's messages), whatever the record calls them
 * (each once).
 * @param {Record<string, unknown>} m
 * @returns {ChatImage[]}
 */
function images(m) {
  /** @type {ChatImage[]} */
  const out = [];
  const seen = new Set();
  /** @param {unknown} url @param {string} label @param {number} [mockupIndex] */
  const add = (url, label, mockupIndex) => {
    if (!url || typeof url !== 'string' || seen.has(url)) return;
    seen.add(url);
    out.push({ url, label, mockupIndex });
  };
  add(m.graphicUrl, 'Design graphic');
  add(m.printAssetUrl, 'Print file');
  const list = (/** @type {unknown} */ v) => (Array.isArray(v) ? v : []);
  for (const [i, u] of list(m.mockups ?? m.mockupUrls).entries()) add(u, `Mockup ${i + 1}`, i);
  for (const a of list(m.assets ?? m.images)) add(typeof a === 'string' ? a : a?.url, a?.kind ?? 'Image');
  return out;
}

/**
 * What a mockup of a finished job offers for sale: a link to the storefront's publish form with it chosen
 * (#/storefront?chatJobId=…&mockupIndex=…), or, with no store connected, a note and a link to Storefront.
 * `store` is null when the storefront is not on this server (nothing is shown).
 */
/**
 * @param {unknown} jobId
 * @param {ChatImage} img
 * @param {StoreState} store
 */
function publishAction(jobId, img, store) {
  if (typeof jobId !== 'string' || !jobId || img.mockupIndex === undefined || !store) return null;
  const href = `#/storefront?${new URLSearchParams({ chatJobId: jobId, mockupIndex: String(img.mockupIndex) })}`;
  if (!store.active)
    return h(
      'small',
      { class: 'publish-note' },
      'No store connected: connect one in ',
      h('a', { href, 'aria-label': `Storefront: connect a store to sell ${img.label}` }, 'Storefront'),
      ' to sell it.',
    );
  return h('a', { href, class: 'button publish', 'aria-label': `Publish to store: ${img.label}` }, 'Publish to store');
}

/**
 * @param {Record<string, unknown>} m
 * @param {StoreState} [store]
 */
function gallery(m, store = null) {
  const list = images(m);
  if (list.length === 0) return null;
  return h(
    'ul',
    { class: 'chat-images' },
    list.map((img) =>
      h(
        'li',
        {},
        h(
          'a',
          { href: img.url, target: '_blank', rel: 'noopener' },
          h('img', { src: img.url, alt: img.label, loading: 'lazy' }),
        ),
        h('small', {}, img.label, ' · ', h('a', { href: img.url, download: '' }, 'Download')),
        publishAction(m.jobId, img, store),
      ),
    ),
  );
}

/**
 * Whether a store is connected ({active}), or null when the storefront is not on this server.
 * @returns {Promise<StoreState>}
 */
async function storeState() {
  try {
    const { connections } = await api('GET', '/api/storefront/connect');
    return { active: connections.some((c) => c.status === 'active') };
  } catch {
    return null; // not on this server (or not reachable): the mockups are shown without it
  }
}

/** @type {import('../types').Page} */
export async function chatPage(main, ctx) {
  const threadList = h('ul', { class: 'threads' });
  /** @type {StoreState} */
  let store = null;
  const thread = h('div', { class: 'thread', 'aria-live': 'polite' });
  const threadId = ctx.params.get('thread');

  async function loadThreads() {
    const data = await api('GET', '/api/chat/threads');
    const threads = data.threads ?? [];
    render(
      threadList,
      h('li', {}, h('a', { href: '#/chat', 'aria-current': threadId ? undefined : 'page' }, 'New design')),
      threads.map((t) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              href: `#/chat?thread=${encodeURIComponent(t.id)}`,
              'aria-current': t.id === threadId ? 'page' : undefined,
            },
            t.title ?? t.id,
          ),
          h('small', { class: 'muted' }, ` ${when(t.updatedAt ?? t.createdAt)}`),
        ),
      ),
    );
  }

  async function loadThread() {
    if (!threadId) {
      render(thread, h('p', { class: 'muted' }, 'Describe a design to start a thread.'));
      return;
    }
    /** @type {[Schemas['ChatThread'], StoreState]} */
    const [data, st] = await Promise.all([
      api('GET', `/api/chat/threads/${encodeURIComponent(threadId)}`),
      storeState(),
    ]);
    store = st;
    const messages = data.messages;
    render(
      thread,
      h('h2', {}, data.title),
      messages.map((m) =>
        h(
          'article',
          { class: `message ${m.role ?? ''}` },
          h(
            'p',
            { class: 'who' },
            m.role === 'user' ? 'You' : 'Designer',
            m.model ? ` · ${m.model}` : '',
            m.tokens ? ` · ${m.tokens} tokens` : '',
          ),
          m.content ? h('p', {}, m.content) : null,
          gallery(m, m.role === 'assistant' ? store : null),
        ),
      ),
    );
  }

  const garments = await allGarments().catch(() => []);
  const prompt = h('textarea', { name: 'prompt', rows: '3', required: true, minlength: '8' });
  const model = h(
    'select',
    { name: 'model' },
    MODELS.map((m) => h('option', { value: m.id }, `${m.id}: ${m.tokens} tokens (${m.label})`)),
  );
  const garmentBoxes = garments.slice(0, 12).map((g) => {
    const c = g.colors.find((x) => x.available) ?? g.colors[0];
    return {
      url: c.imageUrl,
      box: h('input', { type: 'checkbox', value: c.imageUrl }),
      label: `${g.name} (${c.name})`,
    };
  });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Create design');
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (e) => {
        e.preventDefault();
        await busy(send, out, 'Designing… (up to a minute)', async () => {
          render(out);
          try {
            /** @type {Schemas['ChatRequest']} */
            const body = {
              prompt: prompt.value,
              model: /** @type {Schemas['ChatRequest']['model']} */ (model.value), // one of MODELS
              threadId: threadId ?? null,
              garmentUrls: garmentBoxes.filter((g) => g.box.checked).map((g) => g.url),
            };
            // a fresh Idempotency-Key per submit: a resent request (a retry, a second click) is answered from the
            // first job and charged once
            const { data: first, res } = await api('POST', '/api/chat', body, {
              withResponse: true,
              headers: { 'idempotency-key': newIdempotencyKey() },
            });
            // 202: still running; its job answers 202 until it is done, then 200 with the result (a failed job
            // answers an error, which api() throws)
            let data = first;
            if (res.status === 202 && 'jobId' in data) {
              const jobId = data.jobId;
              for (let i = 0; i < 300 && !('threadId' in data); i++) {
                await new Promise((r) => setTimeout(r, 1000));
                const next = await api('GET', `/api/chat/jobs/${encodeURIComponent(jobId)}`);
                data = next;
              }
            }
            if (!('threadId' in data))
              throw new Error('The design is taking longer than usual: it will appear in its thread when done');
            announce(`Design ready: ${data.tokensSpent} tokens spent, ${data.tokensRemaining} left`);
            render(out, gallery(data));
            prompt.value = '';
            await refreshUser();
            if (data.threadId && data.threadId !== threadId)
              location.hash = `#/chat?thread=${encodeURIComponent(data.threadId)}`;
            else await Promise.all([loadThread(), loadThreads()]);
          } catch (err) {
            const extra =
              err instanceof ApiError && err.status === 402 && err.body?.tokensNeeded !== undefined
                ? ` (needs ${err.body.tokensNeeded}, you have ${err.body.tokensAvailable})`
                : '';
            render(out, errorBox(new Error(errorMessage(err) + extra)));
          }
        });
      },
    },
    field('Describe the design', prompt, 'At least 8 characters, e.g. "a retro sunset over mountains, three colours".'),
    field('Model', model),
    garmentBoxes.length
      ? h(
          'fieldset',
          { class: 'garment-picks' },
          h('legend', {}, 'Mockups on (optional)'),
          garmentBoxes.map((g) => h('label', {}, g.box, ` ${g.label}`)),
        )
      : null,
    send,
    out,
  );

  render(
    main,
    heading('Design chat'),
    h(
      'div',
      { class: 'chat' },
      h('nav', { 'aria-label': 'Threads', class: 'card' }, h('h2', {}, 'Threads'), threadList),
      h('div', {}, thread, form),
    ),
  );
  await Promise.all([loadThreads(), loadThread()]).catch((err) => render(thread, errorBox(err)));
}
