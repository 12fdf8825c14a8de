// Part A key management (spec "API key"). Needs a session, never a key: a leaked key must not mint more keys.
import { Router } from 'express';
import { createApiKey, deleteApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from '../../db/api-keys';
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

function present(k: ApiKeyRow): z.infer<typeof keyResource> {
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
    const row = await createApiKey(
      deps.sql,
      {
        id: keyId(),
        userId,
        name: body.name,
        keyHash: hashKey(key),
        lastFour: key.slice(-4),
        expiresAt,
        mode: body.mode,
      },
      MAX_ACTIVE_KEYS,
    );
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
    const rows = await listApiKeys(deps.sql, req.user!.id);
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
      if (!(await deleteApiKey(deps.sql, userId, id))) throw notFound('API key not found');
      req.log.info('api key deleted', { keyId: id });
      res.json({ id, deleted: true });
      return;
    }
    const row = await revokeApiKey(deps.sql, userId, id);
    if (!row) throw notFound('API key not found');
    req.log.info('api key revoked', { keyId: id });
    res.json(present(row));
  });

  return r;
}
