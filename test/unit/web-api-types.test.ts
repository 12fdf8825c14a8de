// The dashboard's API types (web/js/api-types.d.ts) are generated from the OpenAPI document: a route or schema
// changed without `npm run web:types` leaves the dashboard type-checked against answers the API no longer gives.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WEB_API_TYPES_FILE, webApiTypes } from '../../scripts/web-api-types';

describe('web/js/api-types.d.ts', function () {
  this.timeout(60_000);

  it('is what openapi-typescript makes of the current OpenAPI document (else: npm run web:types)', async () => {
    const want = await webApiTypes();
    const have = readFileSync(WEB_API_TYPES_FILE, 'utf8');
    assert.ok(have === want, 'web/js/api-types.d.ts is stale: run npm run web:types');
  });

  it('types the answers the dashboard reads', async () => {
    const text = await webApiTypes();
    for (const schema of ['Generation', 'Garment', 'Upload', 'ApiKey', 'Account', 'ChatThread', 'StoreConnection'])
      assert.match(text, new RegExp(`^\\s+${schema}: \\{`, 'm'), schema);
  });
});
