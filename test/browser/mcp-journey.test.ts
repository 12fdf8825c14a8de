// The Developers page's AI assistants (MCP) section in a real browser: a person creates a test key for the config,
// copies the config from the clipboard, and an MCP client configured from exactly that text connects and works.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { randomSuffix } from '../../lib/ids';
import { checkEachTest, navigate, openBrowser, signUpInBrowser, type BrowserSession } from '../helpers/browser';
import { startStack, type Stack } from '../helpers/stack';

describe('Developers page: MCP config with a test key (browser)', function () {
  this.timeout(180_000);
  let stack: Stack;
  let browser: BrowserSession | undefined;
  let page: Page;

  checkEachTest(() => browser);

  before(async () => {
    stack = await startStack('mcp-journey', { worker: false });
    browser = await openBrowser('mcp-journey', stack.baseUrl);
    page = browser.page;
    await signUpInBrowser(page, stack.baseUrl, `mcp-${randomSuffix(8)}@example.test`, 'Correct-Horse-42');
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the MCP URL and a config; the copied config with its new test key drives an MCP client', async () => {
    await navigate(page, 'Developers');
    const section = page.getByRole('region', { name: 'AI assistants (MCP)' });
    assert.equal(await section.locator('code.mcp-url').textContent(), `${stack.baseUrl}/mcp`);
    const httpConfig = section.getByRole('textbox', { name: 'Client config (Streamable HTTP)' });
    assert.match(await httpConfig.inputValue(), /<your API key>/);

    await section.getByRole('button', { name: 'Create a test key for the config' }).click();
    await section.getByText(/A new test key is in the configs below/).waitFor();
    await section.getByRole('button', { name: 'Copy' }).first().click();
    await section.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
    assert.equal(copied, await httpConfig.inputValue());
    await browser!.shot('mcp-config');

    const server = JSON.parse(copied).mcpServers['apparel-mockup'];
    assert.equal(server.url, `${stack.baseUrl}/mcp`);
    assert.match(server.headers.Authorization, /^Bearer amk_test_[0-9a-f]{64}$/);
    const stdio = JSON.parse(await section.getByRole('textbox', { name: /desktop app/ }).inputValue());
    assert.equal(stdio.mcpServers['apparel-mockup'].env.MOCKUP_API_KEY, server.headers.Authorization.slice(7));

    const client = new Client({ name: 'copied-config', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
    );
    try {
      const listed = await client.callTool({ name: 'list_garments', arguments: { limit: '1' } });
      assert.ok(!listed.isError, JSON.stringify(listed.content));
      assert.equal((listed.structuredContent as any).garments.length, 1);
    } finally {
      await client.close();
    }
  });
});
