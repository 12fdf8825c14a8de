// Page: Developers (#/developers), the one place for everything a developer sets up (issue 39): the Test mode switch
// (test keys and test history, docs/test-mode.md), Keys, Callbacks and history, the Request log, and AI assistants
// (MCP, ./developers/mcp.js). Each section is a module that renders itself and loads its own data; this page puts them
// in order and reloads them when the mode changes.
import { announce, errorMessage, h, heading, render } from '../dom.js';
import { callbacksSection } from './developers/callbacks.js';
import { keysSection } from './developers/keys.js';
import { mcpSection } from './developers/mcp.js';
import { requestLogSection } from './developers/request-log.js';
import { isTestMode, setTestMode } from './test-mode.js';

/** @type {import('../types').Page} */
export async function developersPage(main, ctx) {
  const log = requestLogSection(ctx);
  const keys = keysSection({ isCurrent: ctx.isCurrent, onChange: log.setKeys });
  const callbacks = callbacksSection(ctx);
  const toggle = h('input', { type: 'checkbox', role: 'switch', name: 'testMode', checked: isTestMode() });
  const banner = h('p', { class: 'muted', 'aria-live': 'polite' });

  async function loadAll() {
    banner.textContent = isTestMode()
      ? 'Test mode: test keys spend no tokens, their mockups carry a TEST watermark, and only test data is shown.'
      : 'Live mode: live keys and live data.';
    await keys.load();
    await Promise.all([callbacks.load(), log.load()]);
  }

  toggle.addEventListener('change', async () => {
    setTestMode(toggle.checked);
    keys.clearCreated();
    announce(toggle.checked ? 'Test mode on' : 'Test mode off');
    await loadAll().catch((err) => announce(errorMessage(err), 'error'));
  });

  render(
    main,
    heading('Developers'),
    h(
      'p',
      { class: 'lead' },
      'Keys, callbacks and the log of your API calls. The ',
      h('a', { href: '/docs' }, 'API reference'),
      ' documents every route.',
    ),
    h('div', { class: 'mode' }, h('label', { class: 'switch' }, toggle, ' Test mode'), banner),
    keys.section,
    callbacks.section,
    log.section,
    mcpSection({ onKeyCreated: keys.load }),
  );
  await loadAll();
}
