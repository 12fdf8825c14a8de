// Part B: GET /api/onboarding, the Studio's checklist for a new account (issue 39): make a mockup, create a key, call
// the API with it, connect a store; each step's `done` is read from the account's data, never from the browser.
import { Router } from 'express';
import { onboardingFacts } from '../../db/onboarding';
import { requireAppSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import type { Onboarding } from '../http/getting-started-schemas';

export function onboardingRoutes(deps: AppDeps): Router {
  const r = Router();
  r.get('/onboarding', requireAppSession(deps), async (req, res) => {
    const f = await onboardingFacts(deps.sql, req.user!.id);
    const steps: Onboarding['steps'] = [
      { id: 'mockup', done: f.mockup },
      { id: 'key', done: f.key },
      { id: 'api_call', done: f.apiCall },
      { id: 'store', done: f.store },
    ];
    const body: Onboarding = { steps, done: steps.every((s) => s.done) };
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });
  return r;
}
