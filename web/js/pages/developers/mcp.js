// Developers page section: AI assistants (MCP, docs/mcp.md). The MCP URL of this service and a desktop client's
// config, ready to copy, holding a test key: keys are stored hashed, so the section creates a new test key (shown
// once, like every new key) to put in the config.
import { api } from '../../api.js';
import { announce, copyFrom, errorBox, h, render } from '../../dom.js';

const KEY_PLACEHOLDER = '<your API key>';

/**
 * The two forms a client takes: Streamable HTTP (clients that speak it) and the local stdio entry (desktop apps).
 * @param {string} origin
 * @param {string} key
 */
export function mcpConfigs(origin, key) {
  const http = {
    mcpServers: {
      'apparel-mockup': { type: 'http', url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } },
    },
  };
  const stdio = {
    mcpServers: {
      'apparel-mockup': {
        command: 'npx',
        args: ['-y', 'apparel-mockup-mcp'],
        env: { MOCKUP_API_URL: origin, MOCKUP_API_KEY: key },
      },
    },
  };
  return { http: JSON.stringify(http, null, 2), stdio: JSON.stringify(stdio, null, 2) };
}

/**
 * @param {{ onKeyCreated?: () => Promise<void> | void }} [opts] told when a key was created (to refresh a key list)
 * @returns {HTMLElement}
 */
export function mcpSection(opts = {}) {
  const origin = location.origin;
  const status = h('div', { 'aria-live': 'polite' });
  /** @param {string} label */
  const configBox = (label) =>
    /** @type {HTMLTextAreaElement} */ (
      h('textarea', { readonly: true, rows: '10', class: 'mcp-config', 'aria-label': label, spellcheck: 'false' })
    );
  const httpBox = configBox('Client config (Streamable HTTP)');
  const stdioBox = configBox('Client config (desktop app, stdio)');
  /** @param {string} key */
  const fill = (key) => {
    const c = mcpConfigs(origin, key);
    httpBox.value = c.http;
    stdioBox.value = c.stdio;
  };
  fill(KEY_PLACEHOLDER);

  /** @param {HTMLTextAreaElement} box */
  const copyButton = (box) => {
    const b = /** @type {HTMLButtonElement} */ (h('button', { type: 'button' }, 'Copy'));
    b.addEventListener('click', () => void copyFrom(box, b, 'Select the config and copy it with your keyboard'));
    return b;
  };

  const create = /** @type {HTMLButtonElement} */ (h('button', { type: 'button' }, 'Create a test key for the config'));
  create.addEventListener('click', async () => {
    create.disabled = true;
    try {
      const res = await api('POST', '/api/v1/keys', { name: 'MCP assistant (test)', mode: 'test' });
      fill(res.key);
      render(
        status,
        h('p', {}, 'A new test key is in the configs below (shown once: copy it now). Test keys spend no tokens.'),
      );
      announce('Test key created and put in the config');
      await opts.onKeyCreated?.();
    } catch (err) {
      render(status, errorBox(err));
    } finally {
      create.disabled = false;
    }
  });

  return h(
    'section',
    { 'aria-labelledby': 'dev-mcp' },
    h('h2', { id: 'dev-mcp' }, 'AI assistants (MCP)'),
    h(
      'p',
      {},
      'Assistants such as Claude, ChatGPT or Cursor can list garments, upload designs and generate mockups with your ' +
        'keys, limits and tokens. MCP URL (Streamable HTTP, Authorization: Bearer <API key>): ',
      h('code', { class: 'mcp-url' }, `${origin}/mcp`),
    ),
    create,
    status,
    h('h3', {}, 'Clients that speak HTTP'),
    httpBox,
    copyButton(httpBox),
    h('h3', {}, 'Desktop apps (stdio)'),
    stdioBox,
    copyButton(stdioBox),
  );
}
