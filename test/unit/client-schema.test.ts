// The typed client's generated types (clients/typescript/src/schema.gen.ts) must be what `npm run client:generate`
// makes from the OpenAPI document the API serves: a route or schema changed without regenerating fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clientSchemaSource, CLIENT_SCHEMA_FILE, defaultDocument } from '../../scripts/generate-client';

describe('typed client: generated types are current', () => {
  it('clients/typescript/src/schema.gen.ts equals the output of npm run client:generate', async () => {
    const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
    const fresh = await clientSchemaSource();
    assert.ok(
      committed === fresh,
      'clients/typescript/src/schema.gen.ts is stale against the OpenAPI document: run `npm run client:generate` and commit it',
    );
  });

  it('a document with a changed route produces different types (the comparison can fail)', async () => {
    const doc = defaultDocument() as { paths: Record<string, unknown> };
    const changed = { ...doc, paths: { ...doc.paths, '/api/v1/made-up': doc.paths['/api/v1/generations'] } };
    const text = await clientSchemaSource(changed);
    assert.notEqual(text, readFileSync(CLIENT_SCHEMA_FILE, 'utf8'));
    assert.match(text, /"\/api\/v1\/made-up"/);
  });
});
