// Storefront: the connected Shopify stores and the form that connects one (OAuth: the shop's authorize page sends the
// browser back to #/storefront?connected=<id>).
import { api } from '../../api.js';
import { announce, busy, errorMessage, field, h, onSubmit, render, when } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas['StoreConnection']} StoreConnection */

/**
 * The form that starts connecting a store; `fromShopify`: the shop Shopify's app URL sent a merchant here with.
 * @param {string | null} fromShopify
 */
export function connectForm(fromShopify) {
  const out = h('div', { 'aria-live': 'polite' });
  const shop = h('input', {
    name: 'shop',
    required: true,
    placeholder: 'your-store.myshopify.com',
    pattern: '[a-z0-9][a-z0-9\\-]*\\.myshopify\\.com',
    autocomplete: 'off',
    value: fromShopify ?? '',
  });
  const connect = h('button', { type: 'submit', class: 'primary' }, 'Connect');
  return h(
    'form',
    {
      class: 'card',
      onsubmit: onSubmit(connect, out, 'Starting…', async () => {
        const { url } = await api('POST', '/api/storefront/connect/install', {
          shop: shop.value.trim().toLowerCase(),
        });
        render(out, approveLink(url, shop.value.trim()));
      }),
    },
    h('h2', {}, 'Connect a Shopify store'),
    fromShopify
      ? h('p', { class: 'notice', role: 'status' }, `Shopify sent you here to connect ${fromShopify}: press Connect.`)
      : null,
    field('Shop domain', shop, 'The store’s myshopify.com address.'),
    connect,
    out,
  );
}

/**
 * Where the merchant approves the app in their store.
 * @param {string} url
 * @param {string} shop
 */
const approveLink = (url, shop) =>
  h(
    'p',
    { class: 'notice' },
    'Approve the app in your store: ',
    h('a', { href: url, class: 'button primary', id: 'authorize-link' }, `Open ${shop}`),
    h('small', { class: 'muted' }, ' You come back here when it is done.'),
  );

/**
 * The connections, each with a link to its store's admin and (active ones) a Disconnect button.
 * @param {StoreConnection[]} connections
 * @param {(c: StoreConnection, button: HTMLButtonElement) => void} onDisconnect
 */
export function connectionList(connections, onDisconnect) {
  if (connections.length === 0) return h('p', { class: 'muted' }, 'No store connected.');
  return h(
    'ul',
    { class: 'plain' },
    connections.map((c) =>
      h(
        'li',
        { class: 'connection' },
        h('strong', {}, c.shopName ?? c.shopDomain),
        ` ${c.shopDomain} `,
        h('span', { class: `badge ${c.status}` }, c.status),
        c.installedAt ? h('small', { class: 'muted' }, ` since ${when(c.installedAt)}`) : null,
        c.status === 'active' && c.adminUrl
          ? h(
              'a',
              { href: c.adminUrl, target: '_blank', rel: 'noopener', class: 'button' },
              `Open store ${c.shopDomain}`,
            )
          : null,
        c.status === 'active'
          ? h(
              'button',
              {
                type: 'button',
                class: 'link',
                'aria-label': `Disconnect ${c.shopDomain}`,
                onclick: (e) => onDisconnect(c, e.currentTarget),
              },
              'Disconnect',
            )
          : null,
      ),
    ),
  );
}

/**
 * The connected stores; `load()` reads them again and tells `changed` (the publish form offers the active ones).
 * @param {(connections: StoreConnection[]) => void} changed
 */
export function connectionsSection(changed) {
  const list = h('div', {});
  /**
   * @param {StoreConnection} c
   * @param {HTMLButtonElement} button
   */
  const disconnect = (c, button) => {
    if (!confirm(`Disconnect ${c.shopDomain}? Publishing to it stops until you connect again.`)) return;
    return busy(button, null, 'Disconnecting…', async () => {
      try {
        const out = await api('DELETE', `/api/storefront/connect/${encodeURIComponent(c.id)}`);
        // the shop could not be asked to remove our webhooks: say so (they go at the next disconnect)
        const left = out?.webhooks?.notRemoved?.length ?? 0;
        announce(
          left
            ? `${c.shopDomain} disconnected. The shop could not be reached to remove its order notifications; they are removed the next time you disconnect it (or uninstall the app in Shopify).`
            : `${c.shopDomain} disconnected`,
        );
        await load();
      } catch (err) {
        announce(errorMessage(err), 'error');
      }
    });
  };
  async function load() {
    const { connections } = await api('GET', '/api/storefront/connect');
    render(list, connectionList(connections, disconnect));
    changed(connections);
  }
  return {
    element: h('section', { 'aria-labelledby': 'conn-h' }, h('h2', { id: 'conn-h' }, 'Connected stores'), list),
    load,
  };
}
