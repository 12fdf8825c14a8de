// docker-compose.yml cannot run here (no Docker engine): these checks keep its security properties by reading it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const compose = readFileSync(path.join(__dirname, '../../docker-compose.yml'), 'utf8');

describe('docker-compose.yml', () => {
  it('publishes neither the Temporal frontend nor the UI to the network (UI on 127.0.0.1 only)', () => {
    assert.doesNotMatch(compose, /['"]?7233:7233/, 'Temporal frontend published');
    const published = [...compose.matchAll(/^\s+- '([^']+)'$/gm)].map((m) => m[1]!).filter((p) => /:\d+$/.test(p));
    assert.deepEqual(published.sort(), ['127.0.0.1:8080:8080', '3000:3000']);
  });
  it('takes every password and secret from .env, with no literal default', () => {
    assert.doesNotMatch(compose, /PASSWORD: [a-z]/i);
    assert.doesNotMatch(compose, /POSTGRES_PWD: [a-z]/i);
    assert.doesNotMatch(compose, /postgres:\/\/mockups:mockups@/);
    for (const v of ['POSTGRES_PASSWORD', 'APP_SECRET']) assert.match(compose, new RegExp(`\\$\\{${v}:\\?`));
    const example = readFileSync(path.join(__dirname, '../../.env.example'), 'utf8');
    for (const v of ['POSTGRES_PASSWORD', 'APP_SECRET', 'PUBLIC_BASE_URL'])
      assert.match(example, new RegExp(`^${v}=`, 'm'));
    assert.match(readFileSync(path.join(__dirname, '../../.gitignore'), 'utf8'), /^\.env$/m);
  });
});
