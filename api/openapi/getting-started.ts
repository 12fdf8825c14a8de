// OpenAPI entries of the getting-started routes (issue 39): the sample designs, the front page's mockups and the
// onboarding checklist (api/routes/samples.ts, api/routes/onboarding.ts; docs/dashboard.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as G from '../http/getting-started-schemas';
import { json, partBErrors, PUBLIC, SESSION } from './common';

export function registerGettingStartedPaths(registry: OpenAPIRegistry): void {
  const path = registry.registerPath.bind(registry);
  path({
    method: 'get',
    path: '/api/samples',
    tags: ['Getting started'],
    summary: "The three built-in sample designs (the project's own drawings, PNG): try the service without a file",
    security: PUBLIC,
    responses: { 200: json(G.sampleList, 'the samples') },
  });
  path({
    method: 'get',
    path: '/api/showcase',
    tags: ['Getting started'],
    summary:
      'Mockups of the samples on catalogue garments, rendered by this service on the first request and kept (the front page)',
    security: PUBLIC,
    responses: { 200: json(G.showcase, 'the mockups') },
  });
  path({
    method: 'get',
    path: '/api/onboarding',
    tags: ['Getting started'],
    summary: "The new account's checklist: a mockup made, a key created, the API called with a key, a store connected",
    security: SESSION,
    responses: { 200: json(G.onboarding, "each step, done or not, from the account's data"), ...partBErrors(401) },
  });
}

/** The reference's Quick start (the front page links it): a first mockup from a terminal, with a sample design. */
export function quickStart(baseUrl: string): string {
  return [
    '## Quick start',
    '',
    'Create an account in the dashboard, then a key on its **Developers** page, and from a terminal:',
    '',
    '```sh',
    `BASE=${baseUrl}`,
    'KEY=<your key>',
    '# a sample design of ours (GET /api/samples lists all three), uploaded as yours',
    'curl -s "$BASE/api/samples" | jq -r ".samples[0].url" | xargs curl -s -o sunset.png',
    'DESIGN=$(curl -s -H "Authorization: Bearer $KEY" -F file=@sunset.png "$BASE/api/v1/upload" | jq -r .url)',
    '# a garment and the blank of its first colour',
    'G=$(curl -s -H "Authorization: Bearer $KEY" "$BASE/api/v1/garments?limit=1" | jq ".garments[0]")',
    '# the mockup (1 token; a test key, amk_test_…, spends none)',
    'curl -s -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" "$BASE/api/v1/generate" \\',
    '  -d "{\\"designUrl\\": \\"$DESIGN\\", \\"garmentId\\": $(jq .id <<<"$G"), \\"garmentImageUrl\\": $(jq .colors[0].imageUrl <<<"$G")}"',
    '```',
    '',
    'The answer is the generation: `mockupUrl` once it is `completed` (poll `GET /api/v1/generations/{id}`, or pass a ' +
      '`webhookUrl` and receive it signed).',
    '',
  ].join('\n');
}
