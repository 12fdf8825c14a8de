// Part A key management (spec "API key"). Needs a session, never a key: a leaked key must not mint more keys.
import { Router } from 'express';
import { keyId } from '../../lib/ids';
import { generateKey, hashKey, keyStatus } from '../auth/api-keys';
import { requireSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { conflict, notFound, parse } from '../errors';
import type { z } from 'zod';
import type { keyResource } from '../http/resources';
import { createKeyBody, deleteKeyQuery, keyIdParam } from '../http/schemas';
import { jsonBody } from '../middleware/body';

const MAX_ACTIVE_KEYS = 50;

interface KeyRow {
  id: string;
  name: string;
  lastFour: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  mode: 'live' | 'test';
}

function present(k: KeyRow): z.infer<typeof keyResource> {
  return {
    id: k.id,
    name: k.name,
    lastFour: k.lastFour,
    createdAt: k.createdAt.toISOString(),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    status: keyStatus(k),
    mode: k.mode,
  };
}

export function keyRoutes(deps: AppDeps): Router {
  const r = Router();
  const session = requireSession(deps);

  r.post('/keys', session, jsonBody(), async (req, res) => {
    const body = parse(createKeyBody, req.body);
    const userId = req.user!.id;
    const key = generateKey(deps.config.apiKeyPrefix, body.mode);
    const expiresAt = body.expiresInDays ? new Date(Date.now() + body.expiresInDays * 86_400_000) : null;
    const row = await deps.sql.begin(async (tx) => {
      // Serialize key creation per account so the active-key cap holds under parallel requests. The cap is per
      // mode: test keys never use up the live ones.
      await tx`select id from users where id = ${userId} for update`;
      const [active] = await tx<{ n: number }[]>`
        select count(*)::int as n from api_keys
        where user_id = ${userId} and mode = ${body.mode} and revoked_at is null and (expires_at is null or expires_at > now())`;
      if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) return null;
      const [created] = await tx<KeyRow[]>`
        insert into api_keys (id, user_id, name, key_hash, last_four, expires_at, mode)
        values (${keyId()}, ${userId}, ${body.name}, ${hashKey(key)}, ${key.slice(-4)}, ${expiresAt}, ${body.mode})
        returning id, name, last_four as "lastFour", created_at as "createdAt", expires_at as "expiresAt",
                  last_used_at as "lastUsedAt", revoked_at as "revokedAt", mode`;
      return created!;
    });
    if (!row)
      throw conflict(`An account may hold at most ${MAX_ACTIVE_KEYS} active ${body.mode} keys: revoke one first`);
    req.log.info('api key created', { keyId: row.id });
    const { id, name, lastFour, createdAt, expiresAt: exp, status, mode } = present(row);
    res.status(201).json({
      key,
      metadata: { id, name, lastFour, createdAt, expiresAt: exp, status, mode },
      warning: 'Store this key securely now: it is shown only once and cannot be recovered.',
    });
  });

  r.get('/keys', session, async (req, res) => {
    const rows = await deps.sql<KeyRow[]>`
      select id, name, last_four as "lastFour", created_at as "createdAt", expires_at as "expiresAt",
             last_used_at as "lastUsedAt", revoked_at as "revokedAt", mode
      from api_keys where user_id = ${req.user!.id} order by created_at desc, id desc`;
    res.json({ keys: rows.map(present) });
  });

  r.delete('/keys/:keyId', session, async (req, res) => {
    // A malformed id cannot name a key: answer as for any key that is not yours.
    const parsedId = keyIdParam.safeParse(req.params.keyId);
    if (!parsedId.success) throw notFound('API key not found');
    const id = parsedId.data;
    const { permanent } = parse(deleteKeyQuery, req.query, 'query');
    const userId = req.user!.id;
    if (permanent === 'true') {
      const deleted = await deps.sql`delete from api_keys where id = ${id} and user_id = ${userId} returning id`;
      if (deleted.length === 0) throw notFound('API key not found');
      req.log.info('api key deleted', { keyId: id });
      res.json({ id, deleted: true });
      return;
    }
    // coalesce keeps the first revocation time: revoking twice is harmless and changes nothing.
    const [row] = await deps.sql<KeyRow[]>`
      update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id} and user_id = ${userId}
      returning id, name, last_four as "lastFour", created_at as "createdAt", expires_at as "expiresAt",
                last_used_at as "lastUsedAt", revoked_at as "revokedAt", mode`;
    if (!row) throw notFound('API key not found');
    req.log.info('api key revoked', { keyId: id });
    res.json(present(row));
  });

  return r;
}
