// Part B design chat: POST /api/chat, GET /api/chat/jobs/<id>, GET /api/chat/threads[/<id>].
// Session-authenticated (401 {error: "Unauthorized"}); errors are {error: string}. POST is rate-limited per user
// (every authenticated request counts) before its body is read.
import { Router, type Response } from 'express';
import { MIN_PROMPT_LENGTH } from '../../lib/chat/types';
import { requireAppSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { badRequest, fromZod } from '../errors';
import { chatRateLimit } from '../middleware/chat-rate-limit';
import { chatBody, threadsQuery } from '../http/app-schemas';
import { jsonBody } from '../middleware/body';
import { idempotent } from '../middleware/idempotency';
import { DEFAULT_PAGE_LIMIT } from '../pagination';
import {
  chatRecovered,
  chatThread,
  chatThreads,
  getChatJob,
  JOB_NOT_FOUND,
  postChat,
  THREAD_NOT_FOUND,
  type ChatOutcome,
} from '../services/chat';

export const PROMPT_REQUIRED = 'Prompt is required';

const idParam = (prefix: string) => new RegExp(`^${prefix}_\\d{1,16}_[a-z0-9]{1,32}$`);

/** 200 with the chat resource (and the provider that drew it), or 202 while the job runs; failures are thrown. */
function send(res: Response, outcome: ChatOutcome) {
  if (outcome.state === 'running') {
    res.status(202).json({ jobId: outcome.jobId, status: 'running' });
    return;
  }
  res.setHeader('X-Image-Provider', outcome.provider);
  res.status(200).json(outcome.result);
}

export function chatRoutes(deps: AppDeps): Router {
  const r = Router();
  const session = requireAppSession(deps);

  // Idempotency-Key: the machinery of Part A's generate, in Part B's wording. The same key and body answer
  // from the first job (its stored answer, or, if it stored none, the job as it stands), charged once.
  const idempotency = idempotent(deps, {
    body: (req) => req.rawBody,
    recover: async (req, res, point) => send(res, await chatRecovered(deps, req.user!.id, point)),
    partB: true,
  });

  r.post('/chat', session, chatRateLimit(deps), jsonBody('64kb'), idempotency, async (req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    const prompt = body && typeof body === 'object' && !Array.isArray(body) ? body.prompt : undefined;
    if (typeof prompt !== 'string' || prompt.trim().length < MIN_PROMPT_LENGTH) throw badRequest(PROMPT_REQUIRED);
    const parsed = chatBody.safeParse(body);
    // flat {error: <what is wrong>}, without the issue list
    if (!parsed.success) throw badRequest(fromZod(parsed.error).message);
    send(res, await postChat(deps, req.user!.id, parsed.data, req.log, req.idempotency));
  });

  r.get('/chat/jobs/:jobId', session, async (req, res) => {
    const id = String(req.params.jobId);
    if (!idParam('job').test(id)) {
      res.status(404).json({ error: JOB_NOT_FOUND });
      return;
    }
    send(res, await getChatJob(deps, req.user!.id, id));
  });

  r.get('/chat/threads', session, async (req, res) => {
    const q = threadsQuery.safeParse(req.query);
    if (!q.success) throw badRequest(fromZod(q.error, 'query').message);
    res.json(
      await chatThreads(deps, req.user!.id, { limit: q.data.limit ?? DEFAULT_PAGE_LIMIT, cursor: q.data.cursor }),
    );
  });

  r.get('/chat/threads/:id', session, async (req, res) => {
    const id = String(req.params.id);
    if (!idParam('thr').test(id)) {
      res.status(404).json({ error: THREAD_NOT_FOUND });
      return;
    }
    res.json(await chatThread(deps, req.user!.id, id));
  });

  return r;
}
